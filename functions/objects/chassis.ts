/** A chassis holding nodes, after Ironic's `ironic/objects/chassis.py` (21.4: Chassis 1.3). */
import { VersionedObject, type VersionStep } from './base';
import { type FieldValues, t } from './fields';

export const CHASSIS_FIELDS = {
  uuid: t.uuid(),
  extra: t.dict({ default: {} }),
  description: t.string({ nullable: true }),
  created_at: t.datetime(),
  updated_at: t.datetime({ nullable: true }),
} as const;

export type ChassisData = FieldValues<typeof CHASSIS_FIELDS>;

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- field accessors are installed at runtime
export interface Chassis extends ChassisData {}

// Version 1.0: initial version (Ironic's Chassis 1.3 fields).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class Chassis extends VersionedObject {
  static override readonly objName = 'Chassis';
  static override readonly VERSION = '1.0';
  static override readonly fields = CHASSIS_FIELDS;
  static override readonly history: readonly VersionStep[] = [{ version: '1.0' }];
}
