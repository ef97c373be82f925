/**
 * The runbook as the API shows it (Ironic master's runbook `convert_with_links`): each step as
 * interface, step, args, order, with secrets in the arguments masked; `description` and `traits`
 * from 1.112.
 */
import type { Runbook } from '#objects/runbook';
import type { ApiVersion } from '../microversion';
import { atLeast } from '../microversion';
import { pyTruthy } from '../pyrepr';
import { checkInvalidFields, selectFields } from '../resource-list';
import { selfAndBookmark } from './links';
import { maskPasswords } from './sanitize';
import { isoTime } from './time';

/** What a list shows without `fields` or `detail` (Ironic's DEFAULT_RETURN_FIELDS). */
export const RUNBOOK_LIST_FIELDS = ['uuid', 'name'];

/** Whether the version knows runbook traits and descriptions (1.112). */
export const allowRunbookTraits = (version: ApiVersion): boolean => atLeast(version, 112);

export function runbookView(
  runbook: Runbook,
  options: { baseUrl: string; version: ApiVersion; fields?: readonly string[] | undefined },
): Record<string, unknown> {
  const withTraits = allowRunbookTraits(options.version);
  const out: Record<string, unknown> = {
    uuid: runbook.uuid,
    created_at: isoTime(runbook.created_at),
    updated_at: isoTime(runbook.updated_at),
    name: runbook.name,
    ...(withTraits ? { description: runbook.description } : {}),
    extra: runbook.extra ?? {},
    public: runbook.public,
    owner: runbook.owner,
    disable_ramdisk: runbook.disable_ramdisk,
    links: selfAndBookmark(options.baseUrl, 'runbooks', runbook.uuid),
    steps: (runbook.steps ?? []).map((s) => ({ interface: s.interface, step: s.step, args: s.args, order: s.order })),
    ...(withTraits ? { traits: [...runbook.traits] } : {}),
  };
  checkInvalidFields(options.fields, Object.keys(out));
  const view = selectFields(out, options.fields);
  if (Array.isArray(view.steps)) {
    for (const step of view.steps as Record<string, unknown>[]) {
      if (pyTruthy(step.args)) step.args = maskPasswords(step.args as Record<string, unknown>);
    }
  }
  return view;
}
