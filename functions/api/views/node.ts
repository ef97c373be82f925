/**
 * The node as the API shows it, per microversion: which fields exist at a version (Ironic's
 * VERSIONED_FIELDS), the `fields` selection, secrets masked, and the sub-resource links.
 */
import { AVAILABLE, INSPECTING, INSPECTWAIT } from '#common/states';
import { Invalid, NotAcceptable } from '#common/errors';
import type { Node } from '#objects/node';
import { pyTruthy } from '../pyrepr';
import { type ApiVersion, atLeast } from '../microversion';
import { type Link, selfAndBookmark } from './links';
import { maskPasswords, MASK } from './sanitize';
import { isoTime } from './time';

/**
 * Fields of the node resource that appeared after 1.1, with the minor version that added them
 * (Ironic's VERSIONED_FIELDS, plus the sub-resource links).
 */
export const NODE_FIELD_VERSIONS: Readonly<Record<string, number>> = {
  driver_internal_info: 3,
  name: 5,
  inspection_finished_at: 6,
  inspection_started_at: 6,
  clean_step: 7,
  states: 14,
  raid_config: 12,
  target_raid_config: 12,
  network_interface: 20,
  resource_class: 21,
  portgroups: 24,
  boot_interface: 31,
  console_interface: 31,
  deploy_interface: 31,
  inspect_interface: 31,
  management_interface: 31,
  power_interface: 31,
  raid_interface: 31,
  vendor_interface: 31,
  storage_interface: 33,
  volume: 32,
  traits: 37,
  rescue_interface: 38,
  bios_interface: 40,
  fault: 42,
  deploy_step: 44,
  conductor_group: 46,
  automated_clean: 47,
  protected: 48,
  protected_reason: 48,
  conductor: 49,
  owner: 50,
  description: 51,
  allocation_uuid: 52,
  retired: 61,
  retired_reason: 61,
  lessee: 65,
  network_data: 66,
  boot_mode: 75,
  secure_boot: 75,
  shard: 82,
  parent_node: 83,
  firmware_interface: 86,
  service_step: 87,
  disable_power_off: 95,
  instance_name: 104,
  health: 109,
};

/** Fields of `GET /v1/nodes` without `detail` (Ironic's _DEFAULT_RETURN_FIELDS). */
export const NODE_LIST_FIELDS = ['instance_uuid', 'maintenance', 'power_state', 'provision_state', 'uuid', 'name'] as const;

/** Node fields the API shows (Ironic's `_get_fields_for_node_query`), in its order. */
export const OBJECT_FIELDS = [
  'automated_clean',
  'bios_interface',
  'boot_interface',
  'boot_mode',
  'clean_step',
  'conductor_group',
  'console_enabled',
  'console_interface',
  'disable_power_off',
  'deploy_interface',
  'deploy_step',
  'description',
  'driver',
  'driver_info',
  'driver_internal_info',
  'extra',
  'fault',
  'firmware_interface',
  'health',
  'inspection_finished_at',
  'inspection_started_at',
  'inspect_interface',
  'instance_info',
  'instance_name',
  'instance_uuid',
  'last_error',
  'lessee',
  'maintenance',
  'maintenance_reason',
  'management_interface',
  'name',
  'network_data',
  'network_interface',
  'owner',
  'parent_node',
  'power_interface',
  'power_state',
  'properties',
  'protected',
  'protected_reason',
  'provision_state',
  'provision_updated_at',
  'raid_config',
  'raid_interface',
  'rescue_interface',
  'reservation',
  'resource_class',
  'retired',
  'retired_reason',
  'secure_boot',
  'service_step',
  'shard',
  'storage_interface',
  'target_power_state',
  'target_provision_state',
  'target_raid_config',
  'traits',
  'vendor_interface',
] as const;

/** Fields filled by the API rather than read from the node object. */
const API_FIELDS = ['allocation_uuid', 'chassis_uuid', 'conductor'] as const;

const DICT_FIELDS = new Set([
  'clean_step',
  'service_step',
  'deploy_step',
  'driver_info',
  'driver_internal_info',
  'extra',
  'instance_info',
  'network_data',
  'properties',
  'raid_config',
  'target_raid_config',
]);
const DATETIME_FIELDS = new Set(['created_at', 'updated_at', 'provision_updated_at', 'inspection_finished_at', 'inspection_started_at']);

export function fieldAllowed(field: string, version: ApiVersion): boolean {
  const minor = NODE_FIELD_VERSIONS[field];
  return minor === undefined || atLeast(version, minor);
}

/** Names a `fields=` selection may use (Ironic checks them only when it builds a node's view). */
const SELECTABLE = new Set<string>(['uuid', 'traits', ...API_FIELDS, ...OBJECT_FIELDS]);

/** 406 when a `fields=` selection names a field newer than the request's version. */
export function checkFieldVersions(fields: readonly string[] | undefined, version: ApiVersion): void {
  if (fields === undefined) return;
  for (const field of fields) {
    if (!fieldAllowed(field, version)) throw new NotAcceptable('Request not acceptable.');
  }
}

/** 400 "Field x is not a valid field." for the first name that is not a node field. */
export function checkFieldNames(fields: readonly string[] | undefined): void {
  if (fields === undefined) return;
  for (const field of fields) {
    if (!SELECTABLE.has(field)) throw new Invalid(`Field ${field} is not a valid field.`);
  }
}

export interface NodeViewOptions {
  readonly baseUrl: string;
  readonly version: ApiVersion;
  /** Only these fields (plus links); undefined = all. */
  readonly fields?: readonly string[];
  /** The conductor serving the node (1.49 `conductor`). */
  readonly conductor?: string | null;
}

/**
 * `driver_internal_info` keys no API reply shows: the agent's token, the Step Functions task token
 * (which completes a waiting step) and the lock token of the execution running the node's steps.
 */
export const INTERNAL_SECRETS: readonly string[] = ['agent_secret_token', 'steps_task_token', 'steps_owner'];

export function nodeView(node: Node, options: NodeViewOptions): Record<string, unknown> {
  const { version, baseUrl } = options;
  const data = node as unknown as Record<string, unknown>;
  const wanted = options.fields;
  const include = (field: string) => (wanted === undefined || wanted.includes(field)) && fieldAllowed(field, version);
  const out: Record<string, unknown> = {};

  for (const field of ['uuid', 'created_at', 'updated_at', ...OBJECT_FIELDS]) {
    if (!include(field)) continue;
    let value = data[field];
    if (DATETIME_FIELDS.has(field)) value = isoTime(value as string | null);
    if ((value === null || value === undefined) && DICT_FIELDS.has(field)) value = {};
    out[field] = value ?? null;
  }
  out.links = selfAndBookmark(baseUrl, 'nodes', node.uuid);
  if (include('conductor')) out.conductor = options.conductor ?? null;
  if (include('allocation_uuid')) out.allocation_uuid = node.allocation_uuid;
  if (include('chassis_uuid')) out.chassis_uuid = node.chassis_uuid;
  if (wanted === undefined) {
    const sub = (name: string): Link[] => selfAndBookmark(baseUrl, 'nodes', `${node.uuid}/${name}`);
    out.ports = sub('ports');
    if (fieldAllowed('states', version)) out.states = sub('states');
    if (fieldAllowed('portgroups', version)) out.portgroups = sub('portgroups');
    if (fieldAllowed('volume', version)) out.volume = sub('volume');
  }

  // Secrets: BMC passwords in driver_info, instance secrets, the agent's token.
  if (out.driver_info) out.driver_info = maskPasswords(out.driver_info as Record<string, unknown>);
  if (out.instance_info) {
    const info = maskPasswords(out.instance_info as Record<string, unknown>);
    if (pyTruthy(info.configdrive)) info.configdrive = MASK;
    if (pyTruthy(info.image_url)) info.image_url = MASK;
    out.instance_info = info;
  }
  const internal = out.driver_internal_info as Record<string, unknown> | undefined;
  if (internal !== undefined && internal !== null) {
    const masked = { ...internal };
    // As Ironic masks agent_secret_token: set values of the conductor's own secrets show as "******".
    for (const key of INTERNAL_SECRETS) if (pyTruthy(masked[key])) masked[key] = MASK;
    out.driver_internal_info = masked;
  }

  // Older versions knew states by older names.
  if (out.provision_state === AVAILABLE && !atLeast(version, 2)) out.provision_state = null;
  if (out.provision_state === INSPECTWAIT && !atLeast(version, 39)) out.provision_state = INSPECTING;
  return out;
}
