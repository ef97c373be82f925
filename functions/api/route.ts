/** Route declarations: each controller module exports the routes it serves; the router joins them. */
import type { ApiContext } from './context';
import type { ApiRequest, ApiResponse } from './http';

export type Handler = (req: ApiRequest, ctx: ApiContext, params: Record<string, string>) => Promise<ApiResponse>;

export interface Route {
  readonly method: string;
  readonly segments: readonly string[];
  readonly handler: Handler;
}

/** A route: `route('GET', '/v1/nodes/:ident', handler)`; `:name` segments become params. */
export function route(
  method: string,
  path: string,
  handler: (req: ApiRequest, ctx: ApiContext, params: never) => Promise<ApiResponse>,
): Route {
  return { method, segments: path.split('/').filter((s) => s !== ''), handler: handler as Handler };
}
