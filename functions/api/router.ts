/**
 * The route table of the v1 API and the dispatch around it: version negotiation and the version
 * headers on every response. Unknown paths are 404 and known paths with another method 405, in
 * Ironic's (webob) form. Paths without the `/v1` prefix route to v1, as in Ironic, so the
 * `bookmark` links it returns can be followed.
 *
 * The table is small and Ironic-specific (404/405 bodies, version handling), so it is written
 * here rather than taken from a generic router.
 */
import { MissingParameterValue, httpErrors } from '#common/errors';
import type { ApiContext } from './context';
import { getRoot, getV1 } from './controllers/root';
import { type ApiRequest, type ApiResponse, errorBody, json } from './http';
import { type LazyRoutes, type Route, lazyRoutes, loadRoutesFor } from './route';
import {
  MAX_VERSION_HEADER,
  MIN_VERSION,
  MIN_VERSION_HEADER,
  VERSION_HEADER,
  negotiate,
  parseVersion,
  requestedVersion,
  versionString,
} from './microversion';

/**
 * Every controller module of the v1 API, loaded when a request first needs it (a cold start loads
 * none: lib/bundling.ts). Each module declares its own routes; here, one line per module says which
 * paths its routes are under (after `/v1`: `:` is any segment, a final `*` any further segments),
 * so a request loads only the modules that can serve it. test/unit/api/router.test.ts checks that
 * each module's patterns cover all its routes.
 */
export const CONTROLLERS: readonly LazyRoutes[] = [
  lazyRoutes(['nodes', 'nodes/:'], async () => (await import('./controllers/nodes')).NODE_ROUTES),
  lazyRoutes(['nodes/:'], async () => (await import('./controllers/node-patch')).NODE_PATCH_ROUTES),
  lazyRoutes(['nodes/:/maintenance'], async () => (await import('./controllers/node-maintenance')).NODE_MAINTENANCE_ROUTES),
  lazyRoutes(['nodes/:/traits/*'], async () => (await import('./controllers/node-traits')).NODE_TRAIT_ROUTES),
  lazyRoutes(['nodes/:/states', 'nodes/:/states/provision'], async () => (await import('./controllers/node-states')).NODE_STATE_ROUTES),
  lazyRoutes(['nodes/:/states/raid', 'drivers/:/raid/*'], async () => (await import('./controllers/node-raid')).RAID_ROUTES),
  lazyRoutes(['nodes/:/states/power', 'nodes/:/validate'], async () => (await import('./controllers/node-power')).NODE_POWER_ROUTES),
  lazyRoutes(['shards/*'], async () => (await import('./controllers/shards')).SHARD_ROUTES),
  lazyRoutes(
    ['nodes/:/management/*', 'nodes/:/states/boot_mode', 'nodes/:/states/secure_boot'],
    async () => (await import('./controllers/node-management')).NODE_MANAGEMENT_ROUTES,
  ),
  lazyRoutes(['nodes/:/vifs/*'], async () => (await import('./controllers/node-vifs')).NODE_VIF_ROUTES),
  lazyRoutes(['ports/*', 'nodes/:/ports/*', 'portgroups/:/ports/*'], async () => (await import('./controllers/ports')).PORT_ROUTES),
  lazyRoutes(['ports/:', 'nodes/:/ports/:'], async () => (await import('./controllers/port-patch')).PORT_PATCH_ROUTES),
  lazyRoutes(
    ['portgroups', 'portgroups/:', 'nodes/:/portgroups/*'],
    async () => (await import('./controllers/portgroups')).PORTGROUP_ROUTES,
  ),
  lazyRoutes(['chassis/*'], async () => (await import('./controllers/chassis')).CHASSIS_ROUTES),
  lazyRoutes(['deploy_templates/*'], async () => (await import('./controllers/deploy-templates')).DEPLOY_TEMPLATE_ROUTES),
  lazyRoutes(['runbooks/*'], async () => (await import('./controllers/runbooks')).RUNBOOK_ROUTES),
  lazyRoutes(['runbooks/:/traits/*'], async () => (await import('./controllers/runbook-traits')).RUNBOOK_TRAIT_ROUTES),
  lazyRoutes(['inspection_rules/*'], async () => (await import('./controllers/inspection-rules')).INSPECTION_RULE_ROUTES),
  lazyRoutes(['allocations/*'], async () => (await import('./controllers/allocations')).ALLOCATION_ROUTES),
  lazyRoutes(['nodes/:/allocation'], async () => (await import('./controllers/node-allocation')).NODE_ALLOCATION_ROUTES),
  lazyRoutes(['conductors/*'], async () => (await import('./controllers/conductors')).CONDUCTOR_ROUTES),
  lazyRoutes(['drivers', 'drivers/:', 'drivers/:/properties'], async () => (await import('./controllers/drivers')).DRIVER_ROUTES),
  lazyRoutes(['nodes/:/history/*'], async () => (await import('./controllers/node-history')).NODE_HISTORY_ROUTES),
  lazyRoutes(['nodes/:/inventory'], async () => (await import('./controllers/node-inventory')).NODE_INVENTORY_ROUTES),
  lazyRoutes(['nodes/:/bios/*'], async () => (await import('./controllers/node-bios')).NODE_BIOS_ROUTES),
  lazyRoutes(['nodes/:/firmware'], async () => (await import('./controllers/node-firmware')).NODE_FIRMWARE_ROUTES),
  lazyRoutes(['nodes/:/children'], async () => (await import('./controllers/node-children')).NODE_CHILDREN_ROUTES),
  lazyRoutes(['continue_inspection'], async () => (await import('./controllers/continue-inspection')).CONTINUE_INSPECTION_ROUTES),
  lazyRoutes(['lookup', 'heartbeat/:'], async () => (await import('./controllers/ramdisk')).RAMDISK_ROUTES),
  lazyRoutes(['nodes/:/states/console'], async () => (await import('./controllers/node-console')).NODE_CONSOLE_ROUTES),
  lazyRoutes(['nodes/:/management/indicators/*'], async () => (await import('./controllers/node-indicators')).NODE_INDICATOR_ROUTES),
  lazyRoutes(['nodes/:/vmedia'], async () => (await import('./controllers/node-vmedia')).NODE_VMEDIA_ROUTES),
  lazyRoutes(['events'], async () => (await import('./controllers/events')).EVENT_ROUTES),
  lazyRoutes(
    ['nodes/:/vendor_passthru/*', 'drivers/:/vendor_passthru/*'],
    async () => (await import('./controllers/vendor-passthru')).VENDOR_PASSTHRU_ROUTES,
  ),
  lazyRoutes(['volume/*', 'nodes/:/volume/*'], async () => (await import('./controllers/volume')).VOLUME_ROUTES),
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

/** API 1.91: a final ".json" is part of the name, no longer a content-type extension. */
const LITERAL_JSON_SUFFIX = 91;

/**
 * Whether a final ".json" is taken off the path, as Ironic's JsonExtensionMiddleware does: only
 * for a request that names a version below 1.91 (the middleware reads the header as given, so a
 * request without one keeps its ".json"). A service pinned to a release older than 1.91 takes it
 * off whatever the version, as that release's pecan did (`guess_content_type_from_ext`).
 */
function stripsJsonSuffix(req: ApiRequest, ctx: ApiContext): boolean {
  if (ctx.maxVersion.minor < LITERAL_JSON_SUFFIX) return true;
  const asked = requestedVersion(req.headers);
  const minor = asked === undefined ? undefined : parseVersion(asked)?.minor;
  return minor !== undefined && minor > 0 && minor < LITERAL_JSON_SUFFIX;
}

/**
 * Split a path into decoded segments, adding the `v1` prefix Ironic lets clients leave out. A
 * final ".json" is taken off where Ironic takes it off (`stripsJsonSuffix`), and noted
 * (`req.jsonSuffix`): a resource not found without it is then looked up with it.
 */
function segmentsOf(req: ApiRequest, ctx: ApiContext): string[] | StatesRefusal | undefined {
  const raw = req.path.split('/').filter((s) => s !== '');
  const last = raw[raw.length - 1];
  if (last !== undefined && last.length > 5 && last.endsWith('.json') && stripsJsonSuffix(req, ctx)) {
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
  return statesAlias(segments, req.method === 'HEAD' ? 'GET' : req.method);
}

/** The actions and sub-resource of Ironic's NodeStatesController (`/v1/nodes/{node}/states/...`). */
const STATES_ACTIONS = new Set(['console', 'power', 'provision', 'raid', 'boot_mode', 'secure_boot']);

/** How Ironic refuses a node-last states path that names no node, or a method it does not serve. */
export type StatesRefusal = 'missing node' | 'method not allowed';

/**
 * Ironic's NodeStatesController is also an attribute of its NodesController, so pecan serves the
 * node's states paths with the node last as well: `/v1/nodes/states/{node}` and
 * `/v1/nodes/states/{action}/{node}` (ironic-tempest-plugin reads the console that way). They are
 * rewritten to the node-first form; as in Ironic, `/v1/nodes/states/...` never names a node
 * "states". Without a node, what would take one (GET of the states or the console, PUT of an action)
 * is Ironic's 400 "Missing mandatory parameter: node_ident" (a GET of `/v1/nodes/states/power` reads
 * the states of a node "power"); any other method there is a 405.
 */
export function statesAlias(segments: string[], method: string): string[] | StatesRefusal {
  if (segments[1] !== 'nodes' || segments[2] !== 'states' || segments.length > 5) return segments;
  const [action, node] = [segments[3], segments[4]];
  if (action === undefined) return method === 'GET' ? 'missing node' : 'method not allowed';
  const isAction = STATES_ACTIONS.has(action);
  if (node === undefined) {
    if (method === 'GET') return action === 'console' ? 'missing node' : ['v1', 'nodes', action, 'states'];
    return method === 'PUT' && isAction ? 'missing node' : 'method not allowed';
  }
  if (method === 'PUT' || (method === 'GET' && action === 'console')) {
    return isAction ? ['v1', 'nodes', node, 'states', action] : 'method not allowed';
  }
  return 'method not allowed';
}

export async function dispatch(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  if (req.path === '/' || req.path === '') {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw httpErrors.methodNotAllowed();
    return withVersionHeaders(await getRoot(req, ctx), ctx, MIN_VERSION);
  }
  if (req.path.startsWith('/ironless/')) return ironless(req, ctx);
  const segments = segmentsOf(req, ctx);
  if (segments === undefined) throw httpErrors.notFound();
  if (typeof segments === 'string') {
    req.version = negotiateOrRefuse(req, ctx);
    if (segments === 'method not allowed') throw httpErrors.methodNotAllowed();
    throw new MissingParameterValue('Missing mandatory parameter: node_ident');
  }
  if (segments.length === 1) {
    req.version = negotiateOrRefuse(req, ctx);
    if (req.method !== 'GET' && req.method !== 'HEAD') throw httpErrors.methodNotAllowed();
    return withVersionHeaders(await getV1(req, ctx), ctx, req.version);
  }
  const routes = await loadRoutesFor(CONTROLLERS, segments.slice(1));
  const candidates = routes.map((r) => ({ r, params: match(r, segments) })).filter((c) => c.params !== undefined);
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
