/**
 * An inspection rule as the API shows it (Ironic's inspection rule `convert_with_links`): each
 * condition as op and args (with loop and multiple when it loops), each action as op and args
 * (with loop). A `sensitive` rule shows neither its conditions nor its actions (null), in lists
 * and alone. Links point to /v1/inspection_rules as Ironic's api-ref shows them.
 */
import type { Dict } from '#objects/fields';
import type { InspectionRule } from '#objects/inspection-rule';
import { checkInvalidFields, selectFields } from '../resource-list';
import { selfAndBookmark } from './links';
import { isoTime } from './time';

export const RULE_VIEW_FIELDS = [
  'created_at',
  'updated_at',
  'uuid',
  'links',
  'description',
  'priority',
  'sensitive',
  'phase',
  'conditions',
  'actions',
] as const;

/** What a list shows without `fields` or `detail` (Ironic's DEFAULT_RETURN_FIELDS). */
export const RULE_LIST_FIELDS = ['uuid', 'priority', 'phase', 'description'];

const hasLoop = (loop: unknown): boolean =>
  Array.isArray(loop) ? loop.length > 0 : loop !== null && typeof loop === 'object' && Object.keys(loop).length > 0;

function conditionView(c: Dict): Dict {
  return hasLoop(c.loop) ? { op: c.op, args: c.args, loop: c.loop, multiple: c.multiple ?? 'any' } : { op: c.op, args: c.args };
}

function actionView(a: Dict): Dict {
  return hasLoop(a.loop) ? { op: a.op, args: a.args, loop: a.loop } : { op: a.op, args: a.args };
}

export function inspectionRuleView(
  rule: InspectionRule,
  options: { baseUrl: string; fields?: readonly string[] | undefined },
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    created_at: isoTime(rule.created_at),
    updated_at: isoTime(rule.updated_at),
    uuid: rule.uuid,
    links: selfAndBookmark(options.baseUrl, 'inspection_rules', rule.uuid),
    description: rule.description ?? null,
    priority: rule.priority ?? 0,
    sensitive: rule.sensitive ?? false,
    phase: rule.phase ?? null,
    conditions: (rule.conditions ?? []).map(conditionView),
    actions: (rule.actions ?? []).map(actionView),
  };
  checkInvalidFields(options.fields, RULE_VIEW_FIELDS);
  if (rule.sensitive) {
    out.conditions = null;
    out.actions = null;
  }
  return selectFields(out, options.fields);
}
