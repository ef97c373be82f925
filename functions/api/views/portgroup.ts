/**
 * The portgroup as the API shows it (Ironic 21.4's portgroup `convert_with_links`). Ironic shows
 * `mode` and `properties` at every version; only a request naming them needs 1.26. The fields of
 * 1.102–1.111 are shown from their version on, in every response (Ironic master's lists forget to
 * hide them; its api-ref gives their versions).
 */
import { NotAcceptable } from '#common/errors';
import type { Portgroup } from '#objects/portgroup';
import { type ApiVersion, atLeast } from '../microversion';
import { PORT_NAME_VERSION, PORT_VERSIONS } from '../schemas/port';
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
  'physical_network',
  'category',
  'dynamic_portgroup',
  'links',
  'ports',
] as const;

/**
 * Portgroup fields of API 1.102–1.111. Below 1.88 they are unknown fields (400), as the 2026.3
 * release answered; from 1.88 up to their version they are newer fields (406), and hidden.
 */
export const PORTGROUP_MASTER_FIELD_VERSIONS: Readonly<Record<string, number>> = {
  physical_network: PORT_VERSIONS.portgroupPhysicalNetwork,
  category: PORT_VERSIONS.portgroupCategory,
  dynamic_portgroup: PORT_VERSIONS.dynamicPortgroup,
};

const PORTGROUP_VIEW_FIELDS_1_1 = PORTGROUP_VIEW_FIELDS.filter((f) => !(f in PORTGROUP_MASTER_FIELD_VERSIONS));

function viewFields(version: ApiVersion): readonly string[] {
  return atLeast(version, PORT_NAME_VERSION) ? PORTGROUP_VIEW_FIELDS : PORTGROUP_VIEW_FIELDS_1_1;
}

export const PORTGROUP_LIST_FIELDS = ['uuid', 'address', 'name'];

const DICTS = new Set(['extra', 'internal_info', 'properties']);

/**
 * 406 when `mode` or `properties` is named before 1.26 (Ironic's check_allowed_portgroup_fields),
 * or, from 1.88 on, a field of 1.102–1.111 before its version.
 */
export function checkPortgroupFieldVersions(fields: Iterable<string> | undefined, version: ApiVersion): void {
  if (fields === undefined) return;
  for (const field of fields) {
    if ((field === 'mode' || field === 'properties') && !atLeast(version, 26)) throw new NotAcceptable('Request not acceptable.');
    const minor = PORTGROUP_MASTER_FIELD_VERSIONS[field];
    if (minor !== undefined && atLeast(version, PORT_NAME_VERSION) && !atLeast(version, minor)) {
      throw new NotAcceptable('Request not acceptable.');
    }
  }
}

export function portgroupView(
  pg: Portgroup,
  options: { baseUrl: string; version: ApiVersion; fields?: readonly string[] | undefined },
): Record<string, unknown> {
  const data = pg as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const shown = viewFields(options.version).filter((f) => {
    const minor = PORTGROUP_MASTER_FIELD_VERSIONS[f];
    return minor === undefined || atLeast(options.version, minor);
  });
  for (const field of shown) {
    if (field === 'links') out.links = selfAndBookmark(options.baseUrl, 'portgroups', pg.uuid);
    else if (field === 'ports') out.ports = selfAndBookmark(options.baseUrl, 'portgroups', `${pg.uuid}/ports`);
    else {
      let value = data[field];
      if (field === 'created_at' || field === 'updated_at') value = isoTime(value as string | null);
      if ((value === null || value === undefined) && DICTS.has(field)) value = {};
      out[field] = value ?? null;
    }
  }
  checkInvalidFields(options.fields, viewFields(options.version));
  return selectFields(out, options.fields);
}
