/**
 * One BIOS setting of a node, as the node's bios interface last read it from the hardware
 * (Ironic's `BIOSSetting`, `ironic/objects/bios.py`, and its `bios_settings` table): the setting's
 * value and, when the BMC publishes an attribute registry, what the registry says of it (API
 * 1.74). Keyed by the node's UUID (Ironic's integer `node_id`) and the setting's name; written by
 * `cache_bios_settings` and the bios clean/service steps, deleted with the node.
 */
import { VersionedObject, type VersionStep } from './base';
import { type FieldValues, t } from './fields';

/** The attribute registry's fields of a setting (Ironic's `BIOSSetting.registry_fields`), shown from API 1.74. */
export const BIOS_REGISTRY_FIELDS = [
  'attribute_type',
  'allowable_values',
  'lower_bound',
  'max_length',
  'min_length',
  'read_only',
  'reset_required',
  'unique',
  'upper_bound',
] as const;

export const BIOS_SETTING_FIELDS = {
  node_uuid: t.uuid(),
  name: t.string(),
  value: t.string({ nullable: true }),
  attribute_type: t.string({ nullable: true }),
  allowable_values: t.stringList({ nullable: true }),
  lower_bound: t.integer({ nullable: true }),
  max_length: t.integer({ nullable: true }),
  min_length: t.integer({ nullable: true }),
  read_only: t.boolean({ nullable: true }),
  reset_required: t.boolean({ nullable: true }),
  unique: t.boolean({ nullable: true }),
  upper_bound: t.integer({ nullable: true }),
  created_at: t.datetime(),
  updated_at: t.datetime({ nullable: true }),
} as const;

export type BIOSSettingData = FieldValues<typeof BIOS_SETTING_FIELDS>;

/** A setting as a bios interface reads it: a name, a value, and what the registry says of it (absent: null). */
export type BiosSettingValues = Pick<BIOSSettingData, 'name' | 'value'> &
  Partial<Pick<BIOSSettingData, (typeof BIOS_REGISTRY_FIELDS)[number]>>;

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- field accessors are installed at runtime
export interface BIOSSetting extends BIOSSettingData {}

// Version 1.0: initial version (Ironic's BIOSSetting 1.1 fields: the value and the registry's, the node referenced by UUID).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class BIOSSetting extends VersionedObject {
  static override readonly objName = 'BIOSSetting';
  static override readonly VERSION = '1.0';
  static override readonly fields = BIOS_SETTING_FIELDS;
  static override readonly history: readonly VersionStep[] = [{ version: '1.0' }];
}
