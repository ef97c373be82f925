/**
 * The port as the API shows it, per microversion (Ironic 21.4's port `convert_with_links` and
 * `hide_fields_in_newer_versions`): which fields exist at a version, the `fields` selection and
 * the links.
 */
import { NotAcceptable } from '#common/errors';
import type { Port } from '#objects/port';
import { type ApiVersion, atLeast } from '../microversion';
import { checkInvalidFields, selectFields } from '../resource-list';
import { PORT_NAME_VERSION } from '../schemas/port';
import { selfAndBookmark } from './links';
import { isoTime } from './time';

/** Port fields that appeared after 1.1, with the minor version that added them. */
export const PORT_FIELD_VERSIONS: Readonly<Record<string, number>> = {
  internal_info: 18,
  pxe_enabled: 19,
  local_link_connection: 19,
  portgroup_uuid: 24,
  physical_network: 34,
  is_smartnic: 53,
};

/** Every key of a port's view, in Ironic's order (what `fields=` may name). */
export const PORT_VIEW_FIELDS = [
  'uuid',
  'created_at',
  'updated_at',
  'address',
  'extra',
  'internal_info',
  'is_smartnic',
  'local_link_connection',
  'physical_network',
  'pxe_enabled',
  'node_uuid',
  'name',
  'links',
  'portgroup_uuid',
] as const;

/** Fields of `GET /v1/ports` without `detail` or `fields`. */
export const PORT_LIST_FIELDS = ['uuid', 'address'];

const DICTS = new Set(['extra', 'internal_info', 'local_link_connection']);

/**
 * The fields a port has at a version. `name` (1.88) is not in PORT_FIELD_VERSIONS: below 1.88 it
 * is an unknown field (400), as Ironic 21.4 and the 2026.3 release answer, not a newer one (406).
 */
function viewFields(version: ApiVersion): readonly string[] {
  return atLeast(version, PORT_NAME_VERSION) ? PORT_VIEW_FIELDS : PORT_VIEW_FIELDS.filter((f) => f !== 'name');
}

export function portFieldAllowed(field: string, version: ApiVersion): boolean {
  const minor = PORT_FIELD_VERSIONS[field];
  return minor === undefined || atLeast(version, minor);
}

/**
 * 406 when fields (a `fields=` selection, a sort key, or fields a request sets) include one newer
 * than the version (Ironic's `_check_allowed_port_fields`). `local_link_connection/network_type`
 * needs 1.64, above every version checked here only as a path.
 */
export function checkPortFieldVersions(fields: Iterable<string> | undefined, version: ApiVersion): void {
  if (fields === undefined) return;
  for (const field of fields) {
    if (!portFieldAllowed(field, version)) throw new NotAcceptable('Request not acceptable.');
    if (field === 'local_link_connection/network_type' && !atLeast(version, 64)) throw new NotAcceptable('Request not acceptable.');
  }
}

export interface PortViewOptions {
  readonly baseUrl: string;
  readonly version: ApiVersion;
  readonly fields?: readonly string[] | undefined;
}

export function portView(port: Port, options: PortViewOptions): Record<string, unknown> {
  const data = port as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field of viewFields(options.version)) {
    if (field === 'links') {
      out.links = selfAndBookmark(options.baseUrl, 'ports', port.uuid);
      continue;
    }
    let value = data[field];
    if (field === 'created_at' || field === 'updated_at') value = isoTime(value as string | null);
    if ((value === null || value === undefined) && DICTS.has(field)) value = {};
    out[field] = value ?? null;
  }
  checkInvalidFields(options.fields, viewFields(options.version));
  for (const field of Object.keys(PORT_FIELD_VERSIONS)) if (!portFieldAllowed(field, options.version)) delete out[field];
  return selectFields(out, options.fields);
}
