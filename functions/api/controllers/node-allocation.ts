/**
 * `/v1/nodes/{node}/allocation` (1.52; Ironic's NodeAllocationController): the node's allocation,
 * shown or deleted. Before 1.52 the path does not exist (404).
 */
import { NotFound, httpErrors } from '#common/errors';
import { ALLOCATIONS_VERSION, destroyAllocation } from '../allocation-ops';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json, noContent } from '../http';
import { checkNodeIdent, findNode } from '../lookup';
import { atLeast } from '../microversion';
import { route } from '../route';
import { listAllocations } from './allocations';
import { NO_QUERY, arg, defineQuery } from '../request';

function checkVersion(req: ApiRequest, ident: string): void {
  checkNodeIdent(ident);
  if (!atLeast(req.version, ALLOCATIONS_VERSION)) throw httpErrors.notFound();
}

const ShowQuery = defineQuery({ fields: arg.stringList() });

const notFound = (ident: string) => new NotFound(`Allocation for node ${ident} was not found`);

async function getNodeAllocation(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  checkVersion(req, params.ident);
  const { fields } = ShowQuery.read(req);
  const result = await listAllocations(req, ctx, { filter: {}, nodeIdent: params.ident, sortKey: 'id', sortDir: 'asc', fields });
  const first = result.allocations[0];
  if (first === undefined) throw notFound(params.ident);
  return json(200, first);
}

async function deleteNodeAllocation(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  checkVersion(req, params.ident);
  NO_QUERY.read(req);
  const node = await findNode(req, ctx, params.ident, true);
  const page = await ctx.stores.allocations.list({ nodeUuid: node.uuid }, { limit: 1 });
  const allocation = page.items[0];
  if (allocation === undefined) throw notFound(params.ident);
  await destroyAllocation(req, ctx, allocation);
  return noContent();
}

export const NODE_ALLOCATION_ROUTES = [
  route('GET', '/v1/nodes/:ident/allocation', getNodeAllocation),
  route('DELETE', '/v1/nodes/:ident/allocation', deleteNodeAllocation),
];
