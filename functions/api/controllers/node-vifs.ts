/**
 * `/v1/nodes/{node}/vifs` (1.28; Ironic's NodeVIFController): list, attach and detach virtual
 * network interfaces. Each is a synchronous RPC call answered by the node's network interface
 * (`noop` records nothing; `flat` records the VIF on a free port or portgroup), so its errors
 * (no free port, already attached, node locked) come back in this response.
 */
import { Invalid, httpErrors } from '#common/errors';
import { argUuidOrName } from '../args';
import { parseBody } from '../body';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json, noContent } from '../http';
import { findNode } from '../lookup';
import { atLeast } from '../microversion';
import { route } from '../route';
import { type JsonSchema, validateSchema } from '../validation';

const MIN_VIFS = 28;
const MIN_VIF_ATTACH_PORT = 67;

const VIF_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { id: { type: 'string' } },
  required: ['id'],
  additionalProperties: true,
};

/** Below 1.28 the sub-resource does not exist: the router's plain 404. */
function checkVersion(req: ApiRequest): void {
  if (!atLeast(req.version, MIN_VIFS)) throw httpErrors.notFound();
}

export async function listVifs(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  checkVersion(req);
  const node = await findNode(req, ctx, params.ident);
  const vifs = await ctx.rpc.call(ctx.rpc.message('vif_list', { node_id: node.uuid }, { request_id: req.requestId }));
  return json(200, { vifs });
}

export async function attachVif(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  checkVersion(req);
  // No body is validated as an empty one, as Ironic does ("'id' is a required property").
  const body = parseBody(req) ?? {};
  validateSchema('vif', VIF_SCHEMA, body);
  const vif = body as { id: string; [key: string]: unknown };
  argUuidOrName('id', vif.id);
  const node = await findNode(req, ctx, params.ident);
  if (atLeast(req.version, MIN_VIF_ATTACH_PORT) && 'port_uuid' in vif && 'portgroup_uuid' in vif) {
    throw new Invalid('Cannot specify both port_uuid and portgroup_uuid');
  }
  await ctx.rpc.call(ctx.rpc.message('vif_attach', { node_id: node.uuid, vif_info: vif }, { request_id: req.requestId }));
  return noContent();
}

export async function detachVif(req: ApiRequest, ctx: ApiContext, params: { ident: string; vif: string }): Promise<ApiResponse> {
  checkVersion(req);
  argUuidOrName('vif_id', params.vif);
  const node = await findNode(req, ctx, params.ident);
  await ctx.rpc.call(ctx.rpc.message('vif_detach', { node_id: node.uuid, vif_id: params.vif }, { request_id: req.requestId }));
  return noContent();
}

export const NODE_VIF_ROUTES = [
  route('GET', '/v1/nodes/:ident/vifs', listVifs),
  route('POST', '/v1/nodes/:ident/vifs', attachVif),
  route('DELETE', '/v1/nodes/:ident/vifs/:vif', detachVif),
];
