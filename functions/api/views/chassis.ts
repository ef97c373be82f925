/**
 * The chassis as the API shows it (Ironic 21.4's chassis `convert_with_links`). Its `nodes` links
 * come wrapped in a second list: Ironic 21.4 builds them as a one-element tuple (a trailing comma),
 * and clients have lived with that shape, so it is kept.
 */
import type { Chassis } from '#objects/chassis';
import { checkInvalidFields, selectFields } from '../resource-list';
import { selfAndBookmark } from './links';
import { isoTime } from './time';

export const CHASSIS_VIEW_FIELDS = ['uuid', 'created_at', 'updated_at', 'description', 'extra', 'links', 'nodes'] as const;

export const CHASSIS_LIST_FIELDS = ['uuid', 'description'];

export function chassisView(
  chassis: Chassis,
  options: { baseUrl: string; fields?: readonly string[] | undefined },
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    uuid: chassis.uuid,
    created_at: isoTime(chassis.created_at),
    updated_at: isoTime(chassis.updated_at),
    description: chassis.description ?? null,
    extra: chassis.extra ?? {},
    links: selfAndBookmark(options.baseUrl, 'chassis', chassis.uuid),
    nodes: [selfAndBookmark(options.baseUrl, 'chassis', `${chassis.uuid}/nodes`)],
  };
  checkInvalidFields(options.fields, CHASSIS_VIEW_FIELDS);
  return selectFields(out, options.fields);
}
