/** `/v1/nodes`: list, detail, show, create, delete (Ironic's NodesController). */
import { ClientSideError, InvalidParameterValue, InvalidState, NoValidHost, NodeLocked, NotAcceptable } from '#common/errors';
import { canonicalUuid, isUuidLike, newUuid } from '#common/ids';
import { ALL_STATES, AVAILABLE, DELETE_ALLOWED_STATES, ENROLL } from '#common/states';
import { getHardwareType, defaultInterfaces } from '#drivers/registry';
import type { NodeFilter } from '#db/nodes';
import { NODE_INTERFACES, Node } from '#objects/node';
import { parseBody } from '../body';
import { route } from '../route';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json, noContent } from '../http';
import { atLeast } from '../microversion';
import { findNode, isLocked } from '../lookup';
import { checkNodeName } from '../names';
import { boolParam, listParams, nextLink, pyBool, stringParam, uuidParam } from '../params';
import { NODE_SCHEMA } from '../schemas/node';
import { parseBoolean, validateSchema } from '../validation';
import { NODE_LIST_FIELDS, checkFields, fieldAllowed, nodeView } from '../views/node';

/** Fields Ironic refuses to sort by (JSON fields). */
const UNSORTABLE = new Set([
  'driver_info',
  'driver_internal_info',
  'extra',
  'instance_info',
  'properties',
  'network_data',
  'raid_config',
  'target_raid_config',
  'clean_step',
  'deploy_step',
  'service_step',
  'traits',
]);
const SORTABLE = new Set([
  'id',
  'uuid',
  'name',
  'created_at',
  'updated_at',
  'provision_state',
  'power_state',
  'driver',
  'instance_uuid',
  'maintenance',
  'provision_updated_at',
  'resource_class',
  'conductor_group',
  'owner',
  'lessee',
  'shard',
  'fault',
  'retired',
  'target_provision_state',
  'target_power_state',
  'reservation',
  'description',
  'chassis_uuid',
  'inspection_started_at',
  'inspection_finished_at',
  'automated_clean',
  'protected',
  'console_enabled',
  'last_error',
  'boot_mode',
  'secure_boot',
  'parent_node',
  'maintenance_reason',
  'retired_reason',
  'protected_reason',
  ...NODE_INTERFACES.map((i) => `${i}_interface`),
]);

function sortable(key: string): boolean | 'json' {
  if (UNSORTABLE.has(key)) return 'json';
  return SORTABLE.has(key);
}

function conductorName(ctx: ApiContext): string {
  return ctx.config.conductorFunction
    .split(':')
    .slice(-2)
    .join(':')
    .replace(/^function:/, '');
}

function filtersFrom(req: ApiRequest): NodeFilter {
  const provisionState = stringParam(req, 'provision_state');
  if (provisionState !== undefined && !(ALL_STATES as readonly string[]).includes(provisionState)) {
    throw new ClientSideError(`Provision state "${provisionState}" is not valid`);
  }
  const shard = stringParam(req, 'shard');
  const filter: Record<string, unknown> = {
    provisionState,
    instanceUuid: uuidParam(req, 'instance_uuid'),
    chassisUuid: uuidParam(req, 'chassis_uuid'),
    associated: boolParam(req, 'associated'),
    maintenance: boolParam(req, 'maintenance'),
    retired: boolParam(req, 'retired'),
    driver: stringParam(req, 'driver'),
    resourceClass: stringParam(req, 'resource_class'),
    fault: stringParam(req, 'fault'),
    conductorGroup: stringParam(req, 'conductor_group'),
    owner: stringParam(req, 'owner'),
    lessee: stringParam(req, 'lessee'),
    descriptionContains: stringParam(req, 'description_contains'),
    shards:
      shard === undefined
        ? undefined
        : shard
            .split(',')
            .map((s) => s.trim())
            .filter((s) => s !== ''),
    sharded: boolParam(req, 'sharded'),
  };
  const versioned: [string, unknown, number][] = [
    ['provision_state', filter.provisionState, 9],
    ['driver', filter.driver, 16],
    ['resource_class', filter.resourceClass, 21],
    ['fault', filter.fault, 42],
    ['conductor_group', filter.conductorGroup, 46],
    ['owner', filter.owner, 50],
    ['description_contains', filter.descriptionContains, 51],
    ['retired', filter.retired, 61],
    ['lessee', filter.lessee, 65],
    ['shard', filter.shards, 82],
    ['sharded', filter.sharded, 82],
  ];
  for (const [, value, minor] of versioned) {
    if (value !== undefined && !atLeast(req.version, minor)) throw new NotAcceptable('Request not acceptable.');
  }
  for (const key of Object.keys(filter)) if (filter[key] === undefined) delete filter[key];
  return filter as NodeFilter;
}

async function listNodes(req: ApiRequest, ctx: ApiContext, detailPath: boolean): Promise<ApiResponse> {
  const params = listParams(req, ctx.config.maxLimit, sortable);
  if (detailPath && req.query.fields !== undefined) throw new ClientSideError('Unexpected arguments: fields');
  if (detailPath && req.query.detail !== undefined) throw new ClientSideError('Unexpected arguments: detail');
  checkFields(params.fields, req.version);
  const filter = filtersFrom(req);
  const page = await ctx.nodes.list(filter, {
    limit: params.limit,
    marker: params.marker,
    sortKey: params.sortKey === 'id' ? undefined : params.sortKey,
    sortDir: params.sortDir,
  });
  const detail = detailPath || params.detail === true;
  const fields = detail ? undefined : (params.fields ?? [...NODE_LIST_FIELDS]);
  const conductor = conductorName(ctx);
  const nodes = page.nodes.map((node) => nodeView(node, { baseUrl: req.baseUrl, version: req.version, fields, conductor }));
  const body: Record<string, unknown> = { nodes };
  const next =
    filter.instanceUuid === undefined
      ? nextLink(req, detailPath ? 'nodes/detail' : 'nodes', page.nodes, params.limit, [
          ['sort_key', params.sortKey],
          ['sort_dir', params.sortDir],
          ['associated', filter.associated ? pyBool(filter.associated) : undefined],
          ['maintenance', filter.maintenance ? pyBool(filter.maintenance) : undefined],
          ['retired', filter.retired ? pyBool(filter.retired) : undefined],
          ['detail', pyBool(params.detail)],
          ['fields', params.fields?.join(',')],
        ])
      : undefined;
  if (next !== undefined) body.next = next;
  return json(200, body);
}

export const getNodes = (req: ApiRequest, ctx: ApiContext) => listNodes(req, ctx, false);
export const getNodesDetail = (req: ApiRequest, ctx: ApiContext) => listNodes(req, ctx, true);

export async function getNode(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const fields = req.query.fields === undefined ? undefined : listParams(req, ctx.config.maxLimit, sortable).fields;
  checkFields(fields, req.version);
  const node = await findNode(req, ctx, params.ident);
  return json(200, nodeView(node, { baseUrl: req.baseUrl, version: req.version, fields, conductor: conductorName(ctx) }));
}

const BOOLEAN_FIELDS = ['automated_clean', 'console_enabled', 'maintenance', 'protected', 'retired'] as const;

export async function createNode(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  const body = (parseBody(req) ?? {}) as Record<string, unknown>;
  validateSchema('node', NODE_SCHEMA, body);
  for (const [field, value] of Object.entries(body)) {
    if (fieldAllowed(field, req.version)) continue;
    if (field === 'name' && value === null) continue;
    if (field === 'conductor_group' && value === '') continue;
    if (value !== null && value !== undefined) throw new NotAcceptable('Request not acceptable.');
  }
  for (const field of BOOLEAN_FIELDS) {
    if (body[field] !== undefined) body[field] = parseBoolean(field, body[field]);
  }
  if (body.secure_boot !== undefined) body.secure_boot = parseBoolean('secure_boot', body.secure_boot);
  for (const field of ['uuid', 'chassis_uuid', 'instance_uuid'] as const) {
    const value = body[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || !isUuidLike(value)) throw new InvalidParameterValue(`Expected UUID for ${field}: ${String(value)}`);
    body[field] = canonicalUuid(value);
  }
  if (typeof body.name === 'string') {
    checkNodeName(body.name, req.version, (name) => `Cannot create node with invalid name '${name}'`);
  }
  const driver = body.driver as string;
  const group = typeof body.conductor_group === 'string' ? body.conductor_group.toLowerCase() : '';
  try {
    getHardwareType(driver);
  } catch {
    throw new NoValidHost(
      `No valid host was found. Reason: No conductor service registered which supports driver ${driver} for conductor group "${group}".`,
    );
  }
  if (ctx.rpc.queueFor(group) === undefined) {
    throw new NoValidHost(
      `No valid host was found. Reason: No conductor service registered which supports driver ${driver} for conductor group "${group}".`,
    );
  }
  const given: Record<string, string | null> = {};
  for (const iface of NODE_INTERFACES) {
    const value = body[`${iface}_interface`];
    if (typeof value === 'string') given[iface] = value;
  }
  const interfaces = defaultInterfaces(driver, given);

  const data: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) if (value !== null && value !== undefined) data[field] = value;
  for (const iface of NODE_INTERFACES) data[`${iface}_interface`] = interfaces[iface];
  data.uuid = (body.uuid as string | undefined) ?? newUuid();
  data.conductor_group = group;
  data.provision_state = atLeast(req.version, 11) ? ENROLL : AVAILABLE;
  data.created_at = new Date().toISOString();
  const node = await ctx.nodes.create(new Node(data));
  ctx.log.info('Node created', { node: node.uuid, name: node.name, driver });
  const view = nodeView(node, { baseUrl: req.baseUrl, version: req.version, conductor: conductorName(ctx) });
  return json(201, view, { Location: `${req.baseUrl}/v1/nodes/${node.uuid}` });
}

export async function deleteNode(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const node = await findNode(req, ctx, params.ident);
  if (isLocked(node)) throw new NodeLocked(node.uuid, node.reservation as string);
  if (node.protected) {
    throw new InvalidState(`Node ${node.uuid} is protected and cannot be undeployed, rebuilt or deleted`);
  }
  if (node.instance_uuid !== null) {
    throw new InvalidState(`Node ${node.uuid} is associated with instance ${node.instance_uuid}.`);
  }
  if (!DELETE_ALLOWED_STATES.includes(node.provision_state) && !node.maintenance) {
    throw new InvalidState(
      `Can not delete node "${node.uuid}" while it is in provision state "${node.provision_state}". Valid provision states to start deletion are ${JSON.stringify(DELETE_ALLOWED_STATES).replace(/"/g, "'").replace(/,/g, ', ')}, or set the node into maintenance mode`,
    );
  }
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
