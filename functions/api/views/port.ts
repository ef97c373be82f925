/**
 * The port as the API shows it, per microversion (Ironic 21.4's port `convert_with_links` and
 * `hide_fields_in_newer_versions`): which fields exist at a version, the `fields` selection and
 * the links.
 */
import { NotAcceptable } from '#common/errors';
import type { Port } from '#objects/port';
import { type ApiVersion, atLeast } from '../microversion';
import { checkInvalidFields, selectFields } from '../resource-list';
import { PORT_NAME_VERSION, PORT_VERSIONS, allowOvnVtep, hasOvnVtep } from '../schemas/port';
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

/**
 * Port fields of API 1.97–1.111. Below 1.88 they are unknown fields (400), as `name` is; from 1.88
 * up to their version they are newer fields (406).
 */
export const PORT_MASTER_FIELD_VERSIONS: Readonly<Record<string, number>> = {
  description: PORT_VERSIONS.description,
  vendor: PORT_VERSIONS.vendor,
  category: PORT_VERSIONS.category,
  available_for_dynamic_portgroup: PORT_VERSIONS.dynamicPortgroup,
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
  'description',
  'vendor',
  'category',
  'available_for_dynamic_portgroup',
  'links',
  'portgroup_uuid',
] as const;

const PORT_VIEW_FIELDS_1_1 = PORT_VIEW_FIELDS.filter((f) => f !== 'name' && !(f in PORT_MASTER_FIELD_VERSIONS));

/** Fields of `GET /v1/ports` without `detail` or `fields`. */
export const PORT_LIST_FIELDS = ['uuid', 'address'];

const DICTS = new Set(['extra', 'internal_info', 'local_link_connection']);

/**
 * The fields a port has at a version. `name` (1.88) is not in PORT_FIELD_VERSIONS: below 1.88 it
 * is an unknown field (400), as Ironic 21.4 and the 2026.3 release answer, not a newer one (406).
 */
function viewFields(version: ApiVersion): readonly string[] {
  return atLeast(version, PORT_NAME_VERSION) ? PORT_VIEW_FIELDS : PORT_VIEW_FIELDS_1_1;
}

export function portFieldAllowed(field: string, version: ApiVersion): boolean {
  const minor = PORT_FIELD_VERSIONS[field] ?? PORT_MASTER_FIELD_VERSIONS[field];
  return minor === undefined || atLeast(version, minor);
}

/** A field newer than the version, 406: the fields of 1.97–1.111 only from 1.88 on (unknown below). */
function portFieldTooNew(field: string, version: ApiVersion): boolean {
  if (field in PORT_MASTER_FIELD_VERSIONS && !atLeast(version, PORT_NAME_VERSION)) return false;
  return !portFieldAllowed(field, version);
}

/**
 * 406 when fields (a `fields=` selection, a sort key, or fields a request sets) include one newer
 * than the version (Ironic's `_check_allowed_port_fields`). `local_link_connection/network_type`
 * needs 1.64, above every version checked here only as a path.
 */
export function checkPortFieldVersions(fields: Iterable<string> | undefined, version: ApiVersion): void {
  if (fields === undefined) return;
  for (const field of fields) {
    if (portFieldTooNew(field, version)) throw new NotAcceptable('Request not acceptable.');
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
    // An OVN VTEP link shows as {} outside 1.90–1.104, as Ironic shows it.
    if (field === 'local_link_connection' && !allowOvnVtep(options.version) && hasOvnVtep(value)) value = {};
    out[field] = value ?? null;
  }
  checkInvalidFields(options.fields, viewFields(options.version));
  for (const field of [...Object.keys(PORT_FIELD_VERSIONS), ...Object.keys(PORT_MASTER_FIELD_VERSIONS)]) {
    if (!portFieldAllowed(field, options.version)) delete out[field];
  }
  return selectFields(out, options.fields);
}
