/**
 * `/v1/nodes/{node}/bios` (1.40, Ironic's NodeBiosController): the node's BIOS settings as its bios
 * interface last cached them. A setting shows `name` and `value` (with created_at, updated_at and
 * links); from 1.74 the single setting and `detail=True` add the attribute registry's fields, and
 * `fields` picks among them. Below 1.40 the path does not exist.
 */
import { InvalidParameterValue, httpErrors } from '#common/errors';
import { BIOS_REGISTRY_FIELDS, type BIOSSetting } from '#objects/bios-setting';
import { pyStr } from '#common/pyrepr';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json } from '../http';
import { findNode } from '../lookup';
import { atLeast } from '../microversion';
import { isValidLogicalName } from '../names';
import { NO_QUERY, arg, defineQuery } from '../request';
import { route } from '../route';
import { selfAndBookmark } from '../views/links';
import { isoTime } from '../views/time';

export const BIOS_VERSION = 40;
/** `detail`, `fields` and the registry fields (Ironic's MINOR_74_BIOS_REGISTRY). */
export const BIOS_REGISTRY_VERSION = 74;

const STANDARD_FIELDS = ['name', 'value'] as const;
const REGISTRY_VIEW = [...STANDARD_FIELDS, ...BIOS_REGISTRY_FIELDS] as const;
/** What `fields` may name: the object's fields Ironic's view can show. */
const SELECTABLE = new Set<string>(['created_at', 'updated_at', ...REGISTRY_VIEW]);

/** One setting as Ironic's `convert_with_links` shows it: the timestamps, the fields asked for, links. */
export function biosSettingView(
  baseUrl: string,
  nodeIdent: string,
  setting: BIOSSetting,
  fields: readonly string[],
): Record<string, unknown> {
  const values = setting.values();
  const out: Record<string, unknown> = { created_at: isoTime(setting.created_at), updated_at: isoTime(setting.updated_at) };
  for (const field of fields) {
    if (field === 'created_at' || field === 'updated_at') continue;
    // Ironic's object_to_dict shows an empty list of strings as [] rather than null.
    out[field] = field === 'allowable_values' ? (values[field] ?? []) : (values[field] ?? null);
  }
  out.links = selfAndBookmark(baseUrl, 'nodes', `${nodeIdent}/bios/${setting.name}`);
  return out;
}

function requireVersion(req: ApiRequest): void {
  if (!atLeast(req.version, BIOS_VERSION)) throw httpErrors.notFound();
}

/** Ironic's get_request_return_fields with allow_query_bios for both checks. */
function returnFields(req: ApiRequest, detail: boolean | undefined, fields: string[] | undefined): readonly string[] {
  const allowed = atLeast(req.version, BIOS_REGISTRY_VERSION);
  if (detail !== undefined && !allowed)
    throw new InvalidParameterValue(`Invalid query parameter ?detail=${detail ? 'True' : 'False'} received.`);
  if (fields !== undefined && !allowed) throw new InvalidParameterValue(`Invalid query parameter ?fields=${pyStr(fields)} received.`);
  if (fields !== undefined && detail === true)
    throw new InvalidParameterValue('Can not specify ?detail=True and fields in the same request.');
  if (detail === true) return REGISTRY_VIEW;
  if (fields === undefined) return STANDARD_FIELDS;
  // NOTE: Ironic 21.4 fails with a 500 on a name that is no field of the object; this is its 400 of other resources.
  const invalid = fields.filter((field) => !SELECTABLE.has(field));
  if (invalid.length > 0) throw new InvalidParameterValue(`Field(s) "${invalid.join(', ')}" are not valid`);
  return fields;
}

const BiosQuery = defineQuery({ detail: arg.boolean(), fields: arg.stringList() });

export async function listBiosSettings(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  requireVersion(req);
  const { detail, fields } = BiosQuery.read(req);
  const node = await findNode(req, ctx, params.ident);
  const shown = returnFields(req, detail, fields);
  const settings = await ctx.stores.biosSettings.list(node.uuid);
  // As Ironic: the links name the node as the request did.
  return json(200, { bios: settings.map((s) => biosSettingView(req.baseUrl, params.ident, s, shown)) });
}

export async function getBiosSetting(req: ApiRequest, ctx: ApiContext, params: { ident: string; setting: string }): Promise<ApiResponse> {
  requireVersion(req);
  NO_QUERY.read(req);
  if (!isValidLogicalName(params.setting, req.version))
    throw new InvalidParameterValue(`Expected name for setting_name: ${params.setting}`);
  const node = await findNode(req, ctx, params.ident);
  const setting = await ctx.stores.biosSettings.get(node.uuid, params.setting);
  const shown = atLeast(req.version, BIOS_REGISTRY_VERSION) ? REGISTRY_VIEW : STANDARD_FIELDS;
  return json(200, { [params.setting]: biosSettingView(req.baseUrl, node.uuid, setting, shown) });
}

export const NODE_BIOS_ROUTES = [
  route('GET', '/v1/nodes/:ident/bios', listBiosSettings),
  route('GET', '/v1/nodes/:ident/bios/:setting', getBiosSetting),
];
