/**
 * `/v1/drivers` (Ironic's DriversController): the hardware types live conductors serve, with the
 * hostnames serving each; `detail` (1.30) adds each interface's default and enabled
 * implementations; `/properties` lists the `driver_info` a type understands. Classic drivers are
 * gone since Rocky, so `type=classic` is always empty.
 */
import { DriverNotFound, Invalid, InvalidParameterValue, NotAcceptable } from '#common/errors';
import { getHardwareType } from '#drivers/registry';
import { driverProperties } from '#drivers/properties';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json } from '../http';
import { atLeast } from '../microversion';
import { NO_QUERY, arg, defineQuery } from '../request';
import { route } from '../route';
import { selfAndBookmark } from '../views/links';

/** Ironic's interface types, in its order (firmware from 1.86). */
const INTERFACES = [
  'bios',
  'boot',
  'console',
  'deploy',
  'firmware',
  'inspect',
  'management',
  'network',
  'power',
  'raid',
  'rescue',
  'storage',
  'vendor',
];
/** Interfaces whose fields appear from a version on (Ironic's hide_fields_in_newer_versions). */
const INTERFACE_VERSIONS: Readonly<Record<string, number>> = { storage: 33, rescue: 38, bios: 40, firmware: 86 };

function checkFieldsVersion(req: ApiRequest, fields: readonly string[] | undefined): void {
  if (fields !== undefined && !atLeast(req.version, 77)) throw new NotAcceptable('Request not acceptable.');
}

export function driverView(
  req: ApiRequest,
  name: string,
  hosts: readonly string[],
  detail: boolean,
  fields?: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = { name, hosts: [...hosts], links: selfAndBookmark(req.baseUrl, 'drivers', name) };
  if (atLeast(req.version, 14)) out.properties = selfAndBookmark(req.baseUrl, 'drivers', `${name}/properties`);
  if (atLeast(req.version, 30)) {
    out.type = 'dynamic';
    if (detail) {
      const supported = getHardwareType(name).supported as Readonly<Record<string, readonly string[] | undefined>>;
      for (const iface of INTERFACES) {
        const min = INTERFACE_VERSIONS[iface];
        if (min !== undefined && !atLeast(req.version, min)) continue;
        const enabled = supported[iface] ?? [];
        out[`default_${iface}_interface`] = enabled[0] ?? null;
        out[`enabled_${iface}_interfaces`] = [...enabled];
      }
    }
  }
  if (fields !== undefined) {
    for (const key of Object.keys(out)) if (key !== 'links' && !fields.includes(key)) delete out[key];
    const invalid = fields.filter((f) => !(f in out));
    if (invalid.length > 0) throw new InvalidParameterValue(`Field(s) "${invalid.join(', ')}" are not valid`);
  }
  return out;
}

const DriversQuery = defineQuery({ type: arg.string(), detail: arg.boolean(), fields: arg.stringList() });
const DriverQuery = defineQuery({ fields: arg.stringList() });

export async function getDrivers(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  const { type, detail, fields } = DriversQuery.read(req);
  if (fields && fields.length > 0 && detail)
    throw new InvalidParameterValue('Can not specify ?detail=True and fields in the same request.');
  const needs130 = 'Request not acceptable. The minimal required API version should be 1.30';
  if (detail !== undefined && !atLeast(req.version, 30)) throw new NotAcceptable(needs130);
  if (type !== undefined && !atLeast(req.version, 30)) throw new NotAcceptable(needs130);
  checkFieldsVersion(req, fields);
  if (type !== undefined && type !== 'classic' && type !== 'dynamic') {
    throw new Invalid('"type" filter must be one of "classic" or "dynamic", if specified.');
  }
  const types = type === 'classic' ? new Map<string, string[]>() : await ctx.conductors.hardwareTypes();
  const drivers = [...types].map(([name, hosts]) => driverView(req, name, hosts, detail === true, fields));
  return json(200, { drivers });
}

export async function getDriver(req: ApiRequest, ctx: ApiContext, params: { name: string }): Promise<ApiResponse> {
  const { fields } = DriverQuery.read(req);
  checkFieldsVersion(req, fields);
  const hosts = (await ctx.conductors.hardwareTypes()).get(params.name);
  if (hosts === undefined) throw new DriverNotFound(params.name);
  return json(200, driverView(req, params.name, hosts, true, fields));
}

export async function getDriverProperties(req: ApiRequest, ctx: ApiContext, params: { name: string }): Promise<ApiResponse> {
  NO_QUERY.read(req);
  await requireServedDriver(ctx, params.name);
  const properties = driverProperties(params.name);
  if (properties === undefined) throw new DriverNotFoundMessage(`The driver '${params.name}' is unknown.`);
  return json(200, properties);
}

/** Ironic asks a conductor serving the driver: none at all, or none serving it, is a 404. */
export async function requireServedDriver(ctx: ApiContext, name: string): Promise<void> {
  const types = await ctx.conductors.hardwareTypes();
  if (types.size === 0) throw new DriverNotFoundMessage('No conductors registered.');
  if (!types.has(name)) throw new DriverNotFoundMessage(`The driver '${name}' is unknown.`);
}

/** DriverNotFound raised with a message of its own, as Ironic's hash ring raises it. */
class DriverNotFoundMessage extends DriverNotFound {
  constructor(message: string) {
    super('');
    this.message = message;
  }
}

export const DRIVER_ROUTES = [
  route('GET', '/v1/drivers', getDrivers),
  route('GET', '/v1/drivers/:name', getDriver),
  route('GET', '/v1/drivers/:name/properties', getDriverProperties),
];
