/**
 * The deploy template as the API shows it (Ironic 21.4's deploy template `convert_with_links`):
 * each step as interface, step, args, priority, with secrets in the arguments masked.
 */
import type { DeployTemplate } from '#objects/deploy-template';
import { checkInvalidFields, selectFields } from '../resource-list';
import { selfAndBookmark } from './links';
import { pyTruthy } from '../pyrepr';
import { maskPasswords } from './sanitize';
import { isoTime } from './time';

export const TEMPLATE_VIEW_FIELDS = ['uuid', 'created_at', 'updated_at', 'name', 'extra', 'links', 'steps'] as const;

export const TEMPLATE_LIST_FIELDS = ['uuid', 'name'];

export function deployTemplateView(
  template: DeployTemplate,
  options: { baseUrl: string; fields?: readonly string[] | undefined },
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    uuid: template.uuid,
    created_at: isoTime(template.created_at),
    updated_at: isoTime(template.updated_at),
    name: template.name,
    extra: template.extra ?? {},
    links: selfAndBookmark(options.baseUrl, 'deploy_templates', template.uuid),
    steps: (template.steps ?? []).map((s) => ({ interface: s.interface, step: s.step, args: s.args, priority: s.priority })),
  };
  checkInvalidFields(options.fields, TEMPLATE_VIEW_FIELDS);
  const view = selectFields(out, options.fields);
  if (Array.isArray(view.steps)) {
    for (const step of view.steps as Record<string, unknown>[]) {
      if (pyTruthy(step.args)) step.args = maskPasswords(step.args as Record<string, unknown>);
    }
  }
  return view;
}
