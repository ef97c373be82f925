/**
 * A runbook, after Ironic's `ironic/objects/runbook.py` (master: Runbook 1.2): a named list of
 * steps a project may run on a node as a manual clean or a service, in place of the steps
 * themselves. `name` is unique. A node may run it when it carries one of the runbook's `traits`
 * (API 1.112), or a trait equal to its name (the rule below 1.112). Ironic keeps steps and traits
 * in their own tables; here both are lists on the runbook item, read and written with it.
 */
import { VersionedObject, type VersionStep } from './base';
import { type FieldValues, t } from './fields';

export const RUNBOOK_FIELDS = {
  uuid: t.uuid(),
  name: t.string(),
  description: t.string({ nullable: true }),
  // Each {interface, step, args, order}, in the order they run.
  steps: t.dictList({ default: [] }),
  disable_ramdisk: t.boolean({ default: false }),
  extra: t.dict({ default: {} }),
  public: t.boolean({ default: false }),
  owner: t.string({ nullable: true }),
  // Sorted and unique.
  traits: t.stringList({ default: [] }),
  created_at: t.datetime(),
  updated_at: t.datetime({ nullable: true }),
} as const;

export type RunbookData = FieldValues<typeof RUNBOOK_FIELDS>;

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- field accessors are installed at runtime
export interface Runbook extends RunbookData {}

// Version 1.0: initial version (Ironic's Runbook 1.2 fields: description and traits included;
// steps and traits inline).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class Runbook extends VersionedObject {
  static override readonly objName = 'Runbook';
  static override readonly VERSION = '1.0';
  static override readonly fields = RUNBOOK_FIELDS;
  static override readonly history: readonly VersionStep[] = [{ version: '1.0' }];
}
