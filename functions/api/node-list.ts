/**
 * The node list (`GET /v1/nodes` and `/v1/nodes/detail`): arguments, their checks in the order
 * Ironic 21.4 makes them (argument types, then each filter's minimum version, then fields, limit,
 * sort and marker), the query, and the `next` link as Ironic builds it.
 */
import { InvalidParameterValue, NotAcceptable } from '#common/errors';
import type { NodeFilter } from '#db/nodes';
import type { Node } from '#objects/node';
import type { ApiContext } from './context';
import type { ApiRequest } from './http';
import { requireChassis } from './lookup';
import { atLeast } from './microversion';
import { arg, defineQuery, without } from './request';
import { checkFieldVersions } from './views/node';

/** Provision states Ironic 21.4's state machine knows (the `provision_state` filter accepts these). */
const FILTER_STATES = [
  'active',
  'adopt failed',
  'adopting',
  'available',
  'clean failed',
  'clean wait',
  'cleaning',
  'deleting',
  'deploy failed',
  'deploying',
  'enroll',
  'error',
  'inspect failed',
  'inspect wait',
  'inspecting',
  'manageable',
  'rescue',
  'rescue failed',
  'rescue wait',
  'rescuing',
  'unrescue failed',
  'unrescuing',
  'verifying',
  'wait call-back',
];

const VALID_FAULTS = ['power failure', 'clean failure', 'rescue abort failure', 'service failure'];

/** Sort keys Ironic refuses outright (JSON columns). */
const UNSORTABLE = [
  'properties',
  'driver_info',
  'extra',
  'instance_info',
  'driver_internal_info',
  'clean_step',
  'deploy_step',
  'raid_config',
  'target_raid_config',
  'traits',
  'network_data',
];

/**
 * Columns of Ironic 21.4's nodes table a list can be sorted by, mapped to the node field that
 * orders the same way here. Columns Ironless does not keep (conductor_affinity, version) sort as
 * all-equal, that is by creation.
 */
const SORT_COLUMNS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(
    [
      'uuid',
      'instance_uuid',
      'name',
      'power_state',
      'target_power_state',
      'provision_state',
      'target_provision_state',
      'provision_updated_at',
      'last_error',
      'driver',
      'resource_class',
      'reservation',
      'conductor_group',
      'maintenance',
      'maintenance_reason',
      'fault',
      'console_enabled',
      'inspection_finished_at',
      'inspection_started_at',
      'automated_clean',
      'protected',
      'protected_reason',
      'owner',
      'lessee',
      'description',
      'bios_interface',
      'boot_interface',
      'console_interface',
      'deploy_interface',
      'inspect_interface',
      'management_interface',
      'network_interface',
      'raid_interface',
      'rescue_interface',
      'retired',
      'retired_reason',
      'storage_interface',
      'power_interface',
      'vendor_interface',
      'boot_mode',
      'secure_boot',
      'shard',
      'parent_node',
      'firmware_interface',
      'disable_power_off',
      'instance_name',
      'health',
      'created_at',
      'updated_at',
    ].map((c) => [c, c]),
  ),
  chassis_id: 'chassis_uuid',
  allocation_id: 'allocation_uuid',
  conductor_affinity: '_unkept',
  version: '_unkept',
};

/** The filters' minimum versions, in the order Ironic checks them, with its 406 message. */
const FILTER_VERSIONS: readonly [name: string, minor: number][] = [
  ['driver', 16],
  ['resource_class', 21],
  ['fault', 42],
  ['conductor_group', 46],
  ['conductor', 49],
  ['owner', 50],
  ['lessee', 65],
  ['shard', 82],
  ['sharded', 82],
  ['include_children', 83],
  ['parent_node', 83],
];

/** Each argument of the list and its validator, in the order of Ironic's signature. */
const LIST_ARGS = {
  chassis_uuid: arg.uuidAsGiven(),
  instance_uuid: arg.uuidAsGiven(),
  associated: arg.boolean(),
  maintenance: arg.boolean(),
  retired: arg.boolean(),
  provision_state: arg.string(),
  marker: arg.uuidAsGiven(),
  limit: arg.integer(),
  sort_key: arg.string(),
  sort_dir: arg.string(),
  driver: arg.string(),
  fields: arg.stringList(),
  resource_class: arg.string(),
  fault: arg.string(),
  conductor_group: arg.string(),
  detail: arg.boolean(),
  conductor: arg.string(),
  owner: arg.string(),
  description_contains: arg.string(),
  lessee: arg.string(),
  project: arg.string(),
  shard: arg.stringList(),
  sharded: arg.boolean(),
  include_children: arg.boolean(),
  parent_node: arg.string(),
  instance_name: arg.string(),
};
/** `/v1/nodes` and `/v1/nodes/detail` (which takes no `fields` or `detail`), declared once. */
const LIST_QUERY = defineQuery(LIST_ARGS);
const DETAIL_QUERY = defineQuery(without(LIST_ARGS, ['fields', 'detail']));

export interface NodeListQuery {
  readonly filter: NodeFilter;
  readonly conductor: string | undefined;
  readonly limit: number;
  readonly marker: string | undefined;
  readonly sortKey: string;
  readonly sortDir: 'asc' | 'desc';
  /** Fields to show; undefined = all. */
  readonly fields: string[] | undefined;
  /** Parameters Ironic repeats in the next link, in its order. */
  readonly linkParameters: [string, string][];
  readonly instanceUuid: string | undefined;
}

const DEFAULT_FIELDS = ['instance_uuid', 'maintenance', 'power_state', 'provision_state', 'uuid', 'name'];

function notAcceptable(minor: number): NotAcceptable {
  return new NotAcceptable(`Request not acceptable. The minimal required API version should be 1.${minor}`);
}

const pyBool = (value: boolean) => (value ? 'True' : 'False');

/** Read and check the arguments of a list request (`detailPath`: `/v1/nodes/detail`). */
export function readListQuery(req: ApiRequest, ctx: ApiContext, detailPath: boolean): NodeListQuery {
  const v: Readonly<Record<string, unknown>> = (detailPath ? DETAIL_QUERY : LIST_QUERY).read(req);
  const str = (name: string) => v[name] as string | undefined;
  const sortKey = str('sort_key') ?? 'id';
  const fieldsArg = v.fields as string[] | undefined;

  if (!detailPath) {
    if (fieldsArg !== undefined && !atLeast(req.version, 8)) throw new NotAcceptable('Request not acceptable.');
    checkFieldVersions(fieldsArg, req.version);
  }
  checkFieldVersions([sortKey], req.version);
  const provisionState = str('provision_state');
  if (provisionState !== undefined) {
    if (!atLeast(req.version, 9)) throw new NotAcceptable('Request not acceptable.');
    if (!FILTER_STATES.includes(provisionState)) throw new InvalidParameterValue(`Provision state "${provisionState}" is not valid`);
  }
  for (const [name, minor] of FILTER_VERSIONS) {
    if (v[name] !== undefined && !atLeast(req.version, minor)) throw notAcceptable(minor);
    if (name === 'fault' && v.fault !== undefined && !VALID_FAULTS.includes(str('fault') as string)) {
      throw new InvalidParameterValue(
        `Unrecognized fault "${str('fault')}" is specified, allowed faults are ('${VALID_FAULTS.join("', '")}')`,
      );
    }
  }
  if (v.instance_name !== undefined && !atLeast(req.version, 104)) {
    throw new NotAcceptable('instance_name is not acceptable in this API version');
  }
  const detail = v.detail as boolean | undefined;
  let fields: string[] | undefined;
  if (detailPath) {
    fields = undefined;
  } else {
    if (detail !== undefined && !atLeast(req.version, 43))
      throw new InvalidParameterValue(`Invalid query parameter ?detail=${pyBool(detail)} received.`);
    if (fieldsArg !== undefined && detail) throw new InvalidParameterValue('Can not specify ?detail=True and fields in the same request.');
    fields = fieldsArg === undefined && !detail ? DEFAULT_FIELDS : fieldsArg;
  }

  const rawLimit = v.limit as number | undefined;
  if (rawLimit !== undefined && rawLimit <= 0) throw new InvalidParameterValue('Limit must be positive');
  const limit = rawLimit === undefined ? ctx.config.maxLimit : Math.min(rawLimit, ctx.config.maxLimit);
  const sortDir = str('sort_dir') ?? 'asc';
  if (sortDir !== 'asc' && sortDir !== 'desc') {
    throw new InvalidParameterValue(`Invalid sort direction: ${sortDir}. Acceptable values are 'asc' or 'desc'`);
  }
  if (UNSORTABLE.includes(sortKey)) throw new InvalidParameterValue(`The sort_key value ${sortKey} is an invalid field for sorting`);

  const filter: Record<string, unknown> = {
    maintenance: v.maintenance,
    chassisUuid: str('chassis_uuid'),
    associated: v.associated,
    provisionState,
    driver: str('driver'),
    resourceClass: str('resource_class'),
    fault: str('fault'),
    conductorGroup: str('conductor_group'),
    owner: str('owner'),
    lessee: str('lessee'),
    shards: v.shard,
    project: str('project'),
    descriptionContains: str('description_contains'),
    retired: v.retired,
    instanceUuid: str('instance_uuid'),
    instanceName: str('instance_name'),
    sharded: v.sharded,
    // Child nodes (1.83) are listed only on request or by their parent (Ironic's node query).
    parentNode: v.include_children === true ? undefined : (str('parent_node') ?? null),
  };
  for (const key of Object.keys(filter)) if (filter[key] === undefined) delete filter[key];

  const linkParameters: [string, string][] = [
    ['sort_key', sortKey],
    ['sort_dir', sortDir],
  ];
  for (const name of ['associated', 'maintenance', 'retired']) if (v[name] === true) linkParameters.push([name, 'True']);
  if (detail !== undefined && !detailPath) linkParameters.push(['detail', pyBool(detail)]);
  if (fields !== undefined && fields.length > 0) linkParameters.push(['fields', fields.join(',')]);

  return {
    filter: filter as NodeFilter,
    conductor: str('conductor'),
    limit,
    marker: str('marker'),
    sortKey,
    sortDir,
    fields,
    linkParameters,
    instanceUuid: str('instance_uuid'),
  };
}

/** Run the query: chassis and marker must exist (404), then the store's list, then the conductor filter. */
export async function runListQuery(ctx: ApiContext, query: NodeListQuery): Promise<Node[]> {
  if (query.marker !== undefined) await ctx.nodes.get(query.marker);
  // Ironic looks the chassis up as it builds the query: an unknown one is a 404 here.
  if (query.filter.chassisUuid !== undefined) await requireChassis(ctx, query.filter.chassisUuid, 404);
  if (query.sortKey !== 'id' && SORT_COLUMNS[query.sortKey] === undefined) {
    throw new InvalidParameterValue(`The sort_key value "${query.sortKey}" is an invalid field for sorting`);
  }
  const page = await ctx.nodes.list(query.filter, {
    limit: query.limit,
    marker: query.marker,
    sortKey: query.sortKey === 'id' ? undefined : SORT_COLUMNS[query.sortKey],
    sortDir: query.sortDir,
  });
  if (query.conductor === undefined) return page.nodes;
  // Ironic filters the page by each node's conductor (orphaned nodes match no conductor).
  const kept: Node[] = [];
  for (const node of page.nodes) if ((await ctx.conductors.conductorOrNull(node)) === query.conductor) kept.push(node);
  return kept;
}

/** Ironic's next link: whenever a page is full (it does not look ahead), never for instance_uuid. */
export function listNextLink(req: ApiRequest, resource: string, query: NodeListQuery, nodes: readonly Node[]): string | undefined {
  const last = nodes[nodes.length - 1];
  if (last === undefined || query.instanceUuid !== undefined || nodes.length !== query.limit) return undefined;
  const args = query.linkParameters.map(([key, value]) => `${key}=${value}&`).join('');
  return `${req.baseUrl}/v1/${resource}?${args}limit=${query.limit}&marker=${last.uuid}`;
}
