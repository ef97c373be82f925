/**
 * An inspection rule, after Ironic's `ironic/objects/inspection_rule.py` (InspectionRule 1.1):
 * conditions checked against what inspection found and actions run on the node when all of them
 * hold. Rules of a phase (only `main` exists) run in order of priority, highest first. `sensitive`
 * rules are never shown with their conditions and actions. Ironic's `scope` column is kept though
 * its API sets none.
 */
import { VersionedObject, type VersionStep } from './base';
import { type FieldValues, t } from './fields';

export const INSPECTION_RULE_FIELDS = {
  uuid: t.uuid(),
  priority: t.integer({ default: 0 }),
  description: t.string({ nullable: true }),
  sensitive: t.boolean({ default: false }),
  phase: t.string({ nullable: true, default: 'main' }),
  scope: t.string({ nullable: true }),
  actions: t.dictList({ default: [] }),
  conditions: t.dictList({ nullable: true }),
  created_at: t.datetime(),
  updated_at: t.datetime({ nullable: true }),
} as const;

export type InspectionRuleData = FieldValues<typeof INSPECTION_RULE_FIELDS>;

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- field accessors are installed at runtime
export interface InspectionRule extends InspectionRuleData {}

// Version 1.0: initial version (Ironic's InspectionRule 1.1 fields). New after release 2026.3.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class InspectionRule extends VersionedObject {
  static override readonly objName = 'InspectionRule';
  static override readonly VERSION = '1.0';
  static override readonly fields = INSPECTION_RULE_FIELDS;
  static override readonly history: readonly VersionStep[] = [{ version: '1.0' }];
}
