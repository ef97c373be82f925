/**
 * One firmware component of a node (BIOS, BMC, …), as the node's firmware interface last read it
 * from the hardware (Ironic's `FirmwareComponent`, `ironic/objects/firmware.py`, and its
 * `firmware_information` table). `initial_version` is the version seen when the component was
 * first cached and never changes; `current_version` follows the hardware, and when it changes the
 * new version is also recorded as `last_version_flashed`. Keyed by the node's UUID (Ironic's
 * integer `node_id`) and the component's name; written by `cache_firmware_components` (at the
 * start of cleaning and servicing, after a firmware `update`), deleted with the node.
 */
import { VersionedObject, type VersionStep } from './base';
import { type FieldValues, t } from './fields';

export const FIRMWARE_COMPONENT_FIELDS = {
  node_uuid: t.uuid(),
  component: t.string(),
  initial_version: t.string(),
  current_version: t.string({ nullable: true }),
  last_version_flashed: t.string({ nullable: true }),
  // 1.1 (API 1.114): the hardware's identity, where the BMC tells it (Ironic's FirmwareComponent 1.2).
  vendor: t.string({ nullable: true }),
  model: t.string({ nullable: true }),
  serial_number: t.string({ nullable: true }),
  created_at: t.datetime(),
  updated_at: t.datetime({ nullable: true }),
} as const;

export type FirmwareComponentData = FieldValues<typeof FIRMWARE_COMPONENT_FIELDS>;

/** A component as a firmware interface reads it from the hardware. */
export interface FirmwareComponentReading {
  readonly component: string;
  readonly current_version: string;
  /** The component's maker, model and serial number where the hardware reports them. */
  readonly vendor?: string | null;
  readonly model?: string | null;
  readonly serial_number?: string | null;
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- field accessors are installed at runtime
export interface FirmwareComponent extends FirmwareComponentData {}

// Version 1.0: initial version (Ironic's FirmwareComponent 1.1 fields, the node referenced by UUID).
// Version 1.1: vendor, model and serial_number (Ironic's 1.2, API 1.114); null in older items.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class FirmwareComponent extends VersionedObject {
  static override readonly objName = 'FirmwareComponent';
  static override readonly VERSION = '1.1';
  static override readonly fields = FIRMWARE_COMPONENT_FIELDS;
  static override readonly history: readonly VersionStep[] = [
    { version: '1.0' },
    { version: '1.1', added: ['vendor', 'model', 'serial_number'] },
  ];
}
