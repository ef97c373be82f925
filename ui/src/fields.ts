/**
 * A node's fields in groups, in the order Ironic's API reference lists them for "Show Node
 * Details". Fields the API sends that no group names go to "Other", so nothing is hidden.
 * Pure: no DOM, unit-tested.
 */

export interface FieldGroup {
  readonly title: string;
  readonly fields: readonly string[];
}

export const FIELD_GROUPS: readonly FieldGroup[] = [
  {
    title: 'Identity',
    fields: ['uuid', 'name', 'description', 'owner', 'lessee', 'resource_class', 'parent_node', 'chassis_uuid', 'created_at', 'updated_at'],
  },
  {
    title: 'State',
    fields: [
      'provision_state',
      'target_provision_state',
      'provision_updated_at',
      'power_state',
      'target_power_state',
      'maintenance',
      'maintenance_reason',
      'fault',
      'last_error',
      'reservation',
      'protected',
      'protected_reason',
      'retired',
      'retired_reason',
      'automated_clean',
      'console_enabled',
      'inspection_started_at',
      'inspection_finished_at',
    ],
  },
  { title: 'Placement', fields: ['conductor_group', 'conductor', 'shard', 'allocation_uuid'] },
  {
    title: 'Driver and interfaces',
    fields: [
      'driver',
      'bios_interface',
      'boot_interface',
      'console_interface',
      'deploy_interface',
      'firmware_interface',
      'inspect_interface',
      'management_interface',
      'network_interface',
      'power_interface',
      'raid_interface',
      'rescue_interface',
      'storage_interface',
      'vendor_interface',
    ],
  },
  { title: 'Driver info', fields: ['driver_info'] },
  { title: 'Properties', fields: ['properties'] },
  { title: 'Instance', fields: ['instance_uuid', 'instance_info', 'traits'] },
  { title: 'Boot', fields: ['boot_mode', 'secure_boot'] },
  { title: 'RAID', fields: ['raid_config', 'target_raid_config'] },
  { title: 'Steps', fields: ['deploy_step', 'clean_step', 'service_step', 'driver_internal_info'] },
  { title: 'Extra', fields: ['extra', 'network_data'] },
];

/** Fields not shown as fields (navigation). */
const HIDDEN = new Set(['links', 'ports', 'portgroups', 'states', 'volume', 'allocations']);

/** The groups with the node's own fields in them; fields no group names end in "Other". */
export function groupFields(node: Readonly<Record<string, unknown>>): { title: string; entries: [string, unknown][] }[] {
  const named = new Set(FIELD_GROUPS.flatMap((g) => g.fields));
  const groups = FIELD_GROUPS.map((g) => ({
    title: g.title,
    entries: g.fields.filter((f) => f in node).map((f): [string, unknown] => [f, node[f]]),
  }));
  const other = Object.keys(node)
    .filter((k) => !named.has(k) && !HIDDEN.has(k))
    .sort()
    .map((k): [string, unknown] => [k, node[k]]);
  if (other.length > 0) groups.push({ title: 'Other', entries: other });
  return groups.filter((g) => g.entries.length > 0);
}
