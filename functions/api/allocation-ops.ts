/**
 * Finding allocations and removing them (Ironic's `get_rpc_allocation_with_suffix` and the
 * conductor's `destroy_allocation`). Removing an allocation that holds a node is done here, under
 * the node's lock, as Ironic's conductor does it inside its synchronous RPC call: the node must
 * allow it, then the allocation goes and the node's instance_uuid and allocation_uuid are cleared.
 */
import { AllocationNotFound, InvalidUuidOrName, NodeNotFound, httpErrors } from '#common/errors';
import { verifyNodeForDeallocation } from '#common/allocation-rules';
import { isOsloUuidLike, newUuid } from '#common/ids';
import type { Allocation } from '#objects/allocation';
import { conductorHost } from './begin';
import type { ApiContext } from './context';
import type { ApiRequest } from './http';
import { atLeast } from './microversion';
import { isValidLogicalName } from './names';

/** The version that added allocations. */
export const ALLOCATIONS_VERSION = 52;
const NOT_ALLOWED = 'The API version does not allow allocations';

/** Before 1.52 `/v1/allocations` is unknown: GET is 404, anything else 405, saying why. */
export function checkAllocationsAllowed(req: ApiRequest): void {
  if (atLeast(req.version, ALLOCATIONS_VERSION)) return;
  throw req.method === 'GET' || req.method === 'HEAD' ? httpErrors.notFound(NOT_ALLOWED) : httpErrors.methodNotAllowed(NOT_ALLOWED);
}

async function getAllocation(req: ApiRequest, ctx: ApiContext, ident: string): Promise<Allocation> {
  if (isOsloUuidLike(ident)) return ctx.stores.allocations.get(ident);
  if (isValidLogicalName(ident, req.version)) return ctx.stores.allocations.getByName(ident);
  throw new InvalidUuidOrName(ident);
}

/** An allocation by UUID or name; a path that ended in ".json" also finds a name ending so. */
export async function findAllocation(req: ApiRequest, ctx: ApiContext, ident: string): Promise<Allocation> {
  try {
    return await getAllocation(req, ctx, ident);
  } catch (err) {
    if (!(err instanceof AllocationNotFound) || !req.jsonSuffix) throw err;
    return getAllocation(req, ctx, `${ident}.json`);
  }
}

/**
 * Delete an allocation. One holding a node is removed under the node's lock (409 when someone
 * else holds it), after the node's state allows it (Ironic's verify_node_for_deallocation); the
 * node is released with its instance association cleared.
 */
export async function destroyAllocation(req: ApiRequest, ctx: ApiContext, allocation: Allocation): Promise<void> {
  const nodeUuid = allocation.node_uuid;
  if (nodeUuid === null) {
    await ctx.stores.allocations.destroy(allocation);
    ctx.log.info('Allocation deleted', { allocation: allocation.uuid });
    return;
  }
  let node;
  try {
    node = await ctx.nodes.reserve(nodeUuid, {
      host: conductorHost(ctx),
      token: `api:${newUuid()}`,
      ttlSeconds: ctx.config.lockTtlSeconds,
    });
  } catch (err) {
    // The node went away with its allocations; nothing holds this one any more.
    if (!(err instanceof NodeNotFound)) throw err;
    await ctx.stores.allocations.destroy(allocation);
    return;
  }
  try {
    verifyNodeForDeallocation(node, allocation);
    await ctx.stores.allocations.destroy(allocation);
  } catch (err) {
    await ctx.nodes.release(node);
    throw err;
  }
  if (node.allocation_uuid === allocation.uuid) {
    node.allocation_uuid = null;
    node.instance_uuid = null;
  }
  await ctx.nodes.save(node, { release: true });
  ctx.log.info('Allocation deleted', { allocation: allocation.uuid, node: node.uuid });
}

/** Remove an allocation its node no longer holds (the node was saved without it); one already gone is fine. */
export async function destroyAllocationOf(ctx: ApiContext, uuid: string): Promise<void> {
  try {
    await ctx.stores.allocations.destroy(await ctx.stores.allocations.get(uuid));
  } catch (err) {
    if (!(err instanceof AllocationNotFound)) throw err;
  }
}
