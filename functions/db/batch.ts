/**
 * The two multi-item loops every per-node child table needs (BIOS settings, firmware components,
 * node history): read all of a node's items by its partition key, page by page, and write many
 * items with BatchWriteItem. DynamoDB may leave part of a batch unprocessed when a partition is
 * throttled; the AWS guidance is to send that part again after an exponential backoff with jitter,
 * which the SDK's own retries do not do (the call itself succeeded). Past a bound the write fails
 * as DatabaseUnavailable, the error every caller already handles as "retry later".
 */
import { DatabaseUnavailable } from '#common/errors';
import type { ReleaseSelection } from '#common/releases';
import type { VersionedObject } from '#objects/base';
import type { Dict } from '#objects/fields';
import { BatchWriteCommand, type DocumentClient, QueryCommand } from './dynamo';
import { type ObjectCodec, decodeItem } from './items';
import type { TableName } from './schema';
import type { StoreContext } from './table';

/** BatchWriteItem's limit of requests per call. */
export const BATCH_WRITE_LIMIT = 25;

export interface BatchWriteOptions {
  /** Calls per chunk before giving up on what stays unprocessed (default 8). */
  readonly attempts?: number;
  /** Backoff base: the n-th resend waits up to base × 2^n ms, capped at 5 s (default 50). */
  readonly backoffMs?: number;
  /** For tests: how to wait. */
  readonly sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Write `requests` (PutRequest/DeleteRequest items) to `table`, 25 per call, resending what DynamoDB leaves unprocessed. */
export async function batchWriteAll(
  client: DocumentClient,
  table: string,
  requests: readonly Dict[],
  options: BatchWriteOptions = {},
): Promise<void> {
  const attempts = options.attempts ?? 8;
  const backoff = options.backoffMs ?? 50;
  const sleep = options.sleep ?? defaultSleep;
  for (let i = 0; i < requests.length; i += BATCH_WRITE_LIMIT) {
    let pending: Dict[] = requests.slice(i, i + BATCH_WRITE_LIMIT);
    for (let round = 0; pending.length > 0; round++) {
      if (round === attempts) {
        throw new DatabaseUnavailable(`${pending.length} writes to ${table} left unprocessed ${attempts} times (throttling)`, false);
      }
      // Full jitter: a random wait up to the exponential bound, so throttled writers spread out.
      if (round > 0) await sleep(Math.random() * Math.min(5000, backoff * 2 ** round));
      const result = await client.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
      pending = (result.UnprocessedItems?.[table] as Dict[] | undefined) ?? [];
    }
  }
}

/** Every item under one partition key value, read strongly consistent, page by page. */
export async function queryPartition(client: DocumentClient, table: string, keyName: string, keyValue: string): Promise<Dict[]> {
  const out: Dict[] = [];
  let start: Dict | undefined;
  do {
    const result = await client.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: '#k = :k',
        ExpressionAttributeNames: { '#k': keyName },
        ExpressionAttributeValues: { ':k': keyValue },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    out.push(...((result.Items ?? []) as Dict[]));
    start = result.LastEvaluatedKey as Dict | undefined;
  } while (start !== undefined);
  return out;
}

/**
 * A table of a node's child items, partitioned by `node_uuid` (BIOS settings, firmware
 * components): the node's items are one Query, written in batches by the conductor holding the
 * node's lock.
 */
export abstract class NodePartitionTable<T extends VersionedObject> {
  protected readonly client: DocumentClient;
  protected readonly tableName: string;
  protected readonly release: ReleaseSelection;
  protected readonly now: () => number;

  protected constructor(
    ctx: StoreContext,
    table: TableName,
    private readonly codec: ObjectCodec<T>,
  ) {
    this.client = ctx.client;
    this.tableName = ctx.tables[table];
    this.release = ctx.release;
    this.now = ctx.now ?? Date.now;
  }

  /** The node's items, in sort key order. */
  async list(nodeUuid: string): Promise<T[]> {
    return (await queryPartition(this.client, this.tableName, 'node_uuid', nodeUuid)).map((item) => this.decode(item));
  }

  protected decode(item: Dict): T {
    return decodeItem(this.codec, item);
  }

  protected async batchWrite(requests: readonly Dict[]): Promise<void> {
    await batchWriteAll(this.client, this.tableName, requests);
  }
}
