/**
 * `POST /v1/allocations` (Ironic's AllocationsController.post and the conductor's
 * create_allocation). The allocation is created in state `allocating` and the conductor is cast
 * `create_allocation` to find and reserve a node for it. Backfilling (1.58: `node` given, for a node
 * already deployed) is quick and answers its errors, so it is done here under the node's lock, as
 * Ironic's conductor does it within its synchronous call.
 */
import { AllocationFailed, Invalid, NodeAssociated, NodeNotFound, NotAcceptable, NotFound, withStatus } from '#common/errors';
import { ALLOCATING, ALLOCATION_ACTIVE, ALLOCATION_ERROR, backfillErrors } from '#common/allocation-rules';
import { isOsloUuidLike, newUuid } from '#common/ids';
import { Allocation } from '#objects/allocation';
import type { Node } from '#objects/node';
import { argUuid } from '../args';
import { pyStr } from '#common/pyrepr';
import { NO_QUERY_BESIDE_BODY } from '../request';
import { conductorHost } from '../begin';
import { parseBody } from '../body';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json } from '../http';
import { findNode } from '../lookup';
import { atLeast } from '../microversion';
import { isValidLogicalName } from '../names';
import { ALLOCATION_SCHEMA } from '../schemas/allocation';
import { validateSchema } from '../validation';
import { ALLOCATION_OWNER_VERSION, allocationView } from '../views/allocation';

/** The version that allows backfilling (`node` on create). */
const BACKFILL_VERSION = 58;

/** Ironic's `check_node_list`: names and UUIDs of the candidates, as UUIDs in the order given (400 for unknown ones). */
async function candidateUuids(ctx: ApiContext, idents: readonly string[]): Promise<string[]> {
  const unique = [...new Set(idents)];
  const impossible = unique.filter((i) => !isOsloUuidLike(i) && !isValidLogicalName(i, { major: 1, minor: 10 }));
  if (impossible.length > 0) throw withStatus(new NotFound(`Nodes cannot be found: ${impossible.join(', ')}`), 400);
  const mapping = new Map<string, string>();
  const missing: string[] = [];
  for (const ident of unique) {
    try {
      const node = isOsloUuidLike(ident) ? await ctx.nodes.get(ident) : await ctx.nodes.getByName(ident);
      mapping.set(ident, node.uuid);
    } catch (err) {
      if (!(err instanceof NodeNotFound)) throw err;
      missing.push(ident);
    }
  }
  if (missing.length > 0) throw withStatus(new NotFound(`Nodes cannot be found: ${missing.join(', ')}`), 400);
  return idents.map((i) => mapping.get(i) as string);
}

/** The conductor group to cast to: any conductor can allocate (Ironic picks a random topic); the default group first. */
function allocationGroup(ctx: ApiContext): string {
  const groups = Object.keys(ctx.config.conductorQueues);
  return groups.includes('') ? '' : (groups[0] ?? '');
}

export async function createAllocation(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  const parsed = parseBody(req);
  NO_QUERY_BESIDE_BODY.read(req, parsed);
  validateSchema('allocation', ALLOCATION_SCHEMA, parsed ?? null);
  const body = { ...(parsed as Record<string, unknown>) };
  argUuid('uuid', body.uuid);
  if ('owner' in body && !atLeast(req.version, ALLOCATION_OWNER_VERSION)) throw new NotAcceptable('Request not acceptable.');
  const name = body.name as string | null | undefined;
  if (name && !isValidLogicalName(name, req.version)) throw new Invalid(`Cannot create allocation with invalid name '${pyStr(name)}'`);

  let node: Node | undefined;
  if (body.node) {
    if (!atLeast(req.version, BACKFILL_VERSION)) throw new Invalid('Cannot set node when creating an allocation in this API version');
    try {
      node = await findNode(req, ctx, body.node as string);
    } catch (err) {
      throw err instanceof NodeNotFound ? withStatus(err, 400) : err;
    }
  }
  if (!body.resource_class) {
    if (node === undefined) throw new Invalid('The resource_class field is mandatory when not backfilling');
    body.resource_class = node.resource_class;
  }
  const candidates = body.candidate_nodes as string[] | null | undefined;
  if (candidates && candidates.length > 0) body.candidate_nodes = await candidateUuids(ctx, candidates);
  if (!body.uuid) body.uuid = node?.instance_uuid ? node.instance_uuid : newUuid();

  const allocation = new Allocation({
    uuid: body.uuid,
    name: name ?? null,
    resource_class: body.resource_class ?? null,
    traits: body.traits ?? null,
    candidate_nodes: body.candidate_nodes ?? null,
    extra: body.extra ?? {},
    owner: body.owner ?? null,
    state: ALLOCATING,
    last_error: null,
    node_uuid: null,
    conductor_affinity: conductorHost(ctx),
    created_at: new Date().toISOString(),
  });
  const created = await ctx.stores.allocations.create(allocation);
  if (node !== undefined) await backfill(ctx, created, node);
  else await castAllocation(req, ctx, created);
  return json(201, allocationView(created, { baseUrl: req.baseUrl, version: req.version }), {
    Location: `${req.baseUrl}/v1/allocations/${created.uuid}`,
  });
}

async function castAllocation(req: ApiRequest, ctx: ApiContext, allocation: Allocation): Promise<void> {
  const message = ctx.rpc.message('create_allocation', { allocation_id: allocation.uuid }, { request_id: req.requestId });
  try {
    await ctx.rpc.cast(allocationGroup(ctx), message);
  } catch (err) {
    ctx.log.error('Could not cast create_allocation; removing the allocation', { allocation: allocation.uuid, error: String(err) });
    await ctx.stores.allocations
      .destroy(allocation)
      .catch((undo: unknown) => ctx.log.error('Could not remove the allocation', { allocation: allocation.uuid, error: String(undo) }));
    throw err;
  }
  ctx.log.info('Allocation created', { allocation: allocation.uuid, message_id: message.message_id });
}

/**
 * Give an already deployed node to a new allocation (Ironic's backfill_allocation): under the
 * node's lock, check it suits, associate it (instance_uuid = the allocation's UUID), then mark the
 * allocation active. Any failure marks the allocation failed and is answered as Ironic answers it.
 */
async function backfill(ctx: ApiContext, allocation: Allocation, target: Node): Promise<void> {
  try {
    const node = await ctx.nodes.reserve(target.uuid, {
      host: conductorHost(ctx),
      token: `api:${newUuid()}`,
      ttlSeconds: ctx.config.lockTtlSeconds,
    });
    try {
      const errors = backfillErrors(node, allocation);
      if (errors.length > 0)
        throw new AllocationFailed(allocation.uuid, `Cannot backfill an allocation for node ${node.uuid}: ${errors.join('; ')}`);
      if (node.instance_uuid && node.instance_uuid !== allocation.uuid) throw new NodeAssociated(node.uuid, node.instance_uuid);
      node.instance_uuid = allocation.uuid;
      node.allocation_uuid = allocation.uuid;
      node.instance_info = { ...node.instance_info, traits: allocation.traits ?? [] };
      await ctx.nodes.save(node);
      allocation.node_uuid = node.uuid;
      allocation.state = ALLOCATION_ACTIVE;
      allocation.updated_at = new Date().toISOString();
      try {
        await ctx.stores.allocations.save(allocation);
      } catch (err) {
        // Deleted meanwhile: the node must not stay associated with an allocation that is gone.
        node.instance_uuid = null;
        node.allocation_uuid = null;
        await ctx.nodes.save(node);
        throw err;
      }
    } finally {
      await ctx.nodes.release(node);
    }
    ctx.log.info('Allocation backfilled', { allocation: allocation.uuid, node: target.uuid });
  } catch (err) {
    const known = ['AllocationFailed', 'InstanceAssociated', 'NodeAssociated', 'NodeNotFound'].includes((err as Error).name);
    allocation.node_uuid = null;
    allocation.state = ALLOCATION_ERROR;
    allocation.last_error = known ? (err as Error).message : `Unexpected exception during allocation: ${(err as Error).message}`;
    await ctx.stores.allocations
      .save(allocation)
      .catch((e: unknown) => ctx.log.error('Could not save the failed allocation', { error: String(e) }));
    throw err;
  }
}
