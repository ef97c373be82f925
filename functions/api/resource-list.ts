/**
 * What the lists of ports, portgroups, chassis and deploy templates share (Ironic 21.4's
 * `get_request_return_fields`, `validate_limit`, `validate_sort_dir`, the controllers'
 * `invalid_sort_key_list`, the database's sort columns, and `collection.get_next`).
 */
import { InvalidParameterValue, NotAcceptable } from '#common/errors';
import type { ApiContext } from './context';
import type { ApiRequest } from './http';
import { atLeast } from './microversion';
import { type Arg, type Args, type Spec, arg, defineQuery, without } from './request';

/**
 * A list's query (Ironic's get_all arguments): a marker of the resource's own kind, then limit,
 * sort_key, sort_dir, fields and detail, then the list's own filters (`more`), read in that order.
 */
export function listQuery<M, S extends Spec = Record<never, never>>(marker: Arg<M>, more?: S) {
  return defineQuery({
    marker,
    limit: arg.integer(),
    sort_key: arg.string(),
    sort_dir: arg.string(),
    fields: arg.stringList(),
    detail: arg.boolean(),
    ...(more as S),
  });
}

/**
 * The queries of a list served at `/v1/<things>` and `/v1/<things>/detail` whose newer arguments
 * (`newer`, Ironic master's) are unknown below `since` (1.88 for ports and portgroups, as the 2026.3
 * release answered): the `/detail` path takes no `fields` or `detail`. Built once at module load;
 * `read` picks the variant for the request's path and version.
 */
export function listVariants<S extends Spec>(args: S, newer: readonly (keyof S & string)[], since: number) {
  const variants = (detailPath: boolean) => {
    const paths: (keyof S & string)[] = detailPath ? ['fields', 'detail'] : [];
    return { older: defineQuery(without(args, [...paths, ...newer])), current: defineQuery(without(args, paths)) };
  };
  const byPath = { list: variants(false), detail: variants(true) };
  return {
    read(req: ApiRequest, detailPath: boolean): Args<S> {
      const queries = detailPath ? byPath.detail : byPath.list;
      return (atLeast(req.version, since) ? queries.current : queries.older).read(req);
    },
  };
}

/** Python's str() of a boolean. */
export const pyBool = (value: boolean): string => (value ? 'True' : 'False');

/** 406 unless the request's version allows `fields` (1.8, Ironic's check_allow_specify_fields). */
export function checkAllowSpecifyFields(req: ApiRequest, fields: readonly string[] | undefined): void {
  if (fields !== undefined && !atLeast(req.version, 8)) throw new NotAcceptable('Request not acceptable.');
}

/**
 * The fields a list shows (Ironic's get_request_return_fields): the defaults unless `fields` or
 * `detail` is given; `detail` needs 1.43; both together are refused.
 */
export function returnFields(
  req: ApiRequest,
  fields: string[] | undefined,
  detail: boolean | undefined,
  defaults: readonly string[],
): string[] | undefined {
  if (detail !== undefined && !atLeast(req.version, 43)) {
    throw new InvalidParameterValue(`Invalid query parameter ?detail=${pyBool(detail)} received.`);
  }
  if (fields !== undefined && detail) throw new InvalidParameterValue('Can not specify ?detail=True and fields in the same request.');
  if (fields === undefined && !detail) return [...defaults];
  return fields;
}

export interface SortSpec {
  /** Sort keys the controller refuses outright (JSON columns). */
  readonly invalid: readonly string[];
  /** Database columns a list may be sorted by, mapped to the object field that orders the same way. */
  readonly columns: Readonly<Record<string, string>>;
}

export interface Paging {
  readonly limit: number;
  readonly sortKey: string;
  readonly sortDir: 'asc' | 'desc';
}

/** validate_limit and validate_sort_dir. */
export function readPaging(ctx: ApiContext, limit: number | undefined, sortKey: string, sortDir: string): Paging {
  if (limit !== undefined && limit <= 0) throw new InvalidParameterValue('Limit must be positive');
  if (sortDir !== 'asc' && sortDir !== 'desc') {
    throw new InvalidParameterValue(`Invalid sort direction: ${sortDir}. Acceptable values are 'asc' or 'desc'`);
  }
  return { limit: limit === undefined ? ctx.config.maxLimit : Math.min(limit, ctx.config.maxLimit), sortKey, sortDir };
}

/** The controller's refusal of a JSON column as sort key (checked after the marker is looked up). */
export function checkInvalidSortKey(sortKey: string, sort: SortSpec): void {
  if (sort.invalid.includes(sortKey)) throw new InvalidParameterValue(`The sort_key value ${sortKey} is an invalid field for sorting`);
}

/** The object field to sort by (undefined = creation order), or the database's refusal of an unknown column. */
export function sortField(sortKey: string, sort: SortSpec): string | undefined {
  if (sortKey === 'id') return undefined;
  const field = sort.columns[sortKey];
  if (field === undefined) throw new InvalidParameterValue(`The sort_key value "${sortKey}" is an invalid field for sorting`);
  return field;
}

/** Sort columns from a list of column names that are object fields of the same name. */
export function columns(names: readonly string[], extra: Record<string, string> = {}): Record<string, string> {
  return { ...Object.fromEntries(names.map((n) => [n, n])), ...extra, version: '_unkept' };
}

/**
 * Ironic's `next` link: whenever a page is full. Its arguments are sort_key, sort_dir, then
 * `detail` when given, then `fields`, in that order.
 */
export function collectionNext(
  req: ApiRequest,
  resource: string,
  items: readonly { uuid: string }[],
  paging: Paging,
  detail: boolean | undefined,
  fields: readonly string[] | undefined,
): string | undefined {
  const last = items[items.length - 1];
  if (last === undefined || items.length !== paging.limit) return undefined;
  const args: [string, string][] = [
    ['sort_key', paging.sortKey],
    ['sort_dir', paging.sortDir],
  ];
  if (detail !== undefined) args.push(['detail', pyBool(detail)]);
  if (fields !== undefined && fields.length > 0) args.push(['fields', fields.join(',')]);
  const query = args.map(([k, v]) => `${k}=${v}&`).join('');
  return `${req.baseUrl}/v1/${resource}?${query}limit=${paging.limit}&marker=${last.uuid}`;
}

/**
 * Ironic's check_for_invalid_fields: 400 naming every requested field the resource does not have.
 * (Ironic joins a Python set, whose order varies between processes; we keep the request's order.)
 */
export function checkInvalidFields(fields: readonly string[] | undefined, known: readonly string[]): void {
  if (fields === undefined) return;
  const invalid = [...new Set(fields.filter((f) => !known.includes(f)))];
  if (invalid.length > 0) throw new InvalidParameterValue(`Field(s) "${invalid.join(', ')}" are not valid`);
}

/** Keep only the requested fields and the links (Ironic's sanitize_dict). */
export function selectFields(view: Record<string, unknown>, fields: readonly string[] | undefined): Record<string, unknown> {
  if (fields === undefined) return view;
  for (const key of Object.keys(view)) if (!fields.includes(key) && key !== 'links') delete view[key];
  return view;
}
