/** `/v1/nodes`: list, detail, show, create, delete (Ironic's NodesController). */
import { ClientSideError, InvalidState, NodeAssociated, NodeProtected, NotAcceptable } from '#common/errors';
import { AVAILABLE, DELETE_ALLOWED_STATES } from '#common/states';
import type { Node } from '#objects/node';
import { parseBody } from '../body';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json, noContent } from '../http';
import { checkConductorFor } from '../interfaces';
import { findNode, requireChassis, resolveParentNode, whenUnlocked } from '../lookup';
import { atLeast } from '../microversion';
import { checkCreateBody, newNode } from '../node-create';
import { listNextLink, readListQuery, runListQuery } from '../node-list';
import { NO_QUERY, NO_QUERY_BESIDE_BODY, arg, defineQuery } from '../request';
import { route } from '../route';
import { checkFieldNames, checkFieldVersions, nodeView } from '../views/node';

/** The conductor shown for every node: the conductor function serving its group. */
export function conductorName(ctx: ApiContext): string {
  return ctx.config.conductorFunction
    .split(':')
    .slice(-2)
    .join(':')
    .replace(/^function:/, '');
}

/** The `conductor` a node view shows (1.49): the live conductor serving it, null when none does. */
export async function nodeConductor(req: ApiRequest, ctx: ApiContext, node: Node, fields?: readonly string[]): Promise<string | null> {
  if (!atLeast(req.version, 49) || (fields !== undefined && !fields.includes('conductor'))) return null;
  return ctx.conductors.conductorOrNull(node);
}

/** A node as the API answers with it at the request's version. */
export async function showNode(req: ApiRequest, ctx: ApiContext, node: Node, fields?: readonly string[]): Promise<Record<string, unknown>> {
  const conductor = await nodeConductor(req, ctx, node, fields);
  return nodeView(node, { baseUrl: req.baseUrl, version: req.version, conductor, ...(fields ? { fields } : {}) });
}

async function listNodes(req: ApiRequest, ctx: ApiContext, detailPath: boolean): Promise<ApiResponse> {
  // Ironic's /detail checks that its parent is "nodes": a trailing slash fails that check.
  if (detailPath && req.path.endsWith('/')) throw new ClientSideError('Resource could not be found.', 404);
  const query = readListQuery(req, ctx, detailPath);
  const nodes = await runListQuery(ctx, query);
  if (nodes.length > 0) checkFieldNames(query.fields);
  const views: Record<string, unknown>[] = [];
  for (const node of nodes) {
    const conductor = await nodeConductor(req, ctx, node, query.fields);
    views.push(
      nodeView(node, { baseUrl: req.baseUrl, version: req.version, conductor, ...(query.fields ? { fields: query.fields } : {}) }),
    );
  }
  const body: Record<string, unknown> = { nodes: views };
  const next = listNextLink(req, detailPath ? 'nodes/detail' : 'nodes', query, nodes);
  if (next !== undefined) body.next = next;
  return json(200, body);
}

export const getNodes = (req: ApiRequest, ctx: ApiContext) => listNodes(req, ctx, false);
export const getNodesDetail = (req: ApiRequest, ctx: ApiContext) => listNodes(req, ctx, true);

const ShowQuery = defineQuery({ fields: arg.stringList() });

export async function getNode(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const { fields } = ShowQuery.read(req);
  const node = await findNode(req, ctx, params.ident, true);
  if (fields !== undefined && !atLeast(req.version, 8)) throw new NotAcceptable('Request not acceptable.');
  checkFieldVersions(fields, req.version);
  checkFieldNames(fields);
  return json(200, await showNode(req, ctx, node, fields));
}

export async function createNode(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  const parsed = parseBody(req) ?? {};
  NO_QUERY_BESIDE_BODY.read(req, parsed);
  const { body, uuid, group } = checkCreateBody(parsed, req.version);
  if (body.chassis_uuid) body.chassis_uuid = await requireChassis(ctx, body.chassis_uuid as string);
  if (body.parent_node) body.parent_node = await resolveParentNode(req, ctx, body.parent_node as string);
  const driver = body.driver as string;
  await checkConductorFor(ctx, driver, group);
  const node = await ctx.nodes.create(newNode(body, uuid, group, req.version));
  ctx.log.info('Node created', { node: node.uuid, name: node.name, driver });
  return json(201, await showNode(req, ctx, node), { Location: `${req.baseUrl}/v1/nodes/${node.uuid}` });
}

/** Ironic's DELETE_ALLOWED_STATES plus available (its `[conductor]allow_deleting_available_nodes`, on by default). */
const DELETABLE_STATES = [...DELETE_ALLOWED_STATES, AVAILABLE];

export async function deleteNode(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  NO_QUERY.read(req);
  const found = await findNode(req, ctx, params.ident, true);
  await checkConductorFor(ctx, found.driver, found.conductor_group, found.uuid);
  const node = await whenUnlocked(ctx, found);
  if (!node.maintenance && node.instance_uuid !== null) throw new NodeAssociated(node.uuid, node.instance_uuid);
  if (node.protected) throw new NodeProtected(node.uuid);
  if (!node.maintenance && !DELETABLE_STATES.includes(node.provision_state)) {
    throw new InvalidState(
      `Can not delete node "${node.uuid}" while it is in provision state "${node.provision_state}". Valid provision states to perform deletion are: "(${DELETABLE_STATES.map((s) => `'${s}'`).join(', ')})", or set the node into maintenance mode`,
    );
  }
  // Conditional on the revision read and on the lock: a concurrent change or lock is a 409.
  await ctx.nodes.destroy(node);
  ctx.log.info('Node deleted', { node: node.uuid });
  return noContent();
}

export const NODE_ROUTES = [
  route('GET', '/v1/nodes', getNodes),
  route('POST', '/v1/nodes', createNode),
  route('GET', '/v1/nodes/detail', getNodesDetail),
  route('GET', '/v1/nodes/:ident', getNode),
  route('DELETE', '/v1/nodes/:ident', deleteNode),
];
