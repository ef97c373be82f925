/**
 * The portgroup as the API shows it (Ironic 21.4's portgroup `convert_with_links`). Ironic shows
 * `mode` and `properties` at every version; only a request naming them needs 1.26.
 */
import { NotAcceptable } from '#common/errors';
import type { Portgroup } from '#objects/portgroup';
import { type ApiVersion, atLeast } from '../microversion';
import { checkInvalidFields, selectFields } from '../resource-list';
import { selfAndBookmark } from './links';
import { isoTime } from './time';

export const PORTGROUP_VIEW_FIELDS = [
  'uuid',
  'created_at',
  'updated_at',
  'address',
  'extra',
  'internal_info',
  'mode',
  'name',
  'properties',
  'standalone_ports_supported',
  'node_uuid',
  'links',
  'ports',
] as const;

export const PORTGROUP_LIST_FIELDS = ['uuid', 'address', 'name'];

const DICTS = new Set(['extra', 'internal_info', 'properties']);

/** 406 when `mode` or `properties` is named before 1.26 (Ironic's check_allowed_portgroup_fields). */
export function checkPortgroupFieldVersions(fields: Iterable<string> | undefined, version: ApiVersion): void {
  if (fields === undefined || atLeast(version, 26)) return;
  for (const field of fields) if (field === 'mode' || field === 'properties') throw new NotAcceptable('Request not acceptable.');
}

export function portgroupView(
  pg: Portgroup,
  options: { baseUrl: string; fields?: readonly string[] | undefined },
): Record<string, unknown> {
  const data = pg as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field of PORTGROUP_VIEW_FIELDS) {
    if (field === 'links') out.links = selfAndBookmark(options.baseUrl, 'portgroups', pg.uuid);
    else if (field === 'ports') out.ports = selfAndBookmark(options.baseUrl, 'portgroups', `${pg.uuid}/ports`);
    else {
      let value = data[field];
      if (field === 'created_at' || field === 'updated_at') value = isoTime(value as string | null);
      if ((value === null || value === undefined) && DICTS.has(field)) value = {};
      out[field] = value ?? null;
    }
  }
  checkInvalidFields(options.fields, PORTGROUP_VIEW_FIELDS);
  return selectFields(out, options.fields);
}
