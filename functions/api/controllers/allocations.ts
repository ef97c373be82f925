/**
 * `/v1/allocations` (1.52; Ironic's AllocationsController): list with filters, show, update name
 * and extra (1.57), delete. Creation is in `allocation-create.ts`, the node's own allocation in
 * `node-allocation.ts`. Every request is Ironic's admin (noauth or http_basic): no owner scoping.
 */
import { ClientSideError, Invalid, InvalidParameterValue, NodeNotFound, NotAcceptable, httpErrors, withStatus } from '#common/errors';
import type { Allocation } from '#objects/allocation';
import type { AllocationFilter } from '#db/allocations';
import { argUuid, argUuidOrName } from '../args';
import { pyStr } from '#common/pyrepr';
import { checkAllocationsAllowed, destroyAllocation, findAllocation } from '../allocation-ops';
import { parseBody } from '../body';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json, noContent } from '../http';
import { findNode, retryOnConflict } from '../lookup';
import { atLeast } from '../microversion';
import { isValidLogicalName } from '../names';
import { nextLink } from '../params';
import { type PatchOperation, applyPatch } from '../patch';
import { type Handler, route } from '../route';
import { ALLOCATION_SCHEMA } from '../schemas/allocation';
import { PATCH_SCHEMA } from '../schemas/node';
import { validateSchema } from '../validation';
import { ALLOCATION_OWNER_VERSION, allocationView, checkAllocationFields } from '../views/allocation';
import { createAllocation } from './allocation-create';
import { Arg, NO_QUERY, NO_QUERY_BESIDE_BODY, arg, defineQuery } from '../request';

/** Fields that cannot order a list (Ironic's invalid_sort_key_list). */
const UNSORTABLE = ['extra', 'candidate_nodes', 'traits'];
/** Columns of Ironic's allocations table, mapped to the field that orders the same way here. */
const SORT_COLUMNS: Readonly<Record<string, string | undefined>> = {
  id: undefined,
  version: undefined,
  uuid: 'uuid',
  name: 'name',
  node_id: 'node_uuid',
  state: 'state',
  last_error: 'last_error',
  resource_class: 'resource_class',
  conductor_affinity: 'conductor_affinity',
  owner: 'owner',
  created_at: 'created_at',
  updated_at: 'updated_at',
};
const PATCH_ALLOWED_FIELDS = ['name', 'extra'];

/** Asking for `owner` (a field or a filter) needs 1.60. */
export function checkOwnerAllowed(req: ApiRequest, fields: Iterable<string> | undefined): void {
  if (fields !== undefined && [...fields].includes('owner') && !atLeast(req.version, ALLOCATION_OWNER_VERSION))
    throw new NotAcceptable('Request not acceptable.');
}

export function showAllocation(req: ApiRequest, allocation: Allocation, fields?: readonly string[]): Record<string, unknown> {
  return allocationView(allocation, { baseUrl: req.baseUrl, version: req.version, fields });
}

export interface AllocationListQuery {
  readonly filter: AllocationFilter;
  readonly nodeIdent?: string | undefined;
  readonly limit?: number | undefined;
  readonly marker?: string | undefined;
  readonly sortKey: string;
  readonly sortDir: string;
  readonly fields: string[] | undefined;
}

/** Ironic's `_get_allocations_collection`: the checks in its order, the list, the views and the next link. */
export async function listAllocations(
  req: ApiRequest,
  ctx: ApiContext,
  query: AllocationListQuery,
  nodeNotFoundStatus = 400,
): Promise<{ allocations: Record<string, unknown>[]; next?: string }> {
  if (query.limit !== undefined && query.limit <= 0) throw new InvalidParameterValue('Limit must be positive');
  const limit = Math.min(query.limit ?? ctx.config.maxLimit, ctx.config.maxLimit);
  if (query.sortDir !== 'asc' && query.sortDir !== 'desc') {
    throw new InvalidParameterValue(`Invalid sort direction: ${query.sortDir}. Acceptable values are 'asc' or 'desc'`);
  }
  if (UNSORTABLE.includes(query.sortKey))
    throw new InvalidParameterValue(`The sort_key value ${query.sortKey} is an invalid field for sorting`);
  if (query.marker !== undefined) await ctx.stores.allocations.get(query.marker);
  let nodeUuid: string | undefined;
  if (query.nodeIdent !== undefined) {
    try {
      nodeUuid = (await findNode(req, ctx, query.nodeIdent)).uuid;
    } catch (err) {
      throw err instanceof NodeNotFound ? withStatus(err, nodeNotFoundStatus) : err;
    }
  }
  if (!(query.sortKey in SORT_COLUMNS)) {
    throw new InvalidParameterValue(`The sort_key value "${query.sortKey}" is an invalid field for sorting`);
  }
  const page = await ctx.stores.allocations.list(
    { ...query.filter, ...(nodeUuid !== undefined ? { nodeUuid } : {}) },
    { limit, marker: query.marker, sortKey: SORT_COLUMNS[query.sortKey], sortDir: query.sortDir },
  );
  const first = page.items[0];
  if (first !== undefined) checkAllocationFields(query.fields, first);
  const body: { allocations: Record<string, unknown>[]; next?: string } = {
    allocations: page.items.map((a) => showAllocation(req, a, query.fields)),
  };
  const next = nextLink(req, 'allocations', page.items, limit, [
    ['sort_key', query.sortKey],
    ['sort_dir', query.sortDir],
    ['fields', query.fields && query.fields.length > 0 ? query.fields.join(',') : undefined],
  ]);
  if (next !== undefined) body.next = next;
  return body;
}

/** The list's arguments, in the order of Ironic's signature. */
const ListQuery = defineQuery({
  node: Arg.of(argUuidOrName),
  resource_class: arg.string(),
  state: arg.string(),
  marker: arg.uuidAsGiven(),
  limit: arg.integer(),
  sort_key: arg.string(),
  sort_dir: arg.string(),
  fields: arg.stringList(),
  owner: arg.string(),
});
/** Show: the allocation's ident is checked with `fields`, before the lookup. */
const ShowQuery = defineQuery({ allocation_ident: Arg.of(argUuidOrName), fields: arg.stringList() }, { path: ['allocation_ident'] });

async function getAllocations(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  const query = ListQuery.read(req);
  const { node, resource_class: resourceClass, state, marker, limit, fields, owner } = query;
  const { sort_key: sortKey = 'id', sort_dir: sortDir = 'asc' } = query;
  checkOwnerAllowed(req, fields);
  if (owner !== undefined && !atLeast(req.version, ALLOCATION_OWNER_VERSION)) throw new NotAcceptable('Request not acceptable.');
  const filter: AllocationFilter = {
    ...(resourceClass !== undefined ? { resourceClass } : {}),
    ...(state !== undefined ? { state } : {}),
    ...(owner !== undefined ? { owner } : {}),
  };
  return json(200, await listAllocations(req, ctx, { filter, nodeIdent: node, limit, marker, sortKey, sortDir, fields }));
}

async function getOneAllocation(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const { fields } = ShowQuery.read(req, { allocation_ident: params.ident });
  const allocation = await findAllocation(req, ctx, params.ident);
  checkOwnerAllowed(req, fields);
  checkAllocationFields(fields, allocation);
  return json(200, showAllocation(req, allocation, fields));
}

/** The allocation's fields as Ironic's `as_dict()` gives them to the patch. */
function patchDocument(allocation: Allocation): Record<string, unknown> {
  const doc: Record<string, unknown> = { ...allocation.toData() };
  doc.node_id = allocation.node_uuid;
  delete doc.node_uuid;
  return doc;
}

async function patchAllocation(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const parsed = parseBody(req);
  NO_QUERY_BESIDE_BODY.read(req, parsed);
  validateSchema('patch', PATCH_SCHEMA, parsed ?? {});
  if (!atLeast(req.version, 57)) throw new ClientSideError('The API version does not allow updating allocations', 405);
  const patch = parsed as PatchOperation[];
  // The conductor writes the allocation while it allocates; a patch of name or extra that loses
  // that race is applied again to what the conductor wrote, as Ironic's unconditional save would.
  return retryOnConflict(async () => {
    const allocation = await findAllocation(req, ctx, params.ident);
    await applyAllocationPatch(req, ctx, allocation, patch);
    ctx.log.info('Allocation updated', { allocation: allocation.uuid });
    return json(200, showAllocation(req, allocation));
  });
}

async function applyAllocationPatch(req: ApiRequest, ctx: ApiContext, allocation: Allocation, patch: PatchOperation[]): Promise<void> {
  for (const p of patch) {
    if (!PATCH_ALLOWED_FIELDS.includes(p.path.split('/')[1] as string)) {
      throw new Invalid(`Cannot patch ${p.path}. Only the following can be updated: ${PATCH_ALLOWED_FIELDS.join(', ')}`);
    }
  }
  for (const p of patch) {
    if (p.path !== '/name' || p.op === 'remove') continue;
    if (p.value && !isValidLogicalName(p.value, req.version))
      throw new Invalid(`Cannot update allocation with invalid name '${pyStr(p.value)}'`);
  }
  const patched = applyPatch(patchDocument(allocation), patch);
  const checked: Record<string, unknown> = {};
  for (const key of Object.keys(ALLOCATION_SCHEMA.properties as object)) if (key in patched) checked[key] = patched[key];
  validateSchema('patch', ALLOCATION_SCHEMA, checked);
  argUuid('uuid', checked.uuid);
  const name = (patched.name ?? null) as string | null;
  const extra = (patched.extra ?? null) as Record<string, unknown> | null;
  if (name !== allocation.name) allocation.name = name;
  if (JSON.stringify(extra ?? {}) !== JSON.stringify(allocation.extra ?? {})) allocation.extra = extra ?? {};
  if (allocation.whatChanged().size > 0) {
    allocation.updated_at = new Date().toISOString();
    await ctx.stores.allocations.save(allocation);
  }
}

async function deleteAllocation(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  NO_QUERY.read(req);
  argUuidOrName('allocation_ident', params.ident);
  const allocation = await findAllocation(req, ctx, params.ident);
  await destroyAllocation(req, ctx, allocation);
  return noContent();
}

/** A handler that first refuses versions before allocations. */
export function gated<P>(handler: (req: ApiRequest, ctx: ApiContext, params: P) => Promise<ApiResponse>): Handler {
  return async (req, ctx, params) => {
    checkAllocationsAllowed(req);
    return handler(req, ctx, params as P);
  };
}

const refuse = async (): Promise<ApiResponse> => {
  throw httpErrors.methodNotAllowed();
};

export const ALLOCATION_ROUTES = [
  route('GET', '/v1/allocations', gated(getAllocations)),
  route('POST', '/v1/allocations', gated(createAllocation)),
  ...['PUT', 'PATCH', 'DELETE'].map((m) => route(m, '/v1/allocations', gated(refuse))),
  route('GET', '/v1/allocations/:ident', gated(getOneAllocation)),
  route('PATCH', '/v1/allocations/:ident', gated(patchAllocation)),
  route('DELETE', '/v1/allocations/:ident', gated(deleteAllocation)),
  ...['POST', 'PUT'].map((m) => route(m, '/v1/allocations/:ident', gated(refuse))),
];
