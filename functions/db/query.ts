/**
 * Lists, for every store: keys from KEYS_ONLY indexes, items by BatchGetItem, in Ironic's order
 * and with Ironic's marker semantics.
 *
 * Order: Ironic sorts by the requested key and then by `id`, both in the requested direction; its
 * default is `id`, which is creation order, here `_id`. A marker is the uuid of the last item of
 * the previous page; the next page starts after the marker's *position* in that order, whether or
 * not the marker matches the filter (oslo.db's paginate_query). A marker that does not exist is
 * the resource's NotFound (Ironic looks the marker up first and answers 404).
 *
 * Costs: in creation order, one Query per page of keys (several index partitions are merged by
 * `_id`) and one BatchGetItem per 100 items. Sorting by another key reads every matching item and
 * sorts in memory, as DynamoDB has no index per sort key.
 */
import { BatchGetCommand, type DocumentClient, GetCommand, QueryCommand } from './dynamo';
import type { VersionedObject } from '#objects/base';
import type { Dict } from '#objects/fields';
import { type ObjectCodec, decodeItem } from './items';

/** One partition of an index: items whose `keyName` attribute is `value`. */
export interface IndexSource {
  readonly index: string;
  readonly keyName: string;
  readonly value: string;
}

export interface Page {
  readonly limit: number;
  /** Key (uuid) of the last item of the previous page. */
  readonly marker?: string;
  /** An object field; undefined (or "id") = creation order. */
  readonly sortKey?: string;
  readonly sortDir?: 'asc' | 'desc';
  /**
   * Read the items strongly consistently (the default: a client reads its own writes). Periodic
   * tasks pass false: they act only under a lock or a conditional write, and an eventually
   * consistent read costs half the read units.
   */
  readonly consistent?: boolean;
}

/**
 * A page of items. `more` false means nothing follows; true means a next page may hold items
 * (finding out for sure could mean reading the rest of a filtered list).
 */
export interface PageOf<T> {
  readonly items: T[];
  readonly more: boolean;
}

export interface ListSpec<T extends VersionedObject> {
  readonly client: DocumentClient;
  readonly table: string;
  readonly codec: ObjectCodec<T>;
  /** Where keys come from: index partitions (merged in `_id` order), or a known set of keys. */
  readonly from: { readonly indexes: readonly IndexSource[] } | { readonly keys: readonly string[] };
  /** The filters the source does not answer; undefined when it answers all of them. */
  readonly matches?: (obj: T) => boolean;
  readonly page: Page;
  readonly markerNotFound: (marker: string) => Error;
}

const BATCH_GET_MAX = 100;
/** Keys per Query page: keys-only items are small, so a page stays far below Query's 1 MB. */
const QUERY_PAGE_MAX = 1000;

interface KeyRef {
  readonly key: string;
  readonly sortId: string;
}

export async function listObjects<T extends VersionedObject>(spec: ListSpec<T>): Promise<PageOf<T>> {
  const custom = spec.page.sortKey !== undefined && spec.page.sortKey !== 'id';
  if (custom || 'keys' in spec.from) return listSorted(spec);
  return listInCreationOrder(spec, spec.from.indexes);
}

/** Creation order straight from the indexes: reads only what the page needs. */
async function listInCreationOrder<T extends VersionedObject>(spec: ListSpec<T>, sources: readonly IndexSource[]): Promise<PageOf<T>> {
  const { limit } = spec.page;
  const descending = spec.page.sortDir === 'desc';
  let start: string | undefined;
  if (spec.page.marker !== undefined) {
    const { Item } = await spec.client.send(
      new GetCommand({
        TableName: spec.table,
        Key: { [spec.codec.keyName]: spec.page.marker },
        ProjectionExpression: '#id',
        ExpressionAttributeNames: { '#id': '_id' },
        ConsistentRead: true,
      }),
    );
    if (!Item) throw spec.markerNotFound(spec.page.marker);
    start = String(Item._id);
  }
  const streams = sources.map((source) => indexKeys(spec, source, start, descending, Math.min(limit, QUERY_PAGE_MAX) + 1));
  const keys = merge(streams, descending);
  if (!spec.matches) {
    // Every key is a row of the page: take the page's keys (and one more, to know whether there
    // is a next page), then read the items in parallel BatchGets rather than one after another.
    const refs: KeyRef[] = [];
    while (refs.length <= limit) {
      const next = await keys.next();
      if (next.done) break;
      refs.push(next.value);
    }
    const page = refs.slice(0, limit).map((k) => k.key);
    return { items: await batchGet(spec, page, spec.page.consistent ?? true), more: refs.length > limit };
  }
  // A filter the index cannot apply: read a BatchGet's worth of keys at a time until the page is full.
  const matches = spec.matches;
  const out: T[] = [];
  for (;;) {
    const chunk: KeyRef[] = [];
    let exhausted = false;
    while (chunk.length < BATCH_GET_MAX) {
      const next = await keys.next();
      if (next.done) {
        exhausted = true;
        break;
      }
      chunk.push(next.value);
    }
    for (const obj of await batchGet(
      spec,
      chunk.map((k) => k.key),
      spec.page.consistent ?? true,
    )) {
      if (matches(obj)) out.push(obj);
    }
    if (out.length > limit) return { items: out.slice(0, limit), more: true };
    if (exhausted) return { items: out, more: false };
    if (out.length === limit) return { items: out, more: !(await keys.next()).done };
  }
}

/** Every matching item, sorted in memory: for other sort keys and for known key sets. */
async function listSorted<T extends VersionedObject>(spec: ListSpec<T>): Promise<PageOf<T>> {
  const { limit, sortKey } = spec.page;
  const descending = spec.page.sortDir === 'desc';
  const key = sortKey === undefined || sortKey === 'id' ? undefined : sortKey;
  let keys: string[];
  if ('keys' in spec.from) {
    keys = [...spec.from.keys];
  } else {
    keys = [];
    for await (const ref of merge(
      spec.from.indexes.map((source) => indexKeys(spec, source, undefined, false, QUERY_PAGE_MAX)),
      false,
    )) {
      keys.push(ref.key);
    }
  }
  let items = (await batchGet(spec, keys)).filter((obj) => !spec.matches || spec.matches(obj));
  const order = (a: T, b: T) => {
    const byKey = key === undefined ? 0 : compareValues(fieldOf(a, key), fieldOf(b, key));
    return (byKey || compareStrings(sortIdOf(a), sortIdOf(b))) * (descending ? -1 : 1);
  };
  items.sort(order);
  if (spec.page.marker !== undefined) {
    const marker = (await batchGet(spec, [spec.page.marker]))[0];
    if (marker === undefined) throw spec.markerNotFound(spec.page.marker);
    items = items.filter((obj) => order(obj, marker) > 0);
  }
  return { items: items.slice(0, limit), more: items.length > limit };
}

/** Keys of one index partition in `_id` order, after `start`, fetched page by page as consumed. */
async function* indexKeys<T extends VersionedObject>(
  spec: ListSpec<T>,
  source: IndexSource,
  start: string | undefined,
  descending: boolean,
  firstPage: number,
): AsyncGenerator<KeyRef> {
  let exclusiveStart: Dict | undefined;
  let pageSize = firstPage;
  do {
    const names: Record<string, string> = { '#pk': source.keyName };
    const values: Dict = { ':pk': source.value };
    let condition = '#pk = :pk';
    if (start !== undefined) {
      condition += ` AND #id ${descending ? '<' : '>'} :start`;
      names['#id'] = '_id';
      values[':start'] = start;
    }
    const result = await spec.client.send(
      new QueryCommand({
        TableName: spec.table,
        IndexName: source.index,
        KeyConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ScanIndexForward: !descending,
        ExclusiveStartKey: exclusiveStart,
        Limit: pageSize,
      }),
    );
    for (const item of result.Items ?? []) yield { key: String(item[spec.codec.keyName]), sortId: String(item._id) };
    exclusiveStart = result.LastEvaluatedKey;
    pageSize = QUERY_PAGE_MAX;
  } while (exclusiveStart !== undefined);
}

/**
 * Merge key streams, each in `_id` order, into one (an item in two partitions comes once). A
 * stream is advanced only when its head has been taken and the next key is asked for, so the
 * merge never queries a page nobody needs.
 */
async function* merge(streams: AsyncGenerator<KeyRef>[], descending: boolean): AsyncGenerator<KeyRef> {
  const heads: (IteratorResult<KeyRef> | undefined)[] = streams.map(() => undefined);
  const seen = streams.length > 1 ? new Set<string>() : undefined;
  for (;;) {
    for (let i = 0; i < streams.length; i++) heads[i] ??= await streams[i]!.next();
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i]!;
      if (head.done) continue;
      const current = best < 0 ? undefined : heads[best]!;
      if (current === undefined || current.done || compareStrings(head.value.sortId, current.value.sortId) * (descending ? -1 : 1) < 0) {
        best = i;
      }
    }
    if (best < 0) return;
    const head = heads[best]!;
    if (head.done) return;
    heads[best] = undefined;
    if (seen?.has(head.value.key)) continue;
    seen?.add(head.value.key);
    yield head.value;
  }
}

/** Fetch items by key, keeping the given order; items deleted meanwhile are skipped. */
export async function batchGet<T extends VersionedObject>(
  spec: Pick<ListSpec<T>, 'client' | 'table' | 'codec'>,
  keys: readonly string[],
  consistent = true,
): Promise<T[]> {
  const found = new Map<string, T>();
  const chunks: string[][] = [];
  for (let i = 0; i < keys.length; i += BATCH_GET_MAX) chunks.push(keys.slice(i, i + BATCH_GET_MAX));
  let next = 0;
  // A few chunks at a time: large collections are read in parallel without flooding the table.
  await Promise.all(
    Array.from({ length: Math.min(4, chunks.length) }, async () => {
      for (;;) {
        const chunk = chunks[next++];
        if (chunk === undefined) return;
        let pending: Dict[] | undefined = [...new Set(chunk)].map((key) => ({ [spec.codec.keyName]: key }));
        while (pending !== undefined && pending.length > 0) {
          const result = await spec.client.send(
            new BatchGetCommand({ RequestItems: { [spec.table]: { Keys: pending, ConsistentRead: consistent } } }),
          );
          for (const item of result.Responses?.[spec.table] ?? []) {
            const obj = decodeItem(spec.codec, item);
            found.set(String(item[spec.codec.keyName]), obj);
          }
          pending = result.UnprocessedKeys?.[spec.table]?.Keys as Dict[] | undefined;
          // Unprocessed keys mean the table is throttling: back off a little before asking again.
          if (pending !== undefined && pending.length > 0) await new Promise((r) => setTimeout(r, 50));
        }
      }
    }),
  );
  return keys.flatMap((key) => {
    const obj = found.get(key);
    return obj ? [obj] : [];
  });
}

function sortIdOf(obj: VersionedObject): string {
  return obj.storeMeta?.sortId ?? '';
}

function fieldOf(obj: VersionedObject, key: string): unknown {
  return obj.values()[key];
}

/** SQL's order: NULL first, numbers and booleans by value, the rest as strings. */
export function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return compareStrings(String(a), String(b));
}

/** Code-point order (as a binary SQL collation), independent of the locale. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
