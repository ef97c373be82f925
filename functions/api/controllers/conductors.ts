/**
 * `/v1/conductors` (1.49, Ironic's ConductorsController): the registered conductor versions, each
 * `alive` while its heartbeat is younger than `[conductor]heartbeat_timeout`. Default view
 * hostname, conductor_group, alive; detail and `fields` add created_at, updated_at, drivers.
 *
 * A node names its conductor by the stable name of the conductor service (`<function>:live`, see
 * `#conductor/identity`), which outlives every version: `GET /v1/conductors/<function>:live[:<group>]`
 * answers for the service with what its registered versions say together, so a reservation or a
 * history entry written by a retired version still names a conductor that can be shown.
 */
import { ClientSideError, ConductorNotFound, InvalidParameterValue, NotFound } from '#common/errors';
import { Conductor } from '#objects/conductor';
import type { ApiContext } from '../context';
import { conductorHost } from '../begin';
import { type ApiRequest, type ApiResponse, json } from '../http';
import { atLeast } from '../microversion';
import { arg, defineQuery } from '../request';
import { listQuery } from '../resource-list';
import { route } from '../route';
import { selfAndBookmark } from '../views/links';
import { isoTime } from '../views/time';

const DEFAULT_FIELDS = ['hostname', 'conductor_group', 'alive'];
const INVALID_SORT_KEYS = ['alive', 'drivers'];
/** Columns of Ironic's conductors table a list may sort by ("id" is registration order). */
const SORT_KEYS = ['id', 'hostname', 'conductor_group', 'created_at', 'updated_at', 'online'];

/**
 * Ironic's `args.name` check on a hostname (RFC 3986 unreserved characters), with ":" allowed:
 * Ironless hostnames are "<function>:<version>" (documented difference).
 */
function hostnameArg(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.length > 255 || !/^[A-Za-z0-9\-._~:]+$/.test(value)) throw new InvalidParameterValue(`Expected name for ${name}: ${value}`);
  return value;
}

const ListQuery = listQuery(arg.string().map((value) => hostnameArg('marker', value) as string));
const ShowQuery = defineQuery({ fields: arg.stringList() });

function requireVersion(req: ApiRequest): void {
  if (!atLeast(req.version, 49)) throw new NotFound('Resource could not be found.');
}

/** One conductor as Ironic's convert_with_links builds it, then narrowed to `fields`. */
export function conductorView(
  req: ApiRequest,
  ctx: ApiContext,
  c: Conductor,
  fields: readonly string[] | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    created_at: isoTime(c.created_at),
    updated_at: isoTime(c.updated_at ?? null),
    hostname: c.hostname,
    conductor_group: c.conductor_group,
    drivers: c.drivers ?? null,
    links: selfAndBookmark(req.baseUrl, 'conductors', c.hostname),
    alive: ctx.conductors.alive(c),
  };
  if (fields === undefined) return out;
  const invalid = fields.filter((f) => !(f in out));
  if (invalid.length > 0) throw new InvalidParameterValue(`Field(s) "${invalid.join(', ')}" are not valid`);
  for (const key of Object.keys(out)) if (key !== 'links' && !fields.includes(key)) delete out[key];
  return out;
}

export async function getConductors(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  requireVersion(req);
  const { marker, limit: rawLimit, sort_key: sortKey = 'id', sort_dir: sortDir = 'asc', fields: requested, detail } = ListQuery.read(req);
  if (requested !== undefined && detail) throw new InvalidParameterValue('Can not specify ?detail=True and fields in the same request.');
  const fields = requested ?? (detail ? undefined : DEFAULT_FIELDS);
  if (rawLimit !== undefined && rawLimit <= 0) throw new ClientSideError('Limit must be positive');
  const limit = Math.min(rawLimit ?? ctx.config.maxLimit, ctx.config.maxLimit);
  if (sortDir !== 'asc' && sortDir !== 'desc') {
    throw new ClientSideError(`Invalid sort direction: ${sortDir}. Acceptable values are 'asc' or 'desc'`);
  }
  if (INVALID_SORT_KEYS.includes(sortKey)) throw new InvalidParameterValue(`The sort_key value ${sortKey} is an invalid field for sorting`);
  if (!SORT_KEYS.includes(sortKey)) throw new InvalidParameterValue(`The sort_key value "${sortKey}" is an invalid field for sorting`);
  // Ironic looks the marker up (any conductor, online or not): an unknown one is a 404.
  if (marker !== undefined) await ctx.stores.conductors.get(marker);
  const page = await ctx.stores.conductors.list(
    {},
    { limit, ...(marker ? { marker } : {}), ...(sortKey === 'id' ? {} : { sortKey }), sortDir: sortDir as 'asc' | 'desc' },
  );
  const conductors = page.items.map((c) => conductorView(req, ctx, c, fields));
  const body: Record<string, unknown> = { conductors };
  const last = page.items[page.items.length - 1];
  if (last !== undefined && page.items.length === limit) {
    const params: [string, string][] = [
      ['sort_key', sortKey],
      ['sort_dir', sortDir],
    ];
    if (detail !== undefined) params.push(['detail', detail ? 'True' : 'False']);
    if (fields !== undefined && fields.length > 0) params.push(['fields', fields.join(',')]);
    const query = params.map(([k, v]) => `${k}=${v}&`).join('');
    body.next = `${req.baseUrl}/v1/conductors?${query}limit=${limit}&marker=${last.hostname}`;
  }
  return json(200, body);
}

export async function getConductor(req: ApiRequest, ctx: ApiContext, params: { hostname: string }): Promise<ApiResponse> {
  requireVersion(req);
  const { fields } = ShowQuery.read(req);
  const hostname = hostnameArg('hostname', params.hostname) as string;
  const conductor = (await serviceView(ctx, hostname)) ?? (await ctx.stores.conductors.get(hostname));
  return json(200, conductorView(req, ctx, conductor, fields));
}

/**
 * The conductor service named `hostname` (`<function>:live`, `<function>:live:<group>`) as one
 * conductor: its group, the drivers its versions serve, its first registration and latest
 * heartbeat (so `alive` when any version is). Undefined for other names; NotFound when no version
 * of it is registered.
 */
async function serviceView(ctx: ApiContext, hostname: string): Promise<Conductor | undefined> {
  const service = conductorHost(ctx);
  if (hostname !== service && !hostname.startsWith(`${service}:`)) return undefined;
  const group = hostname.slice(service.length + 1);
  const fn = service.slice(0, service.lastIndexOf(':'));
  const versions = (await ctx.conductors.all(true)).filter(
    (c) => c.conductor_group === group && c.hostname.startsWith(`${fn}:`) && c.hostname.split(':').length === (group === '' ? 2 : 3),
  );
  if (versions.length === 0) throw new ConductorNotFound(hostname);
  const times = (pick: (c: Conductor) => string | null | undefined) =>
    versions
      .map(pick)
      .filter((t): t is string => typeof t === 'string')
      .sort();
  return new Conductor({
    hostname,
    conductor_group: group,
    drivers: [...new Set(versions.flatMap((c) => c.drivers ?? []))],
    online: versions.some((c) => c.online),
    created_at: times((c) => c.created_at)[0] ?? null,
    updated_at: times((c) => (c.online ? (c.updated_at ?? c.created_at) : null)).pop() ?? null,
  });
}

// Other methods are 405 from the router (the path exists, the method does not).
export const CONDUCTOR_ROUTES = [route('GET', '/v1/conductors', getConductors), route('GET', '/v1/conductors/:hostname', getConductor)];
