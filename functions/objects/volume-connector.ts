/**
 * A volume connector of a node, after Ironic's `ironic/objects/volume_connector.py` (Ironic's
 * VolumeConnector 1.0): how the node reaches a storage network (`type` is iqn, ip, mac, wwnn or
 * wwpn; `connector_id` the value, e.g. an initiator IQN). Ironic keeps the node's integer
 * `node_id`; Ironless its UUID. (`type`, `connector_id`) is unique among all connectors.
 */
import { VersionedObject, type VersionStep } from './base';
import { type FieldValues, t } from './fields';

export const VOLUME_CONNECTOR_FIELDS = {
  uuid: t.uuid(),
  node_uuid: t.uuid(),
  type: t.string(),
  connector_id: t.string(),
  extra: t.dict({ default: {} }),
  created_at: t.datetime(),
  updated_at: t.datetime({ nullable: true }),
} as const;

export type VolumeConnectorData = FieldValues<typeof VOLUME_CONNECTOR_FIELDS>;

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- field accessors are installed at runtime
export interface VolumeConnector extends VolumeConnectorData {}

// Version 1.0: initial version (Ironic's VolumeConnector 1.0 fields, the node referenced by UUID).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class VolumeConnector extends VersionedObject {
  static override readonly objName = 'VolumeConnector';
  static override readonly VERSION = '1.0';
  static override readonly fields = VOLUME_CONNECTOR_FIELDS;
  static override readonly history: readonly VersionStep[] = [{ version: '1.0' }];
}
