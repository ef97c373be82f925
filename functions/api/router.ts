/**
 * The route table of the v1 API and the dispatch around it: version negotiation and the version
 * headers on every response. Unknown paths are 404 and known paths with another method 405, in
 * Ironic's (webob) form. Paths without the `/v1` prefix route to v1, as in Ironic, so the
 * `bookmark` links it returns can be followed.
 *
 * The table is small and Ironic-specific (404/405 bodies, version handling), so it is written
 * here rather than taken from a generic router.
 */
import { httpErrors } from '#common/errors';
import type { ApiContext } from './context';
import { NODE_ROUTES } from './controllers/nodes';
import { NODE_MAINTENANCE_ROUTES } from './controllers/node-maintenance';
import { NODE_PATCH_ROUTES } from './controllers/node-patch';
import { NODE_STATE_ROUTES } from './controllers/node-states';
import { RAID_ROUTES } from './controllers/node-raid';
import { NODE_POWER_ROUTES } from './controllers/node-power';
import { NODE_TRAIT_ROUTES } from './controllers/node-traits';
import { NODE_MANAGEMENT_ROUTES } from './controllers/node-management';
import { NODE_VIF_ROUTES } from './controllers/node-vifs';
import { SHARD_ROUTES } from './controllers/shards';
import { PORT_ROUTES } from './controllers/ports';
import { PORT_PATCH_ROUTES } from './controllers/port-patch';
import { PORTGROUP_ROUTES } from './controllers/portgroups';
import { CHASSIS_ROUTES } from './controllers/chassis';
import { DEPLOY_TEMPLATE_ROUTES } from './controllers/deploy-templates';
import { ALLOCATION_ROUTES } from './controllers/allocations';
import { NODE_ALLOCATION_ROUTES } from './controllers/node-allocation';
import { CONDUCTOR_ROUTES } from './controllers/conductors';
import { DRIVER_ROUTES } from './controllers/drivers';
import { NODE_HISTORY_ROUTES } from './controllers/node-history';
import { NODE_INVENTORY_ROUTES } from './controllers/node-inventory';
import { NODE_CHILDREN_ROUTES } from './controllers/node-children';
import { CONTINUE_INSPECTION_ROUTES } from './controllers/continue-inspection';
import { RAMDISK_ROUTES } from './controllers/ramdisk';
import { NODE_CONSOLE_ROUTES } from './controllers/node-console';
import { NODE_INDICATOR_ROUTES } from './controllers/node-indicators';
import { EVENT_ROUTES } from './controllers/events';
import { VENDOR_PASSTHRU_ROUTES } from './controllers/vendor-passthru';
import { VOLUME_ROUTES } from './controllers/volume';
import { getRoot, getV1 } from './controllers/root';
import { type ApiRequest, type ApiResponse, errorBody, json } from './http';
import type { Route } from './route';
import { MAX_VERSION_HEADER, MIN_VERSION, MIN_VERSION_HEADER, VERSION_HEADER, negotiate, versionString } from './microversion';

/** Every route of the v1 API; each controller module declares its own. */
const ROUTES: readonly Route[] = [
  ...NODE_ROUTES,
  ...NODE_PATCH_ROUTES,
  ...NODE_MAINTENANCE_ROUTES,
  ...NODE_TRAIT_ROUTES,
  ...NODE_STATE_ROUTES,
  ...RAID_ROUTES,
  ...NODE_POWER_ROUTES,
  ...SHARD_ROUTES,
  ...NODE_MANAGEMENT_ROUTES,
  ...NODE_VIF_ROUTES,
  ...PORT_ROUTES,
  ...PORT_PATCH_ROUTES,
  ...PORTGROUP_ROUTES,
  ...CHASSIS_ROUTES,
  ...DEPLOY_TEMPLATE_ROUTES,
  ...ALLOCATION_ROUTES,
  ...NODE_ALLOCATION_ROUTES,
  ...CONDUCTOR_ROUTES,
  ...DRIVER_ROUTES,
  ...NODE_HISTORY_ROUTES,
  ...NODE_INVENTORY_ROUTES,
  ...NODE_CHILDREN_ROUTES,
  ...CONTINUE_INSPECTION_ROUTES,
  ...RAMDISK_ROUTES,
  ...NODE_CONSOLE_ROUTES,
  ...NODE_INDICATOR_ROUTES,
  ...EVENT_ROUTES,
  ...VENDOR_PASSTHRU_ROUTES,
  ...VOLUME_ROUTES,
];

function match(route: Route, segments: readonly string[]): Record<string, string> | undefined {
  if (route.segments.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const want = route.segments[i] as string;
    const got = segments[i] as string;
    if (want.startsWith(':')) params[want.slice(1)] = got;
    else if (want !== got) return undefined;
  }
  return params;
}

/**
 * Split a path into decoded segments, adding the `v1` prefix Ironic lets clients leave out. A
 * final ".json" is taken off, as pecan takes a content-type extension off (`req.jsonSuffix`).
 */
function segmentsOf(req: ApiRequest): string[] | undefined {
  const raw = req.path.split('/').filter((s) => s !== '');
  const last = raw[raw.length - 1];
  if (last !== undefined && last.length > 5 && last.endsWith('.json')) {
    raw[raw.length - 1] = last.slice(0, -5);
    req.jsonSuffix = true;
  }
  let segments: string[];
  try {
    segments = raw.map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
  if (segments[0] !== 'v1') segments.unshift('v1');
  return segments;
}

export async function dispatch(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  if (req.path === '/' || req.path === '') {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw httpErrors.methodNotAllowed();
    return withVersionHeaders(await getRoot(req, ctx), ctx, MIN_VERSION);
  }
  if (req.path.startsWith('/ironless/')) return ironless(req, ctx);
  const segments = segmentsOf(req);
  if (segments === undefined) throw httpErrors.notFound();
  if (segments.length === 1) {
    req.version = negotiateOrRefuse(req, ctx);
    if (req.method !== 'GET' && req.method !== 'HEAD') throw httpErrors.methodNotAllowed();
    return withVersionHeaders(await getV1(req, ctx), ctx, req.version);
  }
  const candidates = ROUTES.map((r) => ({ r, params: match(r, segments) })).filter((c) => c.params !== undefined);
  if (candidates.length === 0) throw httpErrors.notFound();
  // Negotiate first: an unsupported version is 406 whatever else is wrong with the request.
  req.version = negotiateOrRefuse(req, ctx);
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  // Literal segments beat parameters (`/nodes/detail` is not node "detail").
  candidates.sort((a, b) => literalCount(b.r) - literalCount(a.r));
  const found = candidates.find((c) => c.r.method === method);
  if (found === undefined) throw httpErrors.methodNotAllowed('', [...new Set(candidates.map((c) => c.r.method))].sort());
  return withVersionHeaders(await found.r.handler(req, ctx, found.params as Record<string, string>), ctx, req.version);
}

/** Ironless's own read-only endpoints, outside Ironic's versioned API: `/ironless/v1/upgrade`. */
async function ironless(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  if (req.path.replace(/\/+$/, '') !== '/ironless/v1/upgrade' || ctx.upgradeStatus === undefined) throw httpErrors.notFound();
  if (req.method !== 'GET' && req.method !== 'HEAD') throw httpErrors.methodNotAllowed('', ['GET']);
  try {
    return json(200, await ctx.upgradeStatus());
  } catch (err) {
    ctx.log.warn('Could not read the upgrade status', { error: String(err) });
    return json(503, errorBody(503, `The upgrade status could not be read from the Lambda API: ${(err as Error).name}. Retry later.`));
  }
}

function negotiateOrRefuse(req: ApiRequest, ctx: ApiContext): ApiRequest['version'] {
  const version = negotiate(req.headers, ctx.maxVersion);
  req.negotiated = true;
  return version;
}

function literalCount(route: Route): number {
  return route.segments.filter((s) => !s.startsWith(':')).length;
}

/** The three version headers every versioned response carries. */
export function versionHeaders(ctx: ApiContext, version: { major: number; minor: number }): Record<string, string> {
  return {
    [MIN_VERSION_HEADER]: versionString(MIN_VERSION),
    [MAX_VERSION_HEADER]: versionString(ctx.maxVersion),
    [VERSION_HEADER]: versionString(version),
  };
}

function withVersionHeaders(res: ApiResponse, ctx: ApiContext, version: { major: number; minor: number }): ApiResponse {
  return { ...res, headers: { ...versionHeaders(ctx, version), ...(res.headers ?? {}) } };
}
