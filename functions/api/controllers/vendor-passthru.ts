/**
 * Vendor passthru (Ironic's NodeVendorPassthruController and DriverPassthruController): a node's
 * vendor methods at `/v1/nodes/{node}/vendor_passthru?method=M` (or `/vendor_passthru/M`), a
 * hardware type's at `/v1/drivers/{driver}/vendor_passthru?method=M`, with any HTTP method, and
 * the methods' metadata at `…/vendor_passthru/methods`. The JSON body is the method's arguments.
 * A method runs in the conductor (a call); an `async` one is answered 202 with no body (the
 * conductor runs it after answering), a synchronous one 200 with its result. The metadata is the
 * interfaces' own, read here.
 */
import { InvalidParameterValue, MissingParameterValue } from '#common/errors';
import { defaultVendorInterface, getHardwareType, loadDriver } from '#drivers/registry';
import { type VendorInterface, passthruMetadata, passthruRoute } from '#drivers/vendor';
import type { PassthruResult } from '#rpc/messages';
import { parseBody } from '../body';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json } from '../http';
import { findNode } from '../lookup';
import { type Route, route } from '../route';
import { requireServedDriver } from './drivers';
import { NO_QUERY, arg, defineQuery } from '../request';

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The query of a call whose method the query names. */
const MethodQuery = defineQuery({ method: arg.string() });
/** The query of a call whose method the path names: a `method` parameter is allowed and not read. */
const PathMethodQuery = defineQuery({ method: arg.any() });

/** The method's name (query `method` or the path's last segment) and its arguments (the body, an object). */
function callOf(req: ApiRequest, pathMethod: string | undefined): { method: string; info: Record<string, unknown> } {
  let method = pathMethod;
  if (method === undefined) method = MethodQuery.read(req).method;
  else PathMethodQuery.read(req);
  if (method === undefined || method === '') throw new MissingParameterValue('Missing mandatory parameter: method');
  const body = parseBody(req) ?? {};
  // NOTE: Ironic 21.4 fails a body that is not an object with a 500 from its RPC; this is a 400.
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidParameterValue(`The arguments of vendor passthru method ${method} must be a JSON object`);
  }
  return { method, info: body as Record<string, unknown> };
}

function reply(result: PassthruResult): ApiResponse {
  if (result.async) return { status: 202 };
  return json(200, result.return ?? null);
}

export async function nodeMethods(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  NO_QUERY.read(req);
  const node = await findNode(req, ctx, params.ident);
  const vendor = loadDriver(node).interfaces.vendor as VendorInterface;
  return json(200, passthruMetadata(vendor.vendorRoutes));
}

export async function nodePassthru(req: ApiRequest, ctx: ApiContext, params: { ident: string; method?: string }): Promise<ApiResponse> {
  const { method, info } = callOf(req, params.method);
  const node = await findNode(req, ctx, params.ident);
  // Refuse what the conductor would refuse before asking it (the conductor checks again): the
  // checks need no hardware, and an API pinned below RPC 1.3 answers them as Ironic does.
  const vendor = loadDriver(node).interfaces.vendor as VendorInterface;
  passthruRoute(vendor.vendorRoutes, method, req.method);
  vendor.validatePassthru?.({ node, log: ctx.log }, method, info);
  const message = ctx.rpc.message(
    'vendor_passthru',
    { node_id: node.uuid, method, http_method: req.method, info },
    { request_id: req.requestId },
  );
  return reply(await ctx.rpc.call(message));
}

export async function driverMethods(req: ApiRequest, ctx: ApiContext, params: { name: string }): Promise<ApiResponse> {
  NO_QUERY.read(req);
  await requireServedDriver(ctx, params.name);
  return json(200, passthruMetadata(defaultVendorInterface(getHardwareType(params.name)).driverRoutes));
}

export async function driverPassthru(req: ApiRequest, ctx: ApiContext, params: { name: string; method?: string }): Promise<ApiResponse> {
  const { method, info } = callOf(req, params.method);
  await requireServedDriver(ctx, params.name);
  const vendor = defaultVendorInterface(getHardwareType(params.name));
  passthruRoute(vendor.driverRoutes, method, req.method);
  vendor.validatePassthru?.(undefined, method, info);
  const message = ctx.rpc.message(
    'driver_vendor_passthru',
    { driver_name: params.name, method, http_method: req.method, info },
    { request_id: req.requestId },
  );
  return reply(await ctx.rpc.call(message));
}

export const VENDOR_PASSTHRU_ROUTES: Route[] = [
  route('GET', '/v1/nodes/:ident/vendor_passthru/methods', nodeMethods),
  route('GET', '/v1/drivers/:name/vendor_passthru/methods', driverMethods),
  ...HTTP_METHODS.flatMap((m) => [
    route(m, '/v1/nodes/:ident/vendor_passthru', nodePassthru),
    route(m, '/v1/nodes/:ident/vendor_passthru/:method', nodePassthru),
    route(m, '/v1/drivers/:name/vendor_passthru', driverPassthru),
    route(m, '/v1/drivers/:name/vendor_passthru/:method', driverPassthru),
  ]),
];
