/**
 * A network port of a node, after Ironic's `ironic/objects/port.py` (21.4: Port 1.11). Ironic keeps
 * integer foreign keys (node_id, portgroup_id) beside `node_uuid`; Ironless keeps the UUIDs only.
 * `address` is stored lower-case (Ironic's MACAddressField normalises it) and is unique among
 * ports, as is `name`.
 */
import { VersionedObject, type VersionStep } from './base';
import { type FieldValues, t } from './fields';

export const PORT_FIELDS = {
  uuid: t.uuid(),
  node_uuid: t.uuid(),
  address: t.macaddress({ nullable: true }),
  name: t.string({ nullable: true }),
  extra: t.dict({ default: {} }),
  // Switch port the NIC is cabled to: switch_id, port_id, switch_info (used by network interfaces).
  local_link_connection: t.dict({ default: {} }),
  portgroup_uuid: t.uuid({ nullable: true }),
  pxe_enabled: t.boolean({ default: true }),
  // Set by Ironic, not by users (e.g. tenant_vif_port_id).
  internal_info: t.dict({ default: {} }),
  physical_network: t.string({ nullable: true }),
  is_smartnic: t.boolean({ default: false }),
  // Free text about the port (API 1.97, at most 255 characters).
  description: t.string({ nullable: true }),
  // The NIC's hardware vendor (API 1.100, at most 32 characters).
  vendor: t.string({ nullable: true }),
  // A further distinction of the port (API 1.101, at most 80 characters).
  category: t.string({ nullable: true }),
  // Whether the port may join a portgroup the conductor builds (API 1.111); older items read true.
  available_for_dynamic_portgroup: t.boolean({ default: true }),
  created_at: t.datetime(),
  updated_at: t.datetime({ nullable: true }),
} as const;

export type PortData = FieldValues<typeof PORT_FIELDS>;

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- field accessors are installed at runtime
export interface Port extends PortData {}

// Version 1.0: initial version (Ironic's Port 1.11 fields, UUID references).
// Version 1.1: description, vendor, category, available_for_dynamic_portgroup (Ironic's Port 1.12–1.16,
//              API 1.97–1.111); an older item reads available_for_dynamic_portgroup at its default, true.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class Port extends VersionedObject {
  static override readonly objName = 'Port';
  static override readonly VERSION = '1.1';
  static override readonly fields = PORT_FIELDS;
  static override readonly history: readonly VersionStep[] = [
    { version: '1.0' },
    { version: '1.1', added: ['description', 'vendor', 'category', 'available_for_dynamic_portgroup'] },
  ];
}
