/** Query parameters common to list endpoints, validated with Ironic's messages. */
import { ClientSideError, InvalidParameterValue } from '#common/errors';
import { canonicalUuid, isUuidLike } from '#common/ids';
import { type ApiRequest, queryValue } from './http';
import { atLeast } from './microversion';
import { parseBoolean } from './validation';

export interface ListParams {
  readonly limit: number;
  readonly marker: string | undefined;
  readonly sortKey: string;
  readonly sortDir: 'asc' | 'desc';
  readonly fields: string[] | undefined;
  readonly detail: boolean | undefined;
}

export function uuidParam(req: ApiRequest, name: string): string | undefined {
  const value = queryValue(req, name);
  if (value === undefined) return undefined;
  if (!isUuidLike(value)) throw new InvalidParameterValue(`Expected UUID for ${name}: ${value}`);
  return canonicalUuid(value);
}

export function boolParam(req: ApiRequest, name: string): boolean | undefined {
  const value = queryValue(req, name);
  if (value === undefined) return undefined;
  return parseBoolean(name, value) ?? undefined;
}

export function stringParam(req: ApiRequest, name: string): string | undefined {
  return queryValue(req, name);
}

/** `fields=a,b` (1.8+): the list, or undefined. */
export function fieldsParam(req: ApiRequest): string[] | undefined {
  const value = queryValue(req, 'fields');
  if (value === undefined) return undefined;
  if (!atLeast(req.version, 8)) throw new ClientSideError('Request not acceptable.');
  return value
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
}

/** limit, marker, sort_key, sort_dir, fields, detail. */
export function listParams(req: ApiRequest, maxLimit: number, sortable: (key: string) => boolean | 'json'): ListParams {
  const rawLimit = queryValue(req, 'limit');
  let limit = maxLimit;
  if (rawLimit !== undefined) {
    if (!/^-?\d+$/.test(rawLimit.trim())) throw new InvalidParameterValue(`Expected an integer for limit: ${rawLimit}`);
    const n = Number(rawLimit);
    if (n <= 0) throw new ClientSideError('Limit must be positive');
    limit = Math.min(n, maxLimit);
  }
  const sortDir = queryValue(req, 'sort_dir') ?? 'asc';
  if (sortDir !== 'asc' && sortDir !== 'desc') {
    throw new ClientSideError(`Invalid sort direction: ${sortDir}. Acceptable values are 'asc' or 'desc'`);
  }
  const sortKey = queryValue(req, 'sort_key') ?? 'id';
  const ok = sortable(sortKey);
  if (ok === 'json') throw new ClientSideError(`The sort_key value ${sortKey} is an invalid field for sorting`);
  if (!ok) throw new ClientSideError(`The sort_key value "${sortKey}" is an invalid field for sorting`);
  const marker = uuidParam(req, 'marker');
  const fields = fieldsParam(req);
  const detail = boolParam(req, 'detail');
  if (detail !== undefined && !atLeast(req.version, 43)) throw new ClientSideError('Request not acceptable.');
  if (detail === true && fields !== undefined) throw new ClientSideError('Can not specify ?detail=True and fields in the same request.');
  return { limit, marker, sortKey, sortDir, fields, detail };
}

/**
 * Ironic's `next` link: present whenever a page is full (Ironic does not look ahead), with the
 * parameters Ironic repeats, in its order, then limit and the last item as marker.
 */
export function nextLink(
  req: ApiRequest,
  resource: string,
  items: readonly { uuid: string }[],
  limit: number,
  parameters: readonly [string, string | undefined][],
): string | undefined {
  const last = items[items.length - 1];
  if (last === undefined || items.length !== limit) return undefined;
  const args = parameters
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${value}&`)
    .join('');
  return `${req.baseUrl}/v1/${resource}?${args}limit=${limit}&marker=${last.uuid}`;
}

/** Python's str() of a boolean, as Ironic prints parameters into links. */
export function pyBool(value: boolean | undefined): string | undefined {
  return value === undefined ? undefined : value ? 'True' : 'False';
}
