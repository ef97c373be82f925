/**
 * A volume target of a node, after Ironic's `ironic/objects/volume_target.py` (Ironic's
 * VolumeTarget 1.0): a volume the node boots from or attaches (`volume_type` e.g. iscsi, `volume_id`
 * the block storage service's id, `properties` how to connect, which may hold credentials).
 * `boot_index` is unique per node (0 is the boot volume). Ironic keeps the node's integer
 * `node_id`; Ironless its UUID.
 */
import { VersionedObject, type VersionStep } from './base';
import { type FieldValues, t } from './fields';

export const VOLUME_TARGET_FIELDS = {
  uuid: t.uuid(),
  node_uuid: t.uuid(),
  volume_type: t.string(),
  properties: t.dict({ default: {} }),
  boot_index: t.integer(),
  volume_id: t.string(),
  extra: t.dict({ default: {} }),
  created_at: t.datetime(),
  updated_at: t.datetime({ nullable: true }),
} as const;

export type VolumeTargetData = FieldValues<typeof VOLUME_TARGET_FIELDS>;

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- field accessors are installed at runtime
export interface VolumeTarget extends VolumeTargetData {}

// Version 1.0: initial version (Ironic's VolumeTarget 1.0 fields, the node referenced by UUID).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class VolumeTarget extends VersionedObject {
  static override readonly objName = 'VolumeTarget';
  static override readonly VERSION = '1.0';
  static override readonly fields = VOLUME_TARGET_FIELDS;
  static override readonly history: readonly VersionStep[] = [{ version: '1.0' }];
}
