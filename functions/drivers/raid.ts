/**
 * RAID configuration, after Ironic's `common/raid.py` and the schema every RAID interface validates
 * against: a target configuration is a list of logical disks, each with a RAID level and a size.
 * The target is set through `PUT /v1/nodes/{node}/states/raid`; a RAID interface builds it (agent
 * RAID: the ramdisk, in a clean or deploy step) and the result becomes the node's `raid_config`,
 * with what scheduling needs copied into its properties (size, root device hint, RAID level).
 */
import { InvalidParameterValue, MissingParameterValue } from '#common/errors';
import { type JsonSchema, schemaErrorMessage } from '#common/jsonschema';
import type { Node } from '#objects/node';
import type { RaidInterface } from './base';

/**
 * The logical disk properties and their descriptions, in the order Ironic lists them
 * (`GET /v1/drivers/{driver}/raid/logical_disk_properties`).
 */
const LOGICAL_DISK_PROPERTIES: Readonly<Record<string, { readonly schema: JsonSchema; readonly description: string }>> = {
  raid_level: {
    schema: { type: 'string', enum: ['JBOD', '0', '1', '2', '5', '6', '1+0', '5+0', '6+0'] },
    description: "RAID level for the logical disk. Valid values are 'JBOD', '0', '1', '2', '5', '6', '1+0', '5+0' and '6+0'. Required.",
  },
  size_gb: {
    schema: {
      anyOf: [
        { type: 'integer', minimum: 0 },
        { type: 'string', enum: ['MAX'] },
      ],
    },
    description:
      "Size in GiB (Integer) for the logical disk. Use 'MAX' as size_gb if this logical disk is supposed to use the rest of the space available. Required.",
  },
  volume_name: {
    schema: { type: 'string' },
    description: 'Name of the volume to be created. If this is not specified, it will be auto-generated. Optional.',
  },
  is_root_volume: {
    schema: { type: 'boolean' },
    description: 'Specifies whether this disk is a root volume. By default, this is False. Optional.',
  },
  share_physical_disks: {
    schema: { type: 'boolean' },
    description:
      'Specifies whether other logical disks can share physical disks with this logical disk. By default, this is False. Optional.',
  },
  disk_type: {
    schema: { type: 'string', enum: ['hdd', 'ssd'] },
    description:
      "The type of disk preferred. Valid values are 'hdd' and 'ssd'. If this is not specified, disk type will not be a selection criterion for choosing backing physical disks. Optional.",
  },
  interface_type: {
    schema: { type: 'string', enum: ['sata', 'scsi', 'sas'] },
    description:
      "The interface type of disk. Valid values are 'sata', 'scsi' and 'sas'. If this is not specified, interface type will not be a selection criterion for choosing backing physical disks. Optional.",
  },
  number_of_physical_disks: {
    // Draft 4's minimum 0 with exclusiveMinimum, which Ajv (draft 7) writes as a number.
    schema: { type: 'integer', exclusiveMinimum: 0 },
    description:
      'Number of physical disks to use for this logical disk. By default, the driver uses the minimum number of disks required for that RAID level. Optional.',
  },
  controller: {
    schema: { type: 'string' },
    description:
      'Controller to use for this logical disk. If not specified, the driver will choose a suitable RAID controller on the bare metal node. Optional.',
  },
  physical_disks: {
    schema: {
      anyOf: [
        { type: 'array', items: { type: 'string' } },
        { type: 'array', items: { type: 'object' }, minItems: 2 },
      ],
    },
    description:
      'The physical disks to use for this logical disk. If not specified, the driver will choose suitable physical disks to use. Optional.',
  },
};

export const RAID_CONFIG_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    logical_disks: {
      type: 'array',
      items: {
        type: 'object',
        properties: Object.fromEntries(Object.entries(LOGICAL_DISK_PROPERTIES).map(([name, p]) => [name, p.schema])),
        required: ['raid_level', 'size_gb'],
        additionalProperties: false,
        dependencies: { physical_disks: ['controller'] },
      },
      minItems: 1,
    },
  },
  required: ['logical_disks'],
  additionalProperties: false,
};

/** The properties a logical disk may have, with their descriptions. */
export function logicalDiskProperties(): Record<string, string> {
  return Object.fromEntries(Object.entries(LOGICAL_DISK_PROPERTIES).map(([name, p]) => [name, p.description]));
}

type LogicalDisk = Record<string, unknown>;

function logicalDisks(config: Record<string, unknown>): LogicalDisk[] {
  return Array.isArray(config.logical_disks) ? (config.logical_disks as LogicalDisk[]) : [];
}

/** The root volume of a configuration, if any; more than one is refused. */
function rootVolume(config: Record<string, unknown>): LogicalDisk | undefined {
  const roots = logicalDisks(config).filter((d) => d.is_root_volume === true);
  if (roots.length > 1) {
    throw new InvalidParameterValue(`Raid config cannot have more than one root volume. ${roots.length} root volumes were specified`);
  }
  return roots[0];
}

/** Ironic's validate_configuration: the schema, then at most one root volume. */
export function validateRaidConfig(config: unknown): void {
  const error = schemaErrorMessage(RAID_CONFIG_SCHEMA, config);
  if (error !== undefined) throw new InvalidParameterValue(`RAID config validation error: ${error}`);
  rootVolume(config as Record<string, unknown>);
}

/**
 * The target configuration a build starts from (Ironic's filter_target_raid_config): all of it, or
 * without the root volume or without the others.
 */
export function filterTargetRaidConfig(node: Node, options: { createRootVolume?: boolean; createNonrootVolumes?: boolean } = {}) {
  const target = node.target_raid_config ?? {};
  if (Object.keys(target).length === 0) throw new MissingParameterValue(`Node ${node.uuid} has no target RAID configuration.`);
  let disks = logicalDisks(target);
  const skipped: string[] = [];
  if (options.createRootVolume === false) {
    disks = disks.filter((d) => d.is_root_volume !== true);
    skipped.push('skipping root volume');
  }
  if (options.createNonrootVolumes === false) {
    disks = disks.filter((d) => d.is_root_volume === true);
    skipped.push('skipping non-root volumes');
  }
  if (disks.length === 0) {
    throw new MissingParameterValue(`Node ${node.uuid} has empty target RAID configuration after ${skipped.join(' and ')}.`);
  }
  return { ...target, logical_disks: disks };
}

/** Python's str() of a naive UTC datetime: "2026-11-24 18:00:00.123000". */
function pythonUtcNow(): string {
  return `${new Date().toISOString().replace('T', ' ').replace('Z', '')}000`;
}

/** Ironic's get_updated_capabilities: "k:v,k2:v2" with `updates` set. */
export function updatedCapabilities(current: unknown, updates: Readonly<Record<string, string>>): string {
  const caps = new Map<string, string>();
  if (typeof current === 'string' && current !== '') {
    for (const item of current.split(',')) {
      const at = item.indexOf(':');
      if (at < 0) throw new InvalidParameterValue(`Invalid capabilities string '${current}'.`);
      caps.set(item.slice(0, at), item.slice(at + 1));
    }
  }
  for (const [key, value] of Object.entries(updates)) caps.set(key, value);
  return [...caps].map(([key, value]) => `${key}:${value}`).join(',');
}

/**
 * Record a configuration the hardware now has (Ironic's update_raid_info): `raid_config` with the
 * time, and from its root volume the node's `local_gb`, root device hint and `raid_level`
 * capability, which scheduling and the deploy read.
 */
export function updateRaidInfo(node: Node, config: Record<string, unknown>): void {
  node.raid_config = { ...config, last_updated: pythonUtcNow() };
  const root = rootVolume(config);
  if (root === undefined) return;
  const properties = { ...node.properties };
  if (root.size_gb !== 'MAX') properties.local_gb = root.size_gb;
  if ('root_device_hint' in root) properties.root_device = root.root_device_hint;
  properties.capabilities = updatedCapabilities(properties.capabilities, { raid_level: String(root.raid_level) });
  node.properties = properties;
}

/**
 * A RAID interface that checks configurations as Ironic's RAIDInterface base does: against the
 * schema, and its `validate` checks the node's target (if it has one).
 */
export function raidInterface(name: string, extra: Omit<Partial<RaidInterface>, 'name'> = {}): RaidInterface {
  return {
    name,
    async validate(task) {
      const target = task.node.target_raid_config;
      if (target !== null && Object.keys(target).length > 0) validateRaidConfig(target);
    },
    validateRaidConfig(_task, config) {
      validateRaidConfig(config);
    },
    ...extra,
  };
}
