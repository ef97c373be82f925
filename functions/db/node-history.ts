/**
 * The node history store (API 1.78): a node's events in the order they happened, and their
 * removal with the node or when pruned.
 */
import { BatchWriteCommand, QueryCommand, ScanCommand } from './dynamo';
import { Conflict, NodeHistoryNotFound } from '#common/errors';
import type { Dict } from '#objects/fields';
import { NodeHistory } from '#objects/node-history';
import type { ObjectCodec } from './items';
import { sparseKey } from './keys';
import type { Page, PageOf } from './query';
import { ObjectTable, type StoreContext } from './table';

export interface NodeHistoryStore {
  get(uuid: string): Promise<NodeHistory>;
  create(record: NodeHistory): Promise<NodeHistory>;
  /** A node's records, oldest first (Ironic's order). */
  listByNode(nodeUuid: string, page: Page): Promise<PageOf<NodeHistory>>;
  /** Delete a node's records but the newest `keep` (0: all, as when the node is deleted); returns how many went. */
  prune(nodeUuid: string, keep: number): Promise<number>;
  /**
   * Ironic's `query_node_history_records_for_purge`: for each node with more than `maxEntries`
   * records (counting only records created before `before`, when given), the UUIDs of its oldest
   * records beyond that number, oldest first. One (paginated) Scan, as Ironic runs one query.
   */
  purgeCandidates(maxEntries: number, before?: string): Promise<Map<string, string[]>>;
  /** Delete records by UUID. */
  deleteMany(uuids: readonly string[]): Promise<void>;
}

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

  create(record: NodeHistory): Promise<NodeHistory> {
    return this.createObject(record);
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

  async purgeCandidates(maxEntries: number, before?: string): Promise<Map<string, string[]>> {
    const byNode = new Map<string, { uuid: string; order: string }[]>();
    let start: Dict | undefined;
    do {
      const result = await this.client.send(
        new ScanCommand({
          TableName: this.tableName,
          ProjectionExpression: '#u, node_uuid, created_at, #o',
          ExpressionAttributeNames: { '#u': 'uuid', '#o': '_id' },
          ExclusiveStartKey: start,
        }),
      );
      for (const item of result.Items ?? []) {
        if (before !== undefined && !(Date.parse(String(item.created_at)) < Date.parse(before))) continue;
        const node = String(item.node_uuid);
        const records = byNode.get(node) ?? [];
        records.push({ uuid: String(item.uuid), order: String(item._id) });
        byNode.set(node, records);
      }
      start = result.LastEvaluatedKey;
    } while (start !== undefined);
    const out = new Map<string, string[]>();
    for (const [node, records] of byNode) {
      if (records.length <= maxEntries) continue;
      // `_id` grows with each record written: creation order, as Ironic's row ids.
      records.sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
      out.set(
        node,
        records.slice(0, records.length - maxEntries).map((r) => r.uuid),
      );
    }
    return out;
  }

  async deleteMany(uuids: readonly string[]): Promise<void> {
    for (let i = 0; i < uuids.length; i += 25) {
      let requests: Dict[] | undefined = uuids.slice(i, i + 25).map((uuid) => ({ DeleteRequest: { Key: { uuid } } }));
      while (requests !== undefined && requests.length > 0) {
        const result = await this.client.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: requests } }));
        requests = result.UnprocessedItems?.[this.tableName] as Dict[] | undefined;
      }
    }
  }
}
