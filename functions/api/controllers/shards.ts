/**
 * `GET /v1/shards` (1.82): how many nodes each shard has, most first. An admin view, read from a
 * keys-only scan of the shard index (each entry is a key pair of a few bytes, so the scan costs
 * about one read unit per 4 KB of keys, i.e. per some hundred nodes); nodes without a shard count
 * under the name "None", as Ironic prints them.
 */
import { ClientSideError, httpErrors } from '#common/errors';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json } from '../http';
import { atLeast } from '../microversion';
import { NO_QUERY } from '../request';
import { route } from '../route';

const NOT_ALLOWED = 'The API version does not allow shards';

export async function getShards(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  if (!atLeast(req.version, 82)) throw httpErrors.notFound(NOT_ALLOWED);
  // Ironic fails with a 500 on any query parameter; refusing it is what it means to do.
  NO_QUERY.read(req);
  const counts = [...(await ctx.nodes.shardCounts())];
  // Ironic groups in shard order (no shard first), then sorts by count, keeping that order for ties.
  counts.sort(([a], [b]) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1));
  counts.sort(([, x], [, y]) => y - x);
  return json(200, { shards: counts.map(([name, count]) => ({ name: name ?? 'None', count })) });
}

/** Any other method on /v1/shards: 405, saying why when the version is too old. */
export async function otherShards(req: ApiRequest): Promise<ApiResponse> {
  throw httpErrors.methodNotAllowed(atLeast(req.version, 82) ? '' : NOT_ALLOWED);
}

/** One shard is not a resource: 404, as Ironic's get_one answers. */
export async function getShard(req: ApiRequest): Promise<ApiResponse> {
  if (!atLeast(req.version, 82)) throw httpErrors.notFound(NOT_ALLOWED);
  throw new ClientSideError('The resource could not be found.', 404);
}

export const SHARD_ROUTES = [
  route('GET', '/v1/shards', getShards),
  route('GET', '/v1/shards/:name', getShard),
  ...['POST', 'PUT', 'PATCH', 'DELETE'].map((method) => route(method, '/v1/shards', otherShards)),
];
