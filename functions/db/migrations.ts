/**
 * Online data migrations (Ironic's `update_to_latest_versions`): bring every item to the latest
 * version of its object, while the services keep running.
 *
 * Each table is read with a parallel Scan whose filter returns only items not at the latest
 * version, so a second run reads but writes nothing, and a run stopped half-way (by --max-count,
 * a Lambda deadline, a crash) resumes where the items tell it to. Converted items are written in
 * batches (TransactWriteItems, DynamoDB's only batched conditional write), each item on condition
 * that its revision and version are still those that were read: an item a service changed
 * meanwhile is left alone (the service wrote it at its own version) and counted as a conflict for
 * the next run. The revision itself is kept: a migration changes how an item is stored, not what
 * it says, so a service holding a copy read before the migration can still save it.
 */
import { IncompatibleObjectVersion } from '#common/errors';
import { objectFromItem } from '#objects/base';
import type { Dict } from '#objects/fields';
import { type DocumentClient, PutCommand, ScanCommand, TransactWriteCommand } from './dynamo';
import type { VersionedTable } from './codecs';
import { cancellationCodes, isConditionFailure, isTransactionConflict, splitItem } from './items';

export interface MigrationResult {
  /** The object the table holds, e.g. "Node". */
  readonly object: string;
  readonly table: string;
  /** The version items are brought to. */
  readonly latest: string;
  /** Items not at the latest version when the run started (Ironic's "total"). */
  total: number;
  /** Items this run wrote at the latest version. */
  migrated: number;
  /** Items a service changed while they were being migrated; the next run looks at them again. */
  conflicts: number;
  /** Items at a version this code cannot read (`dbsync upgrade` names them). */
  unreadable: number;
}

export interface MigrateOptions {
  readonly client: DocumentClient;
  readonly tables: readonly VersionedTable[];
  /** Migrate at most this many items over all tables; undefined = all. */
  readonly maxCount?: number;
  /** Parallel Scan segments per table. @default 4 */
  readonly segments?: number;
  /** Items per conditional batch write (at most 100, DynamoDB's transaction limit). @default 100 */
  readonly batchSize?: number;
  /** Start no new batch after this time (epoch ms), so a Lambda returns before its timeout. */
  readonly deadline?: number;
  /** Items each table has to migrate, when already counted (a version census); counted otherwise. */
  readonly totals?: readonly number[];
  /** Called after the counting pass and after every batch. */
  readonly onProgress?: (results: readonly MigrationResult[]) => void;
}

/** DynamoDB's transaction payload limit is 4 MB; stay clear of it. */
const MAX_BATCH_BYTES = 3_500_000;
/** Batches each segment keeps in flight. */
const BATCHES_IN_FLIGHT = 2;

const NOT_LATEST = {
  FilterExpression: '#v <> :latest',
  ExpressionAttributeNames: { '#v': 'version' },
};

/** How many items of a table are not at `latest` (a parallel Scan that returns only counts). */
export async function countToMigrate(client: DocumentClient, table: string, latest: string, segments = 4): Promise<number> {
  const counts = await Promise.all(
    Array.from({ length: segments }, async (_, segment) => {
      let count = 0;
      let start: Dict | undefined;
      do {
        const page = await client.send(
          new ScanCommand({
            TableName: table,
            Segment: segment,
            TotalSegments: segments,
            Select: 'COUNT',
            ...NOT_LATEST,
            ExpressionAttributeValues: { ':latest': latest },
            ExclusiveStartKey: start,
          }),
        );
        count += page.Count ?? 0;
        start = page.LastEvaluatedKey;
      } while (start !== undefined);
      return count;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

export async function migrateToLatest(options: MigrateOptions): Promise<MigrationResult[]> {
  const segments = options.segments ?? 4;
  const results: MigrationResult[] = options.tables.map(({ table, codec }) => ({
    object: codec.cls.objName,
    table,
    latest: codec.cls.VERSION,
    total: 0,
    migrated: 0,
    conflicts: 0,
    unreadable: 0,
  }));
  for (const [i, result] of results.entries()) {
    result.total = options.totals?.[i] ?? (await countToMigrate(options.client, result.table, result.latest, segments));
  }
  options.onProgress?.(results);

  // The budget is shared by all tables, in order, and reserved before a batch is written.
  let budget = options.maxCount ?? Number.POSITIVE_INFINITY;
  const stopped = () => budget <= 0 || (options.deadline !== undefined && Date.now() >= options.deadline);
  for (let i = 0; i < options.tables.length; i++) {
    const { table, codec } = options.tables[i]!;
    const result = results[i]!;
    if (result.total === 0) continue;
    await Promise.all(
      Array.from({ length: segments }, async (_, segment) => {
        let start: Dict | undefined;
        do {
          if (stopped()) return;
          const page = await options.client.send(
            new ScanCommand({
              TableName: table,
              Segment: segment,
              TotalSegments: segments,
              ...NOT_LATEST,
              ExpressionAttributeValues: { ':latest': result.latest },
              ExclusiveStartKey: start,
            }),
          );
          start = page.LastEvaluatedKey;
          const items = page.Items ?? [];
          const take = Math.min(items.length, budget);
          budget -= take;
          const writes: Write[] = [];
          for (const raw of items.slice(0, take)) {
            try {
              writes.push({ item: migrateItem(raw, codec), expected: raw });
            } catch (err) {
              if (!(err instanceof IncompatibleObjectVersion)) throw err;
              result.unreadable++;
            }
          }
          await inFlight(batches(writes, Math.min(options.batchSize ?? 100, 100)), BATCHES_IN_FLIGHT, async (batch) => {
            const { written, conflicts } = await writeBatch(options.client, table, codec.keyName, batch);
            result.migrated += written;
            result.conflicts += conflicts;
            options.onProgress?.(results);
          });
        } while (start !== undefined);
      }),
    );
  }
  return results;
}

/** A stored item brought to its object's latest version; bookkeeping kept, index keys re-derived. */
export function migrateItem(raw: Dict, codec: VersionedTable['codec']): Dict {
  const { attributes } = splitItem(raw);
  const obj = objectFromItem(codec.cls, attributes);
  const out: Dict = {};
  for (const [name, value] of Object.entries(raw)) {
    if (name === 'rev' || name.startsWith('_')) out[name] = value;
  }
  Object.assign(out, obj.toItem(codec.cls.VERSION));
  for (const [name, value] of Object.entries(codec.derive(obj.values()))) {
    if (value === undefined) delete out[name];
    else out[name] = value;
  }
  return out;
}

interface Write {
  readonly item: Dict;
  /** The item as read: the write is conditional on its revision and version. */
  readonly expected: Dict;
}

function condition(expected: Dict) {
  return typeof expected.rev === 'number'
    ? {
        ConditionExpression: '#rev = :rev AND #v = :old',
        ExpressionAttributeNames: { '#rev': 'rev', '#v': 'version' },
        ExpressionAttributeValues: { ':rev': expected.rev, ':old': expected.version },
      }
    : {
        ConditionExpression: 'attribute_not_exists(#rev) AND #v = :old',
        ExpressionAttributeNames: { '#rev': 'rev', '#v': 'version' },
        ExpressionAttributeValues: { ':old': expected.version },
      };
}

/**
 * Write a batch in one transaction. If it is cancelled (an item changed meanwhile, or another
 * transaction touched one), each item is written on its own, so one busy item does not hold up
 * the others; an item whose condition fails (or that a transaction still holds) is a conflict.
 */
async function writeBatch(
  client: DocumentClient,
  table: string,
  keyName: string,
  batch: Write[],
): Promise<{ written: number; conflicts: number }> {
  try {
    await client.send(
      new TransactWriteCommand({
        TransactItems: batch.map((w) => ({ Put: { TableName: table, Item: w.item, ...condition(w.expected) } })),
      }),
    );
    return { written: batch.length, conflicts: 0 };
  } catch (err) {
    if (cancellationCodes(err) === undefined && (err as { name?: string }).name !== 'ValidationException') throw err;
  }
  let written = 0;
  let conflicts = 0;
  await inFlight(batch, 8, async (w) => {
    try {
      await client.send(new PutCommand({ TableName: table, Item: w.item, ...condition(w.expected) }));
      written++;
    } catch (err) {
      // Changed meanwhile, or still held by a transaction past the retries: the next run looks again.
      if (!isConditionFailure(err) && !isTransactionConflict(err))
        throw new Error(`Migrating ${keyName} ${String(w.item[keyName])}: ${(err as Error).message}`);
      conflicts++;
    }
  });
  return { written, conflicts };
}

/** Split writes into batches of at most `size` items and about MAX_BATCH_BYTES. */
function batches(writes: Write[], size: number): Write[][] {
  const out: Write[][] = [];
  let current: Write[] = [];
  let bytes = 0;
  for (const w of writes) {
    const itemBytes = JSON.stringify(w.item).length;
    if (current.length > 0 && (current.length >= size || bytes + itemBytes > MAX_BATCH_BYTES)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(w);
    bytes += itemBytes;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** Run `fn` over `items` with at most `limit` calls in flight. */
async function inFlight<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      for (;;) {
        const item = items[next++];
        if (item === undefined) return;
        await fn(item);
      }
    }),
  );
}
