/**
 * The node history store (API 1.78): a node's events in the order they happened, and their
 * removal with the node or when pruned.
 */
import { batchWriteAll } from './batch';
import { QueryCommand } from './dynamo';
import { Conflict, NodeHistoryNotFound } from '#common/errors';
import type { Dict } from '#objects/fields';
import { NodeHistory } from '#objects/node-history';
import type { ObjectCodec } from './items';
import { sortIdTime, sparseKey } from './keys';
import type { Page, PageOf } from './query';
import { ObjectTable, type StoreContext } from './table';

export interface NodeHistoryStore {
  get(uuid: string): Promise<NodeHistory>;
  /**
   * Write a record that happened at `at` (epoch ms; now by default): its `created_at` and its place
   * in the node's history. A conductor passes the time of the node save the event belongs to, so a
   * record written late (its write retried, its invocation slowed) still lists before the events
   * of the saves that came after it.
   */
  create(record: NodeHistory, at?: number): Promise<NodeHistory>;
  /** A node's records, oldest first (Ironic's order). */
  listByNode(nodeUuid: string, page: Page): Promise<PageOf<NodeHistory>>;
  /** Delete a node's records but the newest `keep` (0: all, as when the node is deleted); returns how many went. */
  prune(nodeUuid: string, keep: number): Promise<number>;
  /**
   * Ironic's `query_node_history_records_for_purge`, for the given nodes: for each node with more
   * than `maxEntries` records (counting only records created before `before`, when given), the
   * UUIDs of its oldest records beyond that number, oldest first. A keys-only Query per node: the
   * items read are the nodes' records, never the whole table.
   */
  purgeCandidates(nodeUuids: readonly string[], maxEntries: number, before?: string): Promise<Map<string, string[]>>;
  /** Delete records by UUID. */
  deleteMany(uuids: readonly string[]): Promise<void>;
}

/** Nodes whose records `purgeCandidates` queries at once. */
const PURGE_QUERIES_IN_FLIGHT = 10;

export const NODE_HISTORY_CODEC: ObjectCodec<NodeHistory> = {
  cls: NodeHistory,
  keyName: 'uuid',
  derive: (v) => ({ _node: sparseKey(v.node_uuid) }),
  guards: () => [],
};

export class DynamoNodeHistoryStore extends ObjectTable<NodeHistory> implements NodeHistoryStore {
  constructor(ctx: StoreContext) {
    super(ctx, 'node_history', NODE_HISTORY_CODEC, {
      notFound: (ident) => new NodeHistoryNotFound(ident),
      // Ironic names a NodeHistoryAlreadyExists it never defines; a plain 409 says the same.
      alreadyExists: (r) => new Conflict(`A node history record with UUID ${r.uuid} already exists.`),
      duplicate: (_key, r) => new Conflict(`A node history record with UUID ${r.uuid} already exists.`),
    });
  }

  create(record: NodeHistory, at?: number): Promise<NodeHistory> {
    return this.createObject(record, [], at);
  }

  listByNode(nodeUuid: string, page: Page): Promise<PageOf<NodeHistory>> {
    return this.listFrom({ indexes: [{ index: 'byNode', keyName: '_node', value: sparseKey(nodeUuid)! }] }, page);
  }

  async prune(nodeUuid: string, keep: number): Promise<number> {
    const uuids: string[] = [];
    let start: Dict | undefined;
    do {
      // Newest first: the first `keep` stay.
      const result = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: 'byNode',
          KeyConditionExpression: '#n = :n',
          ExpressionAttributeNames: { '#n': '_node' },
          ExpressionAttributeValues: { ':n': sparseKey(nodeUuid) },
          ScanIndexForward: false,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of result.Items ?? []) uuids.push(String(item.uuid));
      start = result.LastEvaluatedKey;
    } while (start !== undefined);
    const doomed = uuids.slice(keep);
    await this.deleteMany(doomed);
    return doomed.length;
  }

  async purgeCandidates(nodeUuids: readonly string[], maxEntries: number, before?: string): Promise<Map<string, string[]>> {
    const cutoff = before === undefined ? undefined : Date.parse(before);
    const found = new Map<string, string[]>();
    // A few nodes at a time: a page of nodes is a page of small Queries.
    for (let i = 0; i < nodeUuids.length; i += PURGE_QUERIES_IN_FLIGHT) {
      const chunk = nodeUuids.slice(i, i + PURGE_QUERIES_IN_FLIGHT);
      const counted = await Promise.all(chunk.map((node) => this.countedRecords(node, cutoff)));
      chunk.forEach((node, j) => {
        const records = counted[j]!;
        // Oldest first, as the records were written.
        if (records.length > maxEntries) found.set(node, records.slice(maxEntries).reverse());
      });
    }
    // In the order the nodes were given.
    return new Map(nodeUuids.filter((n) => found.has(n)).map((n) => [n, found.get(n)!]));
  }

  /** A node's records created before `cutoff` (all without one), newest first, from the keys-only index. */
  private async countedRecords(node: string, cutoff: number | undefined): Promise<string[]> {
    const counted: string[] = [];
    let start: Dict | undefined;
    do {
      const result = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: 'byNode',
          KeyConditionExpression: '#n = :n',
          ExpressionAttributeNames: { '#n': '_node' },
          ExpressionAttributeValues: { ':n': sparseKey(node) },
          ScanIndexForward: false,
          ExclusiveStartKey: start,
        }),
      );
      // The index projects uuid and `_id`, whose head is the creation time.
      for (const item of result.Items ?? []) {
        if (cutoff === undefined || sortIdTime(String(item._id)) < cutoff) counted.push(String(item.uuid));
      }
      start = result.LastEvaluatedKey;
    } while (start !== undefined);
    return counted;
  }

  async deleteMany(uuids: readonly string[]): Promise<void> {
    await batchWriteAll(
      this.client,
      this.tableName,
      uuids.map((uuid) => ({ DeleteRequest: { Key: { uuid } } })),
    );
  }
}
