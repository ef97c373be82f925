/** Route declarations: each controller module exports the routes it serves; the router joins them. */
import { once } from '#common/lazy';
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

/** A controller module's routes, loaded when a request under one of its path patterns first needs them. */
export interface LazyRoutes {
  /** Path patterns after `/v1`, segments split by `/`: `:` matches any segment; a final `*` any further segments (or none). */
  readonly under: readonly (readonly string[])[];
  readonly load: () => Promise<readonly Route[]>;
}

export function lazyRoutes(under: readonly string[], load: () => Promise<readonly Route[]>): LazyRoutes {
  return { under: under.map((p) => p.split('/')), load: once(load) };
}

/** Whether the path (segments after `v1`; a route's `:name` segments stand for any value) is under the pattern. */
export function underPattern(pattern: readonly string[], path: readonly string[]): boolean {
  const open = pattern[pattern.length - 1] === '*';
  const fixed = open ? pattern.length - 1 : pattern.length;
  if (open ? path.length < fixed : path.length !== fixed) return false;
  for (let i = 0; i < fixed; i++) if (pattern[i] !== ':' && pattern[i] !== path[i]) return false;
  return true;
}

/** The routes of every module whose patterns hold this path (segments after `v1`), loading those not loaded yet. */
export async function loadRoutesFor(modules: readonly LazyRoutes[], path: readonly string[]): Promise<Route[]> {
  const wanted = modules.filter((m) => m.under.some((p) => underPattern(p, path)));
  return (await Promise.all(wanted.map((m) => m.load()))).flat();
}
