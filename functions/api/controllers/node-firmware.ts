/**
 * `/v1/nodes/{node}/firmware` (1.86, Ironic's NodeFirmwareController): the node's firmware
 * components as its firmware interface last cached them, each with `component`,
 * `initial_version`, `current_version` and `last_version_flashed` besides its timestamps, and
 * from 1.114 its `vendor`, `model` and `serial_number`. `fields` picks among them; naming the
 * identity fields below 1.114 is refused with Ironic's message. Below 1.86 the path does not exist.
 */
import { InvalidParameterValue, httpErrors } from '#common/errors';
import type { FirmwareComponent } from '#objects/firmware-component';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json } from '../http';
import { findNode } from '../lookup';
import { atLeast } from '../microversion';
import { arg, defineQuery } from '../request';
import { route } from '../route';
import { isoTime } from '../views/time';

export const FIRMWARE_VERSION = 86;
/** Ironic's MINOR_114_FIRMWARE_IDENTITY: the identity fields. */
const FIRMWARE_IDENTITY_VERSION = 114;

const DEFAULT_FIELDS = ['component', 'initial_version', 'current_version', 'last_version_flashed'] as const;
const IDENTITY_FIELDS = ['vendor', 'model', 'serial_number'] as const;
/** What the query schema lets `fields` name. */
const SELECTABLE = new Set<string>(['created_at', 'updated_at', ...DEFAULT_FIELDS, ...IDENTITY_FIELDS]);

/** One component as Ironic's object_to_dict shows it: the timestamps, then the fields asked for. */
export function firmwareComponentView(component: FirmwareComponent, fields: readonly string[]): Record<string, unknown> {
  const values = component.values();
  const out: Record<string, unknown> = { created_at: isoTime(component.created_at), updated_at: isoTime(component.updated_at) };
  for (const field of fields) {
    if (field === 'created_at' || field === 'updated_at') continue;
    out[field] = values[field] ?? null;
  }
  return out;
}

/** Ironic's checks of `fields` and `detail`, in its order, and the fields they leave to show. */
function returnFields(detail: boolean | undefined, fields: string[] | undefined, identity: boolean): readonly string[] {
  if (fields !== undefined) {
    const unknown = fields.filter((field) => !SELECTABLE.has(field));
    // NOTE: Ironic's query schema refuses these with jsonschema's wording; this is the message of its other resources.
    if (unknown.length > 0) throw new InvalidParameterValue(`Field(s) "${unknown.join(', ')}" are not valid`);
    const refused = identity ? [] : fields.filter((field) => (IDENTITY_FIELDS as readonly string[]).includes(field)).sort();
    if (refused.length > 0) {
      throw new InvalidParameterValue(
        `Fields ${refused.join(', ')} are not allowed in this API version. They require at least API version 1.${FIRMWARE_IDENTITY_VERSION}.`,
      );
    }
    if (detail === true) throw new InvalidParameterValue('Can not specify ?detail=True and fields in the same request.');
    return fields;
  }
  // As Ironic: detail=True without fields asks for no field, so only the timestamps show.
  if (detail === true) return [];
  return identity ? [...DEFAULT_FIELDS, ...IDENTITY_FIELDS] : DEFAULT_FIELDS;
}

const FirmwareQuery = defineQuery({ detail: arg.boolean(), fields: arg.stringList() });

export async function listFirmwareComponents(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  if (!atLeast(req.version, FIRMWARE_VERSION)) throw httpErrors.notFound('The API version does not allow node firmware');
  const { detail, fields } = FirmwareQuery.read(req);
  const node = await findNode(req, ctx, params.ident);
  const shown = returnFields(detail, fields, atLeast(req.version, FIRMWARE_IDENTITY_VERSION));
  const components = await ctx.stores.firmwareComponents.list(node.uuid);
  return json(200, { firmware: components.map((c) => firmwareComponentView(c, shown)) });
}

export const NODE_FIRMWARE_ROUTES = [route('GET', '/v1/nodes/:ident/firmware', listFirmwareComponents)];
