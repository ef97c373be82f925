/**
 * Every persisted object: Ironic's field names (integer ids replaced by UUID references, with
 * timestamps), its defaults, and a lossless round trip through DynamoDB items and RPC at its version.
 */
import { InvalidParameterValue } from '../../../functions/common/errors';
import { type ObjectClass, objectFromItem, objectFromPrimitive } from '../../../functions/objects/base';
import { OBJECT_REGISTRY } from '../../../functions/objects/registry';
import { TABLES } from '../../../functions/db/schema';

const TIMESTAMPS = ['created_at', 'updated_at'];

/** Ironic 21.4.4's fields of each object (2023.2's for newer ones), adapted: `*_id` references become `*_uuid`. */
const IRONIC_FIELDS: Record<string, string[]> = {
  Port: [
    'uuid',
    'node_uuid',
    'address',
    'name',
    'extra',
    'local_link_connection',
    'portgroup_uuid',
    'pxe_enabled',
    'internal_info',
    'physical_network',
    'is_smartnic',
    // Ironic master's Port 1.12–1.16 (API 1.97–1.111): Ironless's Port 1.1.
    'description',
    'vendor',
    'category',
    'available_for_dynamic_portgroup',
  ],
  Portgroup: [
    'uuid',
    'name',
    'node_uuid',
    'address',
    'extra',
    'internal_info',
    'standalone_ports_supported',
    'mode',
    'properties',
    // Ironic master's Portgroup (API 1.102, 1.103, 1.111): Ironless's Portgroup 1.1.
    'physical_network',
    'category',
    'dynamic_portgroup',
  ],
  Chassis: ['uuid', 'extra', 'description'],
  // `online` is Ironic's conductors column its object does not expose.
  Conductor: ['hostname', 'conductor_group', 'drivers', 'online'],
  DeployTemplate: ['uuid', 'name', 'steps', 'extra'],
  Allocation: [
    'uuid',
    'name',
    'node_uuid',
    'state',
    'last_error',
    'resource_class',
    'traits',
    'candidate_nodes',
    'extra',
    'conductor_affinity',
    'owner',
  ],
  NodeHistory: [
    'uuid',
    'node_uuid',
    'conductor',
    'event',
    'user',
    'event_type',
    'severity',
    // Ironic's NodeHistory 1.2 and 1.3 (Ironless 1.1).
    'project',
    'state',
    'target_provision_state',
    'duration_seconds',
  ],
  // Ironic 2023.2's NodeInventory (21.4 has none): its integer id is not kept, one item per node.
  NodeInventory: ['node_uuid', 'inventory_data', 'plugin_data'],
  VolumeConnector: ['uuid', 'node_uuid', 'type', 'connector_id', 'extra'],
  VolumeTarget: ['uuid', 'node_uuid', 'volume_type', 'properties', 'boot_index', 'volume_id', 'extra'],
  BIOSSetting: [
    'node_uuid',
    'name',
    'value',
    'attribute_type',
    'allowable_values',
    'lower_bound',
    'max_length',
    'min_length',
    'read_only',
    'reset_required',
    'unique',
    'upper_bound',
  ],
  FirmwareComponent: [
    'node_uuid',
    'component',
    'initial_version',
    'current_version',
    'last_version_flashed',
    // Ironic's FirmwareComponent 1.2 (Ironless 1.1).
    'vendor',
    'model',
    'serial_number',
  ],
  // Ironic master's Runbook 1.2 (its integer id is not kept; steps and traits inline).
  Runbook: ['uuid', 'name', 'description', 'steps', 'disable_ramdisk', 'extra', 'public', 'owner', 'traits'],
  // Ironic's InspectionRule 1.1 without its integer id.
  InspectionRule: ['uuid', 'priority', 'description', 'sensitive', 'phase', 'scope', 'actions', 'conditions'],
};

/** A value of each kind of field, to fill an object. */
function sample(kind: string, items?: string): unknown {
  switch (kind) {
    case 'uuid':
      return '1be26c0b-03f2-4d2e-ae87-c02d7f33c123';
    case 'macaddress':
      return '52:54:00:12:34:56';
    case 'datetime':
      return '2026-11-22T10:00:00.000Z';
    case 'integer':
      return 7;
    case 'boolean':
      return true;
    case 'dict':
      return { k: 'v' };
    case 'list':
      return items === 'dict' ? [{ step: 'x' }] : ['a', 'b'];
    default:
      return 'text';
  }
}

describe.each(Object.entries(OBJECT_REGISTRY).filter(([name]) => name !== 'Node'))('%s', (name, cls: ObjectClass) => {
  it("has Ironic's fields (UUID references, timestamps) at its version", () => {
    expect(cls.objName).toBe(name);
    expect(cls.VERSION).toBe(cls.history[cls.history.length - 1]?.version);
    expect(Object.keys(cls.fields).sort()).toEqual([...IRONIC_FIELDS[name]!, ...TIMESTAMPS].sort());
  });

  it('round-trips every field through a DynamoDB item and an RPC primitive', () => {
    const data = Object.fromEntries(Object.entries(cls.fields).map(([field, def]) => [field, sample(def.kind, def.items)]));
    const obj = new cls(data);
    const item = obj.toItem();
    expect(item.version).toBe(cls.VERSION);
    expect(objectFromItem(cls, JSON.parse(JSON.stringify(item))).toData()).toEqual(data);
    expect(objectFromPrimitive(cls, JSON.parse(JSON.stringify(obj.toPrimitive()))).toData()).toEqual(data);
  });

  it('refuses a stored value of the wrong type in any field', () => {
    for (const [field, def] of Object.entries(cls.fields)) {
      const bad = ['dict', 'boolean', 'list', 'integer'].includes(def.kind) ? 'text' : 42;
      expect(() => objectFromItem(cls, { version: cls.VERSION, [field]: bad })).toThrow(InvalidParameterValue);
    }
  });
});

describe('persisted objects', () => {
  it('each live in a table of the schema, and every such table holds a registered object', () => {
    const stored = Object.values(TABLES).flatMap((def) => ('object' in def ? [def.object] : []));
    expect(stored.sort()).toEqual(Object.keys(OBJECT_REGISTRY).sort());
  });
});
