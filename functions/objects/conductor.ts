/**
 * A registered conductor, after Ironic's `ironic/objects/conductor.py` (21.4: Conductor 1.3). In
 * Ironless a conductor is a published version of the conductor function ("conductor:<version>"),
 * so `hostname` is the key. `online` is Ironic's database column that its object does not expose
 * (registration and unregistration flip it); it is a field here because the store is the object's
 * only persistence. `updated_at` is the heartbeat, as in Ironic's `touch()`.
 */
import { VersionedObject, type VersionStep } from './base';
import { type FieldValues, t } from './fields';

export const CONDUCTOR_FIELDS = {
  hostname: t.string(),
  conductor_group: t.string({ default: '' }),
  // Deprecated in Ironic (classic drivers); kept for its API's conductor view.
  drivers: t.stringList({ nullable: true }),
  online: t.boolean({ default: true }),
  created_at: t.datetime(),
  updated_at: t.datetime({ nullable: true }),
} as const;

export type ConductorData = FieldValues<typeof CONDUCTOR_FIELDS>;

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- field accessors are installed at runtime
export interface Conductor extends ConductorData {}

// Version 1.0: initial version (Ironic's Conductor 1.3 fields and its `online` column).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class Conductor extends VersionedObject {
  static override readonly objName = 'Conductor';
  static override readonly VERSION = '1.0';
  static override readonly fields = CONDUCTOR_FIELDS;
  static override readonly history: readonly VersionStep[] = [{ version: '1.0' }];
}
