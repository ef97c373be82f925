/**
 * `/v1/portgroups` (1.23): list, detail, show, create, update, delete (Ironic 21.4's
 * PortgroupsController and the conductor's update_portgroup / destroy_portgroup), also nested
 * under `/v1/nodes/{node}/portgroups` (1.24), where only lists are served.
 */
import {
  ClientSideError,
  Invalid,
  InvalidState,
  NotAcceptable,
  NotFound,
  OperationNotPermitted,
  PortgroupNotEmpty,
  httpErrors,
} from '#common/errors';
import { newUuid } from '#common/ids';
import * as st from '#common/states';
import { Portgroup } from '#objects/portgroup';
import type { Dict } from '#objects/fields';
import { argUuid, argUuidOrName } from '../args';
import { pyStr } from '#common/pyrepr';
import { parseBody } from '../body';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json, noContent } from '../http';
import { checkNodeIdent, findNode } from '../lookup';
import { type ApiVersion, atLeast } from '../microversion';
import { isValidLogicalName } from '../names';
import { type PatchOperation, applyPatch } from '../patch';
import { checkListParent, checkPortgroupPath, findPortgroup, nodeByIdentity, nodeOfBody } from '../port-lookup';
import { type SortSpec, checkInvalidSortKey, collectionNext, columns, listVariants, readPaging, returnFields } from '../resource-list';
import { route } from '../route';
import { PATCH_SCHEMA } from '../schemas/node';
import { PORT_NAME_VERSION, PORT_VERSIONS, argMac, portgroupSchema } from '../schemas/port';
import { listPortgroupPage, nodeFiltersOf, nodeUuidsWhere } from '../port-filters';
import { parseBoolean, validateSchema } from '../validation';
import { PORTGROUP_LIST_FIELDS, checkPortgroupFieldVersions, portgroupView } from '../views/portgroup';
import { applyPatchedFields, checkNodeUnlocked, checkPatchPaths, isPathUpdated, patchValues, rejectArgs } from './resource-common';
import { Arg, NO_QUERY, arg, defineQuery } from '../request';

const SORT: SortSpec = {
  invalid: ['extra', 'internal_info', 'properties'],
  columns: columns(['uuid', 'name', 'address', 'standalone_ports_supported', 'mode', 'created_at', 'updated_at'], {
    node_id: 'node_uuid',
  }),
};

const SORT_1_88: SortSpec = { ...SORT, columns: { ...SORT.columns, ...columns(['physical_network', 'category', 'dynamic_portgroup']) } };

const PATCH_ALLOWED_FIELDS = ['address', 'extra', 'mode', 'name', 'node_uuid', 'properties', 'standalone_ports_supported'];

/** From 1.88 (Ironic master): physical_network and category too; dynamic_portgroup is the conductor's. */
const PATCH_ALLOWED_FIELDS_MASTER = [...PATCH_ALLOWED_FIELDS, 'physical_network', 'category'];

/** 406 for a portgroup field set (or patched) below its version, from 1.88 on (see PORT_VERSIONS). */
function checkSetFields(req: ApiRequest, fields: Iterable<string>): void {
  if (atLeast(req.version, PORT_NAME_VERSION)) checkPortgroupFieldVersions(fields, req.version);
}

/** The mode a portgroup gets when created without one (Ironic's `[DEFAULT]default_portgroup_mode`). */
export const DEFAULT_PORTGROUP_MODE = 'active-backup';

/** States in which a portgroup may move to another node without maintenance. */
const MOVE_STATES = [st.ENROLL, st.INSPECTING, st.INSPECTWAIT, st.MANAGEABLE];

const notFound = () => new NotFound('Resource could not be found.');

/** The list arguments, in the order of Ironic's signature. */
const LIST_ARGS = {
  node: Arg.of(argUuidOrName),
  address: Arg.of(argMac),
  marker: arg.uuidAsGiven(),
  limit: arg.integer(),
  sort_key: arg.string(),
  sort_dir: arg.string(),
  fields: arg.stringList(),
  detail: arg.boolean(),
  shard: arg.stringList(),
  conductor_groups: arg.stringList(),
};

/** `/v1/portgroups/detail` takes no `fields` or `detail`; shard (1.106) and conductor_groups (1.99) are unknown below 1.88. */
const LIST_QUERIES = listVariants(LIST_ARGS, ['shard', 'conductor_groups'], PORT_NAME_VERSION);
const ShowQuery = defineQuery({ fields: arg.stringList() });

/** PORTGROUP_VALIDATOR: the schema, then address, node_uuid, standalone_ports_supported and uuid in place. */
function validatePortgroup(name: string, body: unknown, version: ApiVersion): Record<string, unknown> {
  validateSchema(name, portgroupSchema(version), body);
  const data = body as Record<string, unknown>;
  if ('address' in data) data.address = argMac('address', data.address) ?? null;
  if ('node_uuid' in data) data.node_uuid = argUuid('node_uuid', data.node_uuid);
  if ('standalone_ports_supported' in data) {
    data.standalone_ports_supported = parseBoolean('standalone_ports_supported', data.standalone_ports_supported);
  }
  if ('uuid' in data) data.uuid = argUuid('uuid', data.uuid) ?? null;
  return data;
}

function listPortgroups(detailPath: boolean, nested: boolean) {
  return async (req: ApiRequest, ctx: ApiContext, params: { node?: string }): Promise<ApiResponse> => {
    if (nested) {
      checkNodeIdent(params.node as string);
      if (!atLeast(req.version, 24)) throw httpErrors.notFound();
    }
    const query = LIST_QUERIES.read(req, detailPath);
    const { address, marker, limit, sort_key: sortKey = 'id', sort_dir: sortDir = 'asc', fields: fieldsArg, detail } = query;
    const { shard, conductor_groups: groups } = query;
    let node = query.node;
    if (!atLeast(req.version, 23)) throw notFound();
    for (const [value, minor] of [
      [shard, PORT_VERSIONS.portgroupShard],
      [groups, PORT_VERSIONS.conductorGroups],
    ] as const) {
      if (value !== undefined && !atLeast(req.version, minor)) {
        throw new NotAcceptable(`Request not acceptable. The minimal required API version should be 1.${minor}`);
      }
    }
    if (nested) node = params.node;
    await checkListParent(ctx, nested ? params.node : undefined, undefined);
    checkPortgroupFieldVersions(fieldsArg, req.version);
    checkPortgroupFieldVersions([sortKey], req.version);
    let fields: string[] | undefined;
    if (detailPath) {
      if (req.path.endsWith('/')) throw new ClientSideError('Resource could not be found.', 404);
    } else {
      fields = returnFields(req, fieldsArg, detail, PORTGROUP_LIST_FIELDS);
    }
    const paging = readPaging(ctx, limit, sortKey, sortDir);
    if (marker !== undefined) await ctx.stores.portgroups.get(marker);
    const sort = atLeast(req.version, PORT_NAME_VERSION) ? SORT_1_88 : SORT;
    checkInvalidSortKey(sortKey, sort);
    if (
      atLeast(req.version, PORT_NAME_VERSION) &&
      [node, address, shard, groups].filter((f) => f !== undefined && f.length > 0).length > 1
    ) {
      throw new Invalid('Filtering by node, address, or shard simultaneously is not supported.');
    }
    const filter: { nodeUuid?: string; address?: string } = {};
    let keep: ((pg: Portgroup) => boolean) | undefined;
    if (node) filter.nodeUuid = (await findNode(req, ctx, node)).uuid;
    else if (address !== undefined) filter.address = address;
    else if ((shard?.length ?? 0) > 0 || (groups?.length ?? 0) > 0) {
      const nodes = await nodeUuidsWhere(ctx, nodeFiltersOf(shard, groups));
      keep = (pg) => nodes.has(pg.node_uuid);
    }
    const page = await listPortgroupPage(ctx, filter, paging, marker, sort, keep);
    const body: Record<string, unknown> = {
      portgroups: page.items.map((pg) => portgroupView(pg, { baseUrl: req.baseUrl, version: req.version, fields })),
    };
    const next = collectionNext(req, detailPath ? 'portgroups/detail' : 'portgroups', page.items, paging, detail, fields);
    if (next !== undefined) body.next = next;
    return json(200, body);
  };
}

async function getPortgroup(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  checkPortgroupPath(req, params.ident);
  const { fields } = ShowQuery.read(req);
  // Ironic looks the portgroup up for its policy check without the ".json" fallback first.
  const pg = await findPortgroup(req, ctx, params.ident);
  checkPortgroupFieldVersions(fields, req.version);
  return json(200, portgroupView(pg, { baseUrl: req.baseUrl, version: req.version, fields }));
}

async function createPortgroup(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  const body = parseBody(req) ?? {};
  rejectArgs(req, body);
  const data = validatePortgroup('portgroup', body, req.version);
  if (!atLeast(req.version, 23)) throw notFound();
  const node = await nodeOfBody(ctx, data.node_uuid as string);
  checkSetFields(req, Object.keys(data));
  if (!atLeast(req.version, 26) && (truthy(data.mode) || truthy(data.properties))) throw new NotAcceptable('Request not acceptable.');
  if (data.name && !isValidLogicalName(data.name, req.version)) {
    throw new ClientSideError(`Cannot create portgroup with invalid name '${pyStr(data.name)}'`);
  }
  const values: Dict = { uuid: (data.uuid as string | null | undefined) || newUuid(), node_uuid: node.uuid };
  for (const field of ['name', 'address', 'extra', 'standalone_ports_supported', 'properties', 'physical_network', 'category']) {
    if (data[field] !== undefined && data[field] !== null) values[field] = data[field];
  }
  values.mode = (data.mode as string | null | undefined) || DEFAULT_PORTGROUP_MODE;
  values.created_at = new Date().toISOString();
  const pg = await ctx.stores.portgroups.create(new Portgroup(values));
  ctx.log.info('Portgroup created', { portgroup: pg.uuid, node: node.uuid });
  return json(201, portgroupView(pg, { baseUrl: req.baseUrl, version: req.version }), {
    Location: `${req.baseUrl}/v1/portgroups/${pg.uuid}`,
  });
}

function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === '' || value === false) return false;
  return typeof value !== 'object' || Object.keys(value).length > 0;
}

async function patchPortgroup(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  checkPortgroupPath(req, params.ident);
  const parsed = parseBody(req);
  rejectArgs(req, parsed);
  validateSchema('patch', PATCH_SCHEMA, parsed ?? {});
  const patch = parsed as PatchOperation[];
  const pg = await findPortgroup(req, ctx, params.ident);
  if (!atLeast(req.version, 26) && (isPathUpdated(patch, '/mode') || isPathUpdated(patch, '/properties'))) {
    throw new NotAcceptable('Request not acceptable.');
  }
  const master = atLeast(req.version, PORT_NAME_VERSION);
  checkPatchPaths(patch, master ? PATCH_ALLOWED_FIELDS_MASTER : PATCH_ALLOWED_FIELDS);
  checkSetFields(
    req,
    ['physical_network', 'category'].filter((f) => isPathUpdated(patch, `/${f}`)),
  );
  for (const name of patchValues(patch, '/name')) {
    if (name && !isValidLogicalName(name, req.version)) {
      throw new ClientSideError(`Portgroup ${params.ident}: Cannot change name to invalid name '${pyStr(name)}'`);
    }
  }
  const patched = applyPatch(pg.toData() as Record<string, unknown>, patch);
  if (!('mode' in patched)) throw new ClientSideError("'mode' is a mandatory attribute and can not be removed");
  let node = await ctx.nodes.get(pg.node_uuid);
  if (patched.node_uuid !== pg.node_uuid) node = await nodeByIdentity(ctx, String(patched.node_uuid));
  const schema = portgroupSchema(req.version);
  for (const key of Object.keys(patched)) if (!(key in (schema.properties as object))) delete patched[key];
  validatePortgroup('patch', patched, req.version);
  const changed = applyPatchedFields(pg, patched, [
    'name',
    'node_uuid',
    'address',
    'extra',
    'standalone_ports_supported',
    'mode',
    'properties',
    ...(master ? ['physical_network', 'category'] : []),
  ]);
  if (node.provision_state === st.INSPECTING && atLeast(req.version, 39)) {
    throw new ClientSideError(`Cannot update portgroup "${pg.uuid}" on node "${node.uuid}" while it is in state "${st.INSPECTING}".`, 409);
  }
  checkNodeUnlocked(node);
  if (changed.includes('node_uuid')) {
    if (!MOVE_STATES.includes(node.provision_state) && !node.maintenance) {
      throw new InvalidState(
        `Portgroup ${pg.uuid} can not be associated to node ${node.uuid} unless the node is in a ${MOVE_STATES.join(', ')} state or in maintenance mode.`,
      );
    }
    const members = await ctx.stores.ports.list({ portgroupUuid: pg.uuid }, { limit: 1 });
    if (members.items.length > 0) {
      const err = new PortgroupNotEmpty(pg.uuid);
      err.message = `Portgroup ${pg.uuid} can not be associated with node ${node.uuid} because there are ports associated with this portgroup.`;
      throw err;
    }
  }
  const saved = changed.length > 0 ? await ctx.stores.portgroups.save(pg) : pg;
  if (changed.includes('physical_network')) await followPhysnet(ctx, saved);
  return json(200, portgroupView(saved, { baseUrl: req.baseUrl, version: req.version }));
}

/** A portgroup's members take its new physical network (Ironic's update_physical_network). */
async function followPhysnet(ctx: ApiContext, pg: Portgroup): Promise<void> {
  let marker: string | undefined;
  for (;;) {
    const page = await ctx.stores.ports.list({ portgroupUuid: pg.uuid }, { limit: 1000, ...(marker ? { marker } : {}) });
    for (const port of page.items) {
      if (port.physical_network === pg.physical_network) continue;
      port.physical_network = pg.physical_network;
      await ctx.stores.ports.save(port);
    }
    if (!page.more || page.items.length === 0) return;
    marker = page.items[page.items.length - 1]?.uuid;
  }
}

async function deletePortgroup(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  checkPortgroupPath(req, params.ident);
  NO_QUERY.read(req);
  const pg = await findPortgroup(req, ctx, params.ident);
  checkNodeUnlocked(await ctx.nodes.get(pg.node_uuid));
  await ctx.stores.portgroups.destroy(pg);
  ctx.log.info('Portgroup deleted', { portgroup: pg.uuid });
  return noContent();
}

export const PORTGROUP_ROUTES = [
  route('GET', '/v1/portgroups', listPortgroups(false, false)),
  route('POST', '/v1/portgroups', createPortgroup),
  route('GET', '/v1/portgroups/detail', listPortgroups(true, false)),
  route('GET', '/v1/portgroups/:ident', getPortgroup),
  route('PATCH', '/v1/portgroups/:ident', patchPortgroup),
  route('DELETE', '/v1/portgroups/:ident', deletePortgroup),
  route('GET', '/v1/nodes/:node/portgroups', listPortgroups(false, true)),
  route('GET', '/v1/nodes/:node/portgroups/detail', listPortgroups(true, true)),
  ...['GET', 'PATCH', 'DELETE'].map((method) => route(method, '/v1/nodes/:node/portgroups/:ident', refuseNested)),
];

/** A portgroup under a node can only be listed (after the portgroup is found, as Ironic's policy check does). */
async function refuseNested(req: ApiRequest, ctx: ApiContext, params: { node: string; ident: string }): Promise<ApiResponse> {
  checkNodeIdent(params.node);
  if (!atLeast(req.version, 24)) throw httpErrors.notFound();
  checkPortgroupPath(req, params.ident);
  await findPortgroup(req, ctx, params.ident);
  throw new OperationNotPermitted();
}
