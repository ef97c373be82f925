/**
 * A group of a node's ports (a bond), after Ironic's `ironic/objects/portgroup.py` (21.4:
 * Portgroup 1.5), with the node referenced by UUID. `name` and `address` are unique among
 * portgroups.
 */
import { VersionedObject, type VersionStep } from './base';
import { type FieldValues, t } from './fields';

export const PORTGROUP_FIELDS = {
  uuid: t.uuid(),
  name: t.string({ nullable: true }),
  node_uuid: t.uuid(),
  address: t.macaddress({ nullable: true }),
  extra: t.dict({ default: {} }),
  internal_info: t.dict({ default: {} }),
  standalone_ports_supported: t.boolean({ default: true }),
  // Bonding mode (e.g. "active-backup", "802.3ad"); null = the configured default.
  mode: t.string({ nullable: true }),
  properties: t.dict({ default: {} }),
  // The physical network of the portgroup's ports (API 1.102).
  physical_network: t.string({ nullable: true }),
  // A further distinction of the portgroup (API 1.103, at most 80 characters).
  category: t.string({ nullable: true }),
  // Built by the conductor from ports available for it, not by API users (API 1.111, read-only).
  dynamic_portgroup: t.boolean({ default: false }),
  created_at: t.datetime(),
  updated_at: t.datetime({ nullable: true }),
} as const;

export type PortgroupData = FieldValues<typeof PORTGROUP_FIELDS>;

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- field accessors are installed at runtime
export interface Portgroup extends PortgroupData {}

// Version 1.0: initial version (Ironic's Portgroup 1.5 fields, UUID references).
// Version 1.1: physical_network, category, dynamic_portgroup (API 1.102, 1.103, 1.111); an older
//              item reads dynamic_portgroup false.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class Portgroup extends VersionedObject {
  static override readonly objName = 'Portgroup';
  static override readonly VERSION = '1.1';
  static override readonly fields = PORTGROUP_FIELDS;
  static override readonly history: readonly VersionStep[] = [
    { version: '1.0' },
    { version: '1.1', added: ['physical_network', 'category', 'dynamic_portgroup'] },
  ];
}
