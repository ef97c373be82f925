/** DynamoDB Local alone (no stack), with the schema's tables, for store and migration tests. */
import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DocumentClient } from '../../../functions/db/dynamo';
import { selectRelease, type ReleaseSelection } from '../../../functions/common/releases';
import { createDocumentClient } from '../../../functions/db/client';
import type { TableName } from '../../../functions/db/schema';
import type { StoreContext } from '../../../functions/db/table';
import { createTables, startDynamoDbLocal } from '../../../local/dynamodb';

export interface TestDynamo {
  readonly endpoint: string;
  readonly raw: DynamoDBClient;
  readonly client: DocumentClient;
  /** A fresh set of the schema's tables. */
  readonly tables: Record<TableName, string>;
  /** A store context over those tables for a release (default: unpinned). */
  context(release?: ReleaseSelection): StoreContext;
  /** Another fresh set of tables on the same DynamoDB. */
  freshTables(): Promise<Record<TableName, string>>;
  stop(): Promise<void>;
}

export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

export async function startDynamo(): Promise<TestDynamo> {
  const dynamo = await startDynamoDbLocal();
  const raw = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS, maxAttempts: 10 });
  const client = createDocumentClient(raw);
  const freshTables = () => createTables(raw, `t${randomBytes(4).toString('hex')}`);
  const tables = await freshTables();
  return {
    endpoint: dynamo.endpoint,
    raw,
    client,
    tables,
    context: (release = selectRelease('')) => ({ client, tables, release }),
    freshTables,
    stop: async () => {
      raw.destroy();
      await dynamo.stop();
    },
  };
}

const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'ScanCommand']);

/**
 * An SDK client for DynamoDB Local that counts the items each request reads, as DynamoDB counts
 * them: items a Query or Scan evaluates, items a BatchGet returns, the item of a Get; and the read
 * units DynamoDB reports those reads consumed. `reset()` and `readUnits()` return their count so
 * far and start again.
 */
export function countingClient(db: TestDynamo): { raw: DynamoDBClient; reset: () => number; readUnits: () => number } {
  let read = 0;
  let units = 0;
  const raw = new DynamoDBClient({ endpoint: db.endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS, maxAttempts: 10 });
  raw.middlewareStack.add(
    (next, context) => async (args) => {
      const reading = READS.has(String(context.commandName));
      const input = args.input as { ReturnConsumedCapacity?: string };
      if (reading) input.ReturnConsumedCapacity ??= 'TOTAL';
      const result = await next(args);
      const out = result.output as {
        ScannedCount?: number;
        Responses?: Record<string, unknown[]>;
        Item?: unknown;
        ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[];
      };
      if (typeof out.ScannedCount === 'number') read += out.ScannedCount;
      else if (out.Responses !== undefined && !Array.isArray(out.Responses)) read += Object.values(out.Responses).flat().length;
      else if (out.Item !== undefined) read += 1;
      if (reading) for (const used of [out.ConsumedCapacity ?? []].flat()) units += used.CapacityUnits ?? 0;
      return result;
    },
    { step: 'initialize', name: 'countItemsRead' },
  );
  return {
    raw,
    reset: () => {
      const was = read;
      read = 0;
      return was;
    },
    readUnits: () => {
      const was = units;
      units = 0;
      return was;
    },
  };
}
