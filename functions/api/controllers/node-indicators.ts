/**
 * Indicator LEDs of a node's components (Ironic's IndicatorController): the list, and one
 * indicator's state read and set, each through a conductor call. An indicator is named
 * `<name>@<component>` in the path. NOTE: as in Ironic (21.4 and master alike), the endpoints
 * are served at every microversion although the API reference says 1.63.
 */
import { InvalidParameterValue, MissingParameterValue } from '#common/errors';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json, noContent } from '../http';
import { findNode } from '../lookup';
import { route } from '../route';
import { selfAndBookmark } from '../views/links';
import { NO_QUERY, arg, defineArgs } from '../request';

/** PUT's one argument, from the query or the body; null is missing. */
const SetStateArgs = defineArgs({ state: arg.string().required({ null: 'missing' }) });

/** `name@component`, split at the first `@` (Ironic's IndicatorAtComponent). */
function indicatorAt(unique: string): { component: string; name: string } {
  const at = unique.indexOf('@');
  if (at < 0) throw new InvalidParameterValue(`Malformed indicator name "${unique}"`);
  return { name: unique.slice(0, at), component: unique.slice(at + 1) };
}

export async function listIndicators(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  // Ironic's handler takes **kwargs: query arguments are ignored, not refused.
  const node = await findNode(req, ctx, params.ident);
  const byComponent = await ctx.rpc.call(
    ctx.rpc.message('get_supported_indicators', { node_id: node.uuid }, { request_id: req.requestId }),
  );
  const indicators = Object.entries(byComponent).flatMap(([component, byName]) =>
    Object.entries(byName).map(([name, info]) => {
      const unique = `${name}@${component}`;
      return {
        name: unique,
        component,
        readonly: info.readonly ?? true,
        states: info.states ?? [],
        // Ironic links the node as it was named in the request.
        links: selfAndBookmark(req.baseUrl, 'nodes', `${params.ident}/management/indicators/${unique}`),
      };
    }),
  );
  return json(200, { indicators });
}

export async function getIndicator(req: ApiRequest, ctx: ApiContext, params: { ident: string; indicator: string }): Promise<ApiResponse> {
  NO_QUERY.read(req);
  const node = await findNode(req, ctx, params.ident);
  const { component, name } = indicatorAt(params.indicator);
  const message = ctx.rpc.message('get_indicator_state', { node_id: node.uuid, component, indicator: name }, { request_id: req.requestId });
  return json(200, { state: await ctx.rpc.call(message) });
}

function stateOf(req: ApiRequest): string {
  return SetStateArgs.read(req).state;
}

export async function setIndicator(req: ApiRequest, ctx: ApiContext, params: { ident: string; indicator: string }): Promise<ApiResponse> {
  const state = stateOf(req);
  const node = await findNode(req, ctx, params.ident);
  const { component, name } = indicatorAt(params.indicator);
  const message = ctx.rpc.message(
    'set_indicator_state',
    { node_id: node.uuid, component, indicator: name, state },
    { request_id: req.requestId },
  );
  await ctx.rpc.call(message);
  return noContent();
}

/** PUT without an indicator: Ironic's handler misses its `indicator` argument. */
export async function setNoIndicator(req: ApiRequest): Promise<ApiResponse> {
  stateOf(req);
  throw new MissingParameterValue('Missing mandatory parameter: indicator');
}

export const NODE_INDICATOR_ROUTES = [
  route('GET', '/v1/nodes/:ident/management/indicators', listIndicators),
  route('PUT', '/v1/nodes/:ident/management/indicators', setNoIndicator),
  route('GET', '/v1/nodes/:ident/management/indicators/:indicator', getIndicator),
  route('PUT', '/v1/nodes/:ident/management/indicators/:indicator', setIndicator),
];
