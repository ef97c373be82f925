/**
 * A deploy template, after Ironic's `ironic/objects/deploy_template.py` (21.4: DeployTemplate
 * 1.1): deploy steps a node runs when one of its traits matches the template's `name`, which is
 * unique. Ironic keeps the steps in their own table; here they are a list on the template item
 * (each `{interface, step, args, priority}`), read and written with it.
 */
import { VersionedObject, type VersionStep } from './base';
import { type FieldValues, t } from './fields';

export const DEPLOY_TEMPLATE_FIELDS = {
  uuid: t.uuid(),
  name: t.string(),
  steps: t.dictList({ default: [] }),
  extra: t.dict({ default: {} }),
  created_at: t.datetime(),
  updated_at: t.datetime({ nullable: true }),
} as const;

export type DeployTemplateData = FieldValues<typeof DEPLOY_TEMPLATE_FIELDS>;

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- field accessors are installed at runtime
export interface DeployTemplate extends DeployTemplateData {}

// Version 1.0: initial version (Ironic's DeployTemplate 1.1 fields, steps inline).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class DeployTemplate extends VersionedObject {
  static override readonly objName = 'DeployTemplate';
  static override readonly VERSION = '1.0';
  static override readonly fields = DEPLOY_TEMPLATE_FIELDS;
  static override readonly history: readonly VersionStep[] = [{ version: '1.0' }];
}
