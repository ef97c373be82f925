/** `/v1/nodes`: list, detail, show, create, delete (Ironic's NodesController). */
import {
  ClientSideError,
  Invalid,
  InvalidParameterValue,
  InvalidState,
  NodeAssociated,
  NodeProtected,
  NotAcceptable,
} from '#common/errors';
import { newUuid } from '#common/ids';
import { AVAILABLE, DELETE_ALLOWED_STATES, ENROLL } from '#common/states';
import { Node } from '#objects/node';
import { argStringList, argUuid, collectArgs, pyStr, rejectUnexpected } from '../args';
import { parseBody } from '../body';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json, noContent } from '../http';
import { checkAndUpdateInterfaces, checkConductorFor } from '../interfaces';
import { findNode, requireChassis, resolveParentNode, whenUnlocked } from '../lookup';
import { atLeast } from '../microversion';
import { checkNodeName } from '../names';
import { listNextLink, readListQuery, runListQuery } from '../node-list';
import { route } from '../route';
import { NODE_SCHEMA } from '../schemas/node';
import { parseBoolean, validateSchema } from '../validation';
import { checkFieldNames, checkFieldVersions, fieldAllowed, nodeView } from '../views/node';

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

export async function getNode(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const args = collectArgs(req);
  rejectUnexpected(args, ['fields']);
  const fields = argStringList('fields', args.get('fields'));
  const node = await findNode(req, ctx, params.ident, true);
  if (fields !== undefined && !atLeast(req.version, 8)) throw new NotAcceptable('Request not acceptable.');
  checkFieldVersions(fields, req.version);
  checkFieldNames(fields);
  return json(200, await showNode(req, ctx, node, fields));
}

/** Node fields a create request gives as booleans or UUIDs, converted in Ironic's order. */
const VALIDATE_EXTRA: readonly [string, 'bool' | 'uuid'][] = [
  ['automated_clean', 'bool'],
  ['chassis_uuid', 'uuid'],
  ['console_enabled', 'bool'],
  ['instance_uuid', 'uuid'],
  ['protected', 'bool'],
  ['maintenance', 'bool'],
  ['retired', 'bool'],
  ['uuid', 'uuid'],
];

/** Ironic's NODE_VALIDATE_EXTRA: booleans parsed, UUIDs checked, in place. */
export function validateExtra(body: Record<string, unknown>): void {
  for (const [field, kind] of VALIDATE_EXTRA) {
    if (!(field in body)) continue;
    if (kind === 'bool') body[field] = parseBoolean(field, body[field]);
    else body[field] = argUuid(field, body[field]) ?? null;
  }
  if (body.secure_boot !== undefined) body.secure_boot = parseBoolean('secure_boot', body.secure_boot);
}

/** Fields newer than the request's version may not be set (Ironic's reject_fields_in_newer_versions). */
function rejectNewerFields(req: ApiRequest, body: Record<string, unknown>): void {
  for (const [field, value] of Object.entries(body)) {
    if (fieldAllowed(field, req.version)) continue;
    const empty = field === 'conductor_group' ? '' : null;
    if (field === 'name' && value === null) continue;
    if (value !== empty && value !== undefined) throw new NotAcceptable('Request not acceptable.');
  }
}

const INT_PROPERTIES = ['local_gb', 'cpus', 'memory_mb'];

/** Python's int() of a property value, or undefined when it has none. */
function pyInt(value: unknown): number | undefined {
  if (typeof value === 'boolean') return Number(value);
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : undefined;
  if (typeof value === 'string' && /^\s*[-+]?\d+(_\d+)*\s*$/.test(value)) return Number(value.replace(/_/g, ''));
  return undefined;
}

/** local_gb, cpus and memory_mb must be non-negative integers (Ironic's Node._validate_property_values). */
export function checkPropertyValues(uuid: string, properties: unknown): void {
  if (properties === null || typeof properties !== 'object') return;
  const bad: string[] = [];
  for (const name of INT_PROPERTIES) {
    const value = (properties as Record<string, unknown>)[name];
    if (value === undefined || value === null) continue;
    const n = pyInt(value);
    if (n === undefined || n < 0) bad.push(`${name}=${pyStr(value)}`);
  }
  if (bad.length > 0) {
    throw new InvalidParameterValue(
      `The following properties for node ${uuid} should be non-negative integers, but provided values are: ${bad.join(', ')}`,
    );
  }
}

/** A conductor group may use letters, digits, "_", "-" and "." only; it is stored lower-cased. */
export function formatConductorGroup(group: string): string {
  if (!/^[a-zA-Z0-9_\-.]*$/.test(group)) throw new InvalidParameterValue(`Expected a conductor group but received ${group}.`);
  return group.toLowerCase();
}

export async function createNode(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  const parsed = parseBody(req) ?? {};
  const body = parsed as Record<string, unknown>;
  const args = collectArgs(req);
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) for (const key of Object.keys(body)) args.delete(key);
  rejectUnexpected(args, []);
  validateSchema('node', NODE_SCHEMA, parsed);
  validateExtra(body);
  rejectNewerFields(req, body);
  const uuid = (body.uuid as string | null | undefined) || newUuid();
  const group = (body.conductor_group as string | null | undefined) || '';
  if (body.name !== undefined && body.name !== null) {
    checkNodeName(body.name, req.version, (name) => `Cannot create node with invalid name '${name}'`);
  }
  if (body.owner) throw new Invalid('Cannot create a node as a project scoped admin with an owner other than your own project.');
  if (body.chassis_uuid) body.chassis_uuid = await requireChassis(ctx, body.chassis_uuid as string);
  if (body.parent_node) body.parent_node = await resolveParentNode(req, ctx, body.parent_node as string);
  const driver = body.driver as string;
  await checkConductorFor(ctx, driver, group);

  const data: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) if (value !== null && value !== undefined) data[field] = value;
  delete data.owner;
  data.uuid = uuid;
  data.provision_state = atLeast(req.version, 11) ? ENROLL : AVAILABLE;
  checkAndUpdateInterfaces(data);
  checkPropertyValues(uuid, data.properties);
  data.conductor_group = formatConductorGroup(group);
  data.created_at = new Date().toISOString();
  const node = await ctx.nodes.create(new Node(data));
  ctx.log.info('Node created', { node: node.uuid, name: node.name, driver });
  return json(201, await showNode(req, ctx, node), { Location: `${req.baseUrl}/v1/nodes/${node.uuid}` });
}

/** Ironic's DELETE_ALLOWED_STATES plus available (its `[conductor]allow_deleting_available_nodes`, on by default). */
const DELETABLE_STATES = [...DELETE_ALLOWED_STATES, AVAILABLE];

export async function deleteNode(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  rejectUnexpected(collectArgs(req), []);
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
