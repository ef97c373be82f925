/**
 * `/v1/ports`: list, detail, show, create, delete (Ironic 21.4's PortsController and the
 * conductor's create_port / destroy_port), also nested under `/v1/nodes/{node}/ports` and
 * `/v1/portgroups/{portgroup}/ports` (1.24), where only lists are served. Update is in
 * port-patch.ts.
 */
import {
  Conflict,
  Invalid,
  InvalidParameterValue,
  InvalidState,
  NodeNotFound,
  NotAcceptable,
  OperationNotPermitted,
  PortgroupNotFound,
  withStatus,
} from '#common/errors';
import { httpErrors } from '#common/errors';
import { isOsloUuidLike } from '#common/ids';
import { sqlLike } from '#db/node-filters';
import type { PortFilter } from '#db/ports';
import type { Node } from '#objects/node';
import type { Port } from '#objects/port';
import type { Portgroup } from '#objects/portgroup';
import { argUuid, argUuidOrName } from '../args';
import { parseBody } from '../body';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json, noContent } from '../http';
import { checkNodeIdent, findNode, getRpcNode } from '../lookup';
import { atLeast } from '../microversion';
import { checkListParent, checkPortgroupPath, findPort, findPortgroup, nodeOfBody } from '../port-lookup';
import { checkAllowSpecifyFields, checkInvalidSortKey, collectionNext, readPaging, listVariants, returnFields } from '../resource-list';
import { nodeFiltersOf, nodeUuidsWhere } from '../port-filters';
import { route } from '../route';
import { PORT_NAME_VERSION, PORT_VERSIONS, allowOvnVtep, argMac, hasOvnVtep } from '../schemas/port';
import { PORT_LIST_FIELDS, checkPortFieldVersions, portView } from '../views/port';
import { checkNewPort, listPortPage, newPort, portSort, validatePort } from './port-common';
import { checkNodeUnlocked, rejectArgs } from './resource-common';
import { Arg, NO_QUERY, arg, defineQuery } from '../request';

interface Parents {
  readonly node?: string;
  readonly portgroup?: string;
}

/** The list arguments, validated in the order of Ironic's signature. */
const LIST_ARGS = {
  node: Arg.of(argUuidOrName),
  node_uuid: arg.uuidAsGiven(),
  address: Arg.of(argMac),
  marker: arg.uuidAsGiven(),
  limit: arg.integer(),
  sort_key: arg.string(),
  sort_dir: arg.string(),
  fields: arg.stringList(),
  portgroup: Arg.of(argUuidOrName),
  detail: arg.boolean(),
  shard: arg.stringList(),
  conductor_groups: arg.stringList(),
  description_contains: arg.string(),
};

/** `/v1/ports/detail` takes no `fields` or `detail`; Ironic master's list arguments (1.97, 1.99) are unknown below 1.88. */
const LIST_QUERIES = listVariants(LIST_ARGS, ['conductor_groups', 'description_contains'], PORT_NAME_VERSION);
/** Show: the port's ident (a UUID, from 1.88 also a name) is checked with `fields`, before the lookup. */
const ShowQueries = {
  before88: defineQuery({ port_uuid: arg.uuidAsGiven(), fields: arg.stringList() }, { path: ['port_uuid'] }),
  since88: defineQuery({ port_ident: Arg.of(argUuidOrName), fields: arg.stringList() }, { path: ['port_ident'] }),
};

/** Nested paths: the node ident passes webob's check; below 1.24 a portgroup's ports do not exist. */
function checkParentPath(req: ApiRequest, parents: Parents): void {
  if (parents.node !== undefined) checkNodeIdent(parents.node);
  if (parents.portgroup !== undefined) {
    checkPortgroupPath(req, parents.portgroup);
    if (!atLeast(req.version, 24)) throw httpErrors.notFound();
  }
}

function listPorts(detailPath: boolean) {
  return async (req: ApiRequest, ctx: ApiContext, parents: Parents): Promise<ApiResponse> => {
    checkParentPath(req, parents);
    const v = LIST_QUERIES.read(req, detailPath);
    await checkListParent(ctx, parents.node, parents.portgroup);
    let node = parents.node ?? v.node;
    const portgroup = parents.portgroup ?? v.portgroup;
    const sortKey = v.sort_key ?? 'id';
    const fieldsArg = v.fields;
    const detail = v.detail;
    if (!detailPath) {
      checkAllowSpecifyFields(req, fieldsArg);
      checkPortFieldVersions(fieldsArg, req.version);
    }
    checkPortFieldVersions([sortKey], req.version);
    if (portgroup && !atLeast(req.version, 24)) throw new NotAcceptable('Request not acceptable.');
    const shard = v.shard;
    if (shard !== undefined && !atLeast(req.version, 82)) {
      throw new NotAcceptable('Request not acceptable. The minimal required API version should be 1.82');
    }
    const groups = v.conductor_groups;
    if (groups !== undefined && !atLeast(req.version, PORT_VERSIONS.conductorGroups)) {
      throw new NotAcceptable(`Request not acceptable. The minimal required API version should be 1.${PORT_VERSIONS.conductorGroups}`);
    }
    // Ironic master takes description_contains at every version; it names a field of 1.97.
    const described = v.description_contains;
    if (described !== undefined && !atLeast(req.version, PORT_VERSIONS.description)) throw new NotAcceptable('Request not acceptable.');
    const fields = detailPath ? undefined : returnFields(req, fieldsArg, detail, PORT_LIST_FIELDS);
    const nodeUuidArg = v.node_uuid;
    if (!nodeUuidArg && node && !atLeast(req.version, 5) && !isOsloUuidLike(node)) throw new NotAcceptable('Request not acceptable.');
    if (detailPath && req.path.endsWith('/')) throw httpErrors.notFound();
    node = nodeUuidArg || node;

    const paging = readPaging(ctx, v.limit, sortKey, v.sort_dir ?? 'asc');
    const marker = v.marker;
    if (marker) await ctx.stores.ports.get(marker);
    const sort = portSort(req.version);
    checkInvalidSortKey(sortKey, sort);
    // description LIKE '%…%' as Ironic's database applies it; a port without a description never matches.
    const page = (filter: PortFilter, from: string | undefined, keep?: (p: Port) => boolean) =>
      described === undefined
        ? listPortPage(ctx, filter, paging, from, keep, sort)
        : listPortPage(ctx, filter, paging, from, (p) => sqlLike(p.description, described) && (keep === undefined || keep(p)), sort);
    if ([node, portgroup, shard].filter((f) => (Array.isArray(f) ? f.length > 0 : Boolean(f))).length > 1) {
      throw new OperationNotPermitted();
    }
    if (groups !== undefined && groups.length > 0 && (node || portgroup || v.address !== undefined)) {
      throw new Invalid('Filtering by conductor_groups cannot be combined with node_ident, portgroup_ident, or node address filters.');
    }
    let ports: Port[];
    if (portgroup) {
      const pg = await findPortgroup(req, ctx, portgroup);
      ports = await page({ portgroupUuid: pg.uuid }, marker);
    } else if (node) {
      const found = await findNode(req, ctx, node);
      ports = await page({ nodeUuid: found.uuid }, marker);
    } else if (v.address !== undefined) {
      // Ironic looks a port up by address alone: the description filter does not apply.
      ports = await listPortPage(ctx, { address: v.address }, paging, undefined, undefined, sort);
    } else if ((shard !== undefined && shard.length > 0) || (groups !== undefined && groups.length > 0)) {
      // A shard list wins over conductor groups, as in Ironic (it never looks at the groups then).
      const nodes = await nodeUuidsWhere(ctx, nodeFiltersOf(shard, groups));
      ports = await page({}, marker, (p) => nodes.has(p.node_uuid));
    } else {
      ports = await page({}, marker);
    }
    const body: Record<string, unknown> = {
      ports: ports.map((p) => portView(p, { baseUrl: req.baseUrl, version: req.version, fields })),
    };
    const next = collectionNext(req, detailPath ? 'ports/detail' : 'ports', ports, paging, detail, fields);
    if (next !== undefined) body.next = next;
    return json(200, body);
  };
}

/** Show, update and delete refuse a nested path (after checking the port's UUID). */
function refuseNested(req: ApiRequest, parents: Parents, port: string): never {
  checkParentPath(req, parents);
  argUuid('port_uuid', port);
  throw new OperationNotPermitted();
}

async function getPort(req: ApiRequest, ctx: ApiContext, params: { port: string }): Promise<ApiResponse> {
  const show = atLeast(req.version, PORT_NAME_VERSION) ? ShowQueries.since88 : ShowQueries.before88;
  const { fields } = show.read(req, { port_uuid: params.port, port_ident: params.port });
  const port = await findPort(req, ctx, params.port);
  checkAllowSpecifyFields(req, fields);
  checkPortFieldVersions(fields, req.version);
  return json(200, portView(port, { baseUrl: req.baseUrl, version: req.version, fields }));
}

/** Fields a create request sets, as `_check_allowed_port_fields` sees a body. */
function checkBodyFieldVersions(req: ApiRequest, body: Record<string, unknown>): void {
  checkPortFieldVersions(Object.keys(body), req.version);
  const link = body.local_link_connection;
  if (link !== null && typeof link === 'object' && 'network_type' in link && !atLeast(req.version, 64)) {
    throw new NotAcceptable('Request not acceptable.');
  }
  checkOvnVtep(req, link);
}

/** OVN VTEP switches in a link are accepted from 1.90 and again refused from 1.105 (406). */
export function checkOvnVtep(req: ApiRequest, link: unknown): void {
  if (atLeast(req.version, PORT_NAME_VERSION) && hasOvnVtep(link) && !allowOvnVtep(req.version)) {
    throw new NotAcceptable('Request not acceptable.');
  }
}

/**
 * The node a new port belongs to: `node_uuid`, or from 1.94 `node_ident`, a UUID or name (Ironic's
 * get_rpc_node). Not found is a 400 naming what was asked for.
 */
async function nodeOfPort(req: ApiRequest, ctx: ApiContext, data: Record<string, unknown>): Promise<Node> {
  const ident = data.node_ident;
  if (typeof ident !== 'string') return nodeOfBody(ctx, data.node_uuid as string);
  if (!atLeast(req.version, PORT_VERSIONS.nodeIdent)) throw new NotAcceptable('Request not acceptable.');
  try {
    return await getRpcNode(req, ctx, ident);
  } catch (err) {
    if (err instanceof NodeNotFound) throw withStatus(new NodeNotFound(ident), 400);
    throw err;
  }
}

/** A port's physical network must match its portgroup's other members (conductor's validate_port_physnet). */
export async function checkPhysnet(ctx: ApiContext, port: Port, portgroup: Portgroup): Promise<void> {
  const members = await listPortPage(ctx, { portgroupUuid: portgroup.uuid }, { limit: 100000, sortKey: 'id', sortDir: 'asc' }, undefined);
  const physnets = new Set(members.filter((m) => m.uuid !== port.uuid).map((m) => m.physical_network ?? null));
  // An empty portgroup's own physical network (1.102) stands for its members'.
  if (physnets.size === 0 && portgroup.physical_network !== null) physnets.add(portgroup.physical_network);
  if (physnets.size === 0) return;
  const [pgPhysnet] = [...physnets];
  if ((port.physical_network ?? null) !== pgPhysnet) {
    throw new Conflict(
      `Port with physical network ${port.physical_network ?? 'None'} cannot become a member of port group ${portgroup.uuid} which has ports in physical network ${pgPhysnet ?? 'None'}.`,
    );
  }
}

async function createPort(req: ApiRequest, ctx: ApiContext, parents: Parents): Promise<ApiResponse> {
  if (parents.node !== undefined || parents.portgroup !== undefined) checkParentPath(req, parents);
  const body = parseBody(req) ?? {};
  rejectArgs(req, body);
  const data = validatePort('port', body, req.version);
  const node = await nodeOfPort(req, ctx, data);
  delete data.node_ident;
  data.node_uuid = node.uuid;
  if (parents.node !== undefined || parents.portgroup !== undefined) throw new OperationNotPermitted();
  checkBodyFieldVersions(req, data);
  let portgroup: Portgroup | undefined;
  if (data.portgroup_uuid) {
    try {
      portgroup = await ctx.stores.portgroups.get(data.portgroup_uuid as string);
    } catch (err) {
      if (err instanceof PortgroupNotFound) throw withStatus(err, 400);
      throw err;
    }
    if (portgroup.node_uuid !== node.uuid)
      throw new InvalidParameterValue('Port can not be added to a portgroup belonging to a different node.');
  }
  checkNewPort(data, req.version);
  if (portgroup && data.pxe_enabled && !portgroup.standalone_ports_supported) {
    throw new Conflict(
      `Port group ${portgroup.uuid} doesn't support standalone ports. This port cannot be created as a member of that portgroup as the port's 'pxe_enabled' field was set to True.`,
    );
  }
  const port = newPort(data, node.uuid, portgroup?.uuid);
  checkNodeUnlocked(node);
  if (portgroup) await checkPhysnet(ctx, port, portgroup);
  const created = await ctx.stores.ports.create(port);
  ctx.log.info('Port created', { port: created.uuid, node: node.uuid });
  return json(201, portView(created, { baseUrl: req.baseUrl, version: req.version }), {
    Location: `${req.baseUrl}/v1/ports/${created.uuid}`,
  });
}

/** The VIF a port is bound to and for what (the conductor's get_attached_vif). */
export function attachedVif(port: Port): [string, string] | undefined {
  const info = port.internal_info ?? {};
  const uses: [string, string][] = [
    ['tenant_vif_port_id', 'tenant'],
    ['cleaning_vif_port_id', 'cleaning'],
    ['provisioning_vif_port_id', 'provisioning'],
    ['rescuing_vif_port_id', 'rescuing'],
    ['inspection_vif_port_id', 'inspecting'],
  ];
  for (const [key, use] of uses) if (info[key]) return [String(info[key]), use];
  return undefined;
}

async function deletePort(req: ApiRequest, ctx: ApiContext, params: { port: string }): Promise<ApiResponse> {
  NO_QUERY.read(req);
  const uuid = argUuid('port_uuid', params.port) as string;
  const port = await ctx.stores.ports.get(uuid);
  const node = await ctx.nodes.get(port.node_uuid);
  checkNodeUnlocked(node);
  const vif = attachedVif(port);
  if (vif && !node.maintenance) {
    throw new InvalidState(`Cannot delete the port ${port.uuid} as it is bound to VIF ${vif[0]} for ${vif[1]} use.`);
  }
  await ctx.stores.ports.destroy(port);
  ctx.log.info('Port deleted', { port: port.uuid, node: node.uuid });
  return noContent();
}

const nodeParent =
  (h: (req: ApiRequest, ctx: ApiContext, parents: Parents) => Promise<ApiResponse>) =>
  (req: ApiRequest, ctx: ApiContext, p: { node: string }) =>
    h(req, ctx, { node: p.node });
const pgParent =
  (h: (req: ApiRequest, ctx: ApiContext, parents: Parents) => Promise<ApiResponse>) =>
  (req: ApiRequest, ctx: ApiContext, p: { pg: string }) =>
    h(req, ctx, { portgroup: p.pg });

export const PORT_ROUTES = [
  route('GET', '/v1/ports', (req: ApiRequest, ctx: ApiContext) => listPorts(false)(req, ctx, {})),
  route('POST', '/v1/ports', (req: ApiRequest, ctx: ApiContext) => createPort(req, ctx, {})),
  route('GET', '/v1/ports/detail', (req: ApiRequest, ctx: ApiContext) => listPorts(true)(req, ctx, {})),
  route('GET', '/v1/ports/:port', getPort),
  route('DELETE', '/v1/ports/:port', deletePort),
  route('GET', '/v1/nodes/:node/ports', nodeParent(listPorts(false))),
  route('GET', '/v1/nodes/:node/ports/detail', nodeParent(listPorts(true))),
  route('POST', '/v1/nodes/:node/ports', nodeParent(createPort)),
  ...['GET', 'DELETE'].map((method) =>
    route(method, '/v1/nodes/:node/ports/:port', async (req: ApiRequest, _ctx: ApiContext, p: { node: string; port: string }) =>
      refuseNested(req, { node: p.node }, p.port),
    ),
  ),
  route('GET', '/v1/portgroups/:pg/ports', pgParent(listPorts(false))),
  route('GET', '/v1/portgroups/:pg/ports/detail', pgParent(listPorts(true))),
];
