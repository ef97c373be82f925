/**
 * The writes of `ironless fleet import`. Items are the stores' own (`ObjectTable.newItem`: the
 * same attributes, `version`, index keys and bookkeeping as an API create); how they are sent is
 * the import's:
 *
 * - A node that owns no unique value (no name, no instance, no ports) is put with BatchWriteItem,
 *   25 to a request, what DynamoDB leaves unprocessed sent again with exponential backoff. Its UUID
 *   was checked to be free by the plan; nobody else can pick a random UUID. (On DynamoDB Local,
 *   where transactions are faster, such nodes are packed into transactions instead: `batchWrites`.)
 * - A node with unique values (its name, its ports' MAC addresses and names) is put in a
 *   transaction with its guards in the `uniques` table, each guard conditional on the value being
 *   free (`attribute_not_exists`), as the API's transactions write them: a create through the API
 *   racing the import cannot make a duplicate, and a node is never written without its ports. Up
 *   to 100 items of several nodes go in one transaction; when one is refused, its nodes are sent
 *   again one by one, so only the node at fault fails.
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { ConcurrentUpdate, NodeNotFound, PortAlreadyExists } from '#common/errors';
import { BatchWriteCommand, type DocumentClient, GetCommand, TransactWriteCommand } from '#db/dynamo';
import { cancellationCodes } from '#db/items';
import { sortIdSequence } from '#db/keys';
import type { DynamoNodeStore } from '#db/nodes';
import type { DynamoPortStore } from '#db/ports';
import type { Dict } from '#objects/fields';
import type { NodeError } from './nodes-file';
import { type FileNode, uniqueValues } from './nodes-file';
import type { NodeWrite } from './plan';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** DynamoDB's limits: items per BatchWriteItem and per transaction. */
export const BATCH_WRITE_MAX = 25;
export const TRANSACTION_MAX = 100;

export interface WriteTarget {
  readonly client: DocumentClient;
  readonly nodes: DynamoNodeStore;
  readonly ports: DynamoPortStore;
}

export interface WriteOptions {
  /** Requests in flight at once. */
  readonly concurrency: number;
  /** Creation time of every item (default: now). */
  readonly now?: number;
  /** Rounds of BatchWriteItem for items DynamoDB leaves unprocessed, before giving up on them. */
  readonly batchAttempts?: number;
  /** First backoff in ms (doubled each round, with full jitter). */
  readonly backoffMs?: number;
  /**
   * Put nodes without unique values with BatchWriteItem (default): half the write units of a
   * transaction on AWS. False packs them into transactions too, which DynamoDB Local serves
   * several times faster (it commits each put of a batch on its own; see the README).
   */
  readonly batchWrites?: boolean;
  /** Called as nodes are done (written or failed). */
  readonly onProgress?: (done: number) => void;
}

export interface WriteOutcome {
  readonly createdNodes: number;
  readonly createdPorts: number;
  /** Items written: nodes, ports and unique-value guards. */
  readonly items: number;
  readonly failed: NodeError[];
}

/** One node's items, all or nothing: `items` in one transaction when `transact`, else one batch put. */
interface Unit {
  readonly write: NodeWrite;
  readonly items: TransactItem[];
  readonly transact: boolean;
  /** The sort id of the node item this unit creates (to recognise it when an answer was lost). */
  readonly sortId?: string;
  /** Per item, the error when its condition fails. */
  readonly refusals: (() => Error)[];
}

/** Build each node's items, in file order (so lists show the nodes in the file's order). */
export function buildUnits(target: Pick<WriteTarget, 'nodes' | 'ports'>, writes: readonly NodeWrite[], now: number): Unit[] {
  const count = writes.reduce((n, w) => n + (w.exists ? 0 : 1) + w.ports.length, 0);
  const sortIds = sortIdSequence(now, count);
  let next = 0;
  return writes.map((write) => {
    const items: TransactItem[] = [];
    const refusals: (() => Error)[] = [];
    const errorFor = new Map(
      uniqueValues({ node: write.node, ports: write.ports } as FileNode).map(({ key, error }) => [key, error] as const),
    );
    let sortId: string | undefined;
    if (write.exists) {
      items.push({ ConditionCheck: existsCondition(target.nodes.tableName, write.node.uuid) });
      refusals.push(() => new NodeNotFound(write.node.uuid));
    } else {
      sortId = sortIds[next++]!;
      const { item, book } = target.nodes.newItem(write.node, now, sortId);
      items.push({ Put: { TableName: target.nodes.tableName, Item: item, ...absentCondition() } });
      refusals.push(errorFor.get(`uuid/${write.node.uuid}`)!);
      for (const key of book.guards) {
        items.push(target.nodes.guardPutFor(key, write.node.uuid));
        refusals.push(errorFor.get(key) ?? (() => new ConcurrentUpdate(key)));
      }
    }
    for (const port of write.ports) {
      const { item, book } = target.ports.newItem(port, now, sortIds[next++]!);
      items.push({ Put: { TableName: target.ports.tableName, Item: item, ...absentCondition() } });
      refusals.push(() => new PortAlreadyExists(port.uuid));
      for (const key of book.guards) {
        items.push(target.ports.guardPutFor(key, port.uuid));
        refusals.push(errorFor.get(key) ?? (() => new ConcurrentUpdate(key)));
      }
    }
    return { write, items, transact: items.length > 1 || write.exists, refusals, ...(sortId ? { sortId } : {}) };
  });
}

function absentCondition() {
  return { ConditionExpression: 'attribute_not_exists(#uuid)', ExpressionAttributeNames: { '#uuid': 'uuid' } };
}

function existsCondition(table: string, uuid: string) {
  return { TableName: table, Key: { uuid }, ConditionExpression: 'attribute_exists(#uuid)', ExpressionAttributeNames: { '#uuid': 'uuid' } };
}

/** Write every unit; failures are reported per node, never thrown. */
export async function writeUnits(target: WriteTarget, units: readonly Unit[], options: WriteOptions): Promise<WriteOutcome> {
  const jobs: (() => Promise<void>)[] = [];
  let createdNodes = 0;
  let createdPorts = 0;
  let items = 0;
  let done = 0;
  const failed: NodeError[] = [];
  const succeeded = (unit: Unit) => {
    if (!unit.write.exists) createdNodes++;
    createdPorts += unit.write.ports.length;
    items += unit.items.filter((i) => i.Put !== undefined).length;
  };
  const fail = (unit: Unit, message: string) =>
    failed.push({ index: unit.write.index, ident: unit.write.node.name ?? unit.write.node.uuid, message });
  const progress = (n: number) => {
    done += n;
    options.onProgress?.(done);
  };

  const batchWrites = options.batchWrites ?? true;
  const batched = batchWrites ? units.filter((u) => !u.transact) : [];
  for (let i = 0; i < batched.length; i += BATCH_WRITE_MAX) {
    const chunk = batched.slice(i, i + BATCH_WRITE_MAX);
    jobs.push(async () => {
      const left = await batchPut(target.client, target.nodes.tableName, chunk, options);
      for (const unit of chunk) {
        if (left.has(unit)) fail(unit, left.get(unit)!);
        else succeeded(unit);
      }
      progress(chunk.length);
    });
  }
  for (const pack of packs(units.filter((u) => u.transact || !batchWrites))) {
    jobs.push(async () => {
      const results = await transactPack(target, pack);
      results.forEach((error, i) => (error === undefined ? succeeded(pack[i]!) : fail(pack[i]!, error)));
      progress(pack.length);
    });
  }
  await pool(jobs, options.concurrency);
  return { createdNodes, createdPorts, items, failed: failed.sort((a, b) => a.index - b.index) };
}

/** Consecutive units packed into transactions of at most TRANSACTION_MAX items (a larger unit alone). */
function packs(units: readonly Unit[]): Unit[][] {
  const out: Unit[][] = [];
  let current: Unit[] = [];
  let size = 0;
  for (const unit of units) {
    if (current.length > 0 && size + unit.items.length > TRANSACTION_MAX) {
      out.push(current);
      current = [];
      size = 0;
    }
    current.push(unit);
    size += unit.items.length;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** Each unit's error message, or undefined when it was written. */
async function transactPack(target: WriteTarget, pack: readonly Unit[]): Promise<(string | undefined)[]> {
  if (pack.length > 1) {
    try {
      await target.client.send(new TransactWriteCommand({ TransactItems: pack.flatMap((u) => u.items) }));
      return pack.map(() => undefined);
    } catch {
      // Which node is at fault (or whether the failure was passing) is found by sending them one by one.
    }
  }
  const results: (string | undefined)[] = [];
  for (const unit of pack) results.push(await transactUnit(target, unit));
  return results;
}

async function transactUnit(target: WriteTarget, unit: Unit): Promise<string | undefined> {
  if (unit.items.length > TRANSACTION_MAX) {
    return `The node and its ports make ${unit.items.length} items, more than a DynamoDB transaction holds (${TRANSACTION_MAX}): import it with fewer ports and add the others through the API.`;
  }
  try {
    await target.client.send(new TransactWriteCommand({ TransactItems: unit.items }));
    return undefined;
  } catch (err) {
    const codes = cancellationCodes(err);
    if (codes === undefined) return `${(err as Error).message} (nothing of this node was written: import the file again)`;
    // The node's own put refused: written by an earlier attempt of this very transaction whose answer was lost?
    if (codes[0] === 'ConditionalCheckFailed' && unit.sortId !== undefined && (await writtenBy(target, unit))) return undefined;
    const at = codes.findIndex((code) => code === 'ConditionalCheckFailed');
    if (at >= 0) return unit.refusals[at]!().message;
    return `DynamoDB cancelled the transaction (${codes.filter(Boolean).join(', ')}): nothing of this node was written; import the file again.`;
  }
}

async function writtenBy(target: WriteTarget, unit: Unit): Promise<boolean> {
  const { Item } = await target.client.send(
    new GetCommand({ TableName: target.nodes.tableName, Key: { uuid: unit.write.node.uuid }, ConsistentRead: true }),
  );
  return Item?._id === unit.sortId;
}

/**
 * Put single-item units with BatchWriteItem; what DynamoDB leaves unprocessed is sent again after
 * a backoff (full jitter over backoffMs × 2^round). Returns the units still unwritten, with why.
 */
async function batchPut(client: DocumentClient, table: string, units: readonly Unit[], options: WriteOptions): Promise<Map<Unit, string>> {
  const byUuid = new Map(units.map((u) => [u.write.node.uuid, u]));
  let pending: Dict[] = units.map((u) => ({ PutRequest: { Item: u.items[0]!.Put!.Item } }));
  const attempts = options.batchAttempts ?? 10;
  const backoff = options.backoffMs ?? 50;
  const left = new Map<Unit, string>();
  try {
    for (let round = 0; pending.length > 0; round++) {
      if (round >= attempts) {
        for (const request of pending) {
          const unit = byUuid.get(String((request as { PutRequest: { Item: Dict } }).PutRequest.Item.uuid))!;
          left.set(unit, `DynamoDB left the write unprocessed ${attempts} times (throttling): import the file again.`);
        }
        break;
      }
      if (round > 0) await new Promise((r) => setTimeout(r, Math.random() * Math.min(5000, backoff * 2 ** round)));
      const result = await client.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
      pending = (result.UnprocessedItems?.[table] as Dict[] | undefined) ?? [];
    }
  } catch (err) {
    for (const request of pending) {
      const unit = byUuid.get(String((request as { PutRequest: { Item: Dict } }).PutRequest.Item.uuid))!;
      left.set(unit, `${(err as Error).message}: import the file again.`);
    }
  }
  return left;
}

/** Run `jobs` with at most `concurrency` at once. */
export async function pool(jobs: readonly (() => Promise<void>)[], concurrency: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, jobs.length) }, async () => {
      for (let job = jobs[next++]; job !== undefined; job = jobs[next++]) await job();
    }),
  );
}
