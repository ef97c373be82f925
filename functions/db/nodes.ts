/**
 * The node store: the port the domain uses (`NodeStore`) and its DynamoDB implementation.
 *
 * Costs per operation (DynamoDB round trips): get by uuid 1 read; get by name or instance 2 reads
 * (guard, item); create 1 write (a transaction when the node has a name, an instance or a
 * chassis); save 1 write (a transaction when a guard moves, a chassis is checked or a history
 * event goes with it); reserve 1 write (returns the item); list: 1 query per page of keys + 1
 * batch read per 100 items (see `query.ts`); a list filtered by instance reads 2 items at most;
 * sweep: 1 scan per page; destroy: 3 queries for dependents, then 1 write (a transaction with
 * them; one per 100 items beyond that), then the history.
 *
 * Every write is conditional: on the item's revision (no lost updates) and on its lock (a node
 * reserved by someone else is never written: NodeLocked, 409).
 */
import { GetCommand, ScanCommand, UpdateCommand } from './dynamo';
import {
  ChassisNotFound,
  ConcurrentUpdate,
  DuplicateName,
  InstanceAssociated,
  NodeAlreadyExists,
  NodeLocked,
  NodeNotFound,
} from '#common/errors';
import { isUuidLike } from '#common/ids';
import type { StoreMeta } from '#objects/base';
import type { Dict } from '#objects/fields';
import { Node } from '#objects/node';
import type { NodeHistory } from '#objects/node-history';
import { type Bookkeeping, type ObjectCodec, cancellationCodes, isConditionFailure, isTransactionConflict } from './items';
import { ALL_NODES, groupKey, guard, shardKey, sparseKey } from './keys';
import { ASSOCIATED, IN_MAINTENANCE, type NodeFilter, planNodeQuery } from './node-filters';
import type { Page } from './query';
import { cascadeTransactions, dependentsOf } from './node-cascade';
import { DynamoNodeHistoryStore } from './node-history';
import { DynamoNodeInventoryStore } from './node-inventory';
import { DynamoBiosSettingStore } from './bios-settings';
import { DynamoFirmwareComponentStore } from './firmware-components';
import type { TableName } from './schema';
import { type ItemCheck, ObjectTable, type StoreContext, type TransactItem, type WriteCondition } from './table';

export type { NodeFilter } from './node-filters';
export type { Page } from './query';

/** Who holds a node lock: `host` is shown as the node's `reservation`, `token` identifies the holder. */
export interface LockOwner {
  readonly host: string;
  readonly token: string;
  readonly ttlSeconds: number;
}

export interface ReserveOptions {
  /** Also take the lock over from this owner token (a hand-over, e.g. from the API to a conductor). */
  readonly takeOverFrom?: string;
}

export interface SaveOptions {
  /** Release the lock this copy holds, in the same write. */
  readonly release?: boolean;
  /** Take the lock for `owner` in the same write (the node must not be locked by someone else). */
  readonly lockFor?: LockOwner;
  /**
   * A history record of the node written in the same transaction, dated at the save: a failure
   * and its ERROR event are saved together or not at all (an invocation killed between two
   * writes would otherwise leave a `last_error` its history does not explain).
   */
  readonly event?: NodeHistory;
}

/** A page of a sweep through every node: at most `limit` nodes, after `cursor` if given. */
export interface SweepPage {
  readonly limit: number;
  readonly cursor?: string;
}

export interface NodeStore {
  get(uuid: string): Promise<Node>;
  getByName(name: string): Promise<Node>;
  /** A UUID or a logical name, as in `/v1/nodes/{node_ident}`. */
  getByIdent(ident: string): Promise<Node>;
  getByInstance(instanceUuid: string): Promise<Node>;
  create(node: Node): Promise<Node>;
  save(node: Node, options?: SaveOptions): Promise<Node>;
  destroy(node: Node): Promise<void>;
  /**
   * A page in Ironic's order (see `query.ts`); a marker that does not exist is NodeNotFound.
   * `more` false: nothing follows; true: the next page may hold nodes.
   */
  list(filter: NodeFilter, page: Page): Promise<{ nodes: Node[]; more: boolean }>;
  /**
   * Every node, one page at a time in the table's own order, for periodic tasks that visit the
   * whole fleet: read eventually consistently, no filter, no order. `cursor` is where the next
   * page starts; none when this page was the last.
   */
  sweep(page: SweepPage): Promise<{ nodes: Node[]; cursor?: string }>;
  /** Lock a node (conditional write); NodeLocked when someone else holds a live lock. */
  reserve(uuid: string, owner: LockOwner, options?: ReserveOptions): Promise<Node>;
  /** Release a lock this copy holds; false when it was no longer ours. */
  release(node: Node): Promise<boolean>;
  /**
   * The node's current revision (a consistent read of that attribute alone), undefined when the
   * node is gone: the fence a conductor checks before acting on hardware (`#drivers/guard`).
   */
  revision(uuid: string): Promise<number | undefined>;
  /** Nodes per shard (null = no shard), for `GET /v1/shards`. */
  shardCounts(): Promise<Map<string | null, number>>;
}

export type DynamoNodeStoreProps = StoreContext;

/** Nodes in the `nodes` table: the index keys of `schema.ts`, name and instance guards. */
export const NODE_CODEC: ObjectCodec<Node> = {
  cls: Node,
  keyName: 'uuid',
  derive: (v) => ({
    _all: ALL_NODES,
    _shard: shardKey(v.shard as string | null),
    _group: groupKey(v.conductor_group as string | null),
    _pstate: v.provision_state || undefined,
    _driver: v.driver || undefined,
    _owner: sparseKey(v.owner),
    _lessee: sparseKey(v.lessee),
    _maint: v.maintenance === true ? IN_MAINTENANCE : undefined,
    _assoc: v.instance_uuid ? ASSOCIATED : undefined,
    _chassis: sparseKey(v.chassis_uuid),
  }),
  guards: (v) => {
    const guards: string[] = [];
    if (typeof v.name === 'string' && v.name !== '') guards.push(guard.nodeName(v.name));
    if (typeof v.instance_uuid === 'string' && v.instance_uuid !== '') guards.push(guard.nodeInstance(v.instance_uuid));
    return guards;
  },
};

export class DynamoNodeStore extends ObjectTable<Node> implements NodeStore {
  private readonly chassisTable: string;
  private readonly tables: Readonly<Record<TableName, string>>;
  private readonly history: DynamoNodeHistoryStore;

  constructor(props: DynamoNodeStoreProps) {
    super(props, 'nodes', NODE_CODEC, {
      notFound: (ident) => new NodeNotFound(ident),
      alreadyExists: (node) => new NodeAlreadyExists(node.uuid),
      duplicate: (key, node) =>
        key.startsWith('node/name/') ? new DuplicateName(node.name ?? '') : new InstanceAssociated(node.instance_uuid ?? '', node.uuid),
    });
    this.chassisTable = props.tables.chassis;
    this.tables = props.tables;
    this.history = new DynamoNodeHistoryStore(props);
  }

  getByName(name: string): Promise<Node> {
    return this.getByGuard(guard.nodeName(name), name);
  }

  getByIdent(ident: string): Promise<Node> {
    return isUuidLike(ident) ? this.get(ident) : this.getByName(ident);
  }

  getByInstance(instanceUuid: string): Promise<Node> {
    return this.getByGuard(guard.nodeInstance(instanceUuid), `with instance ${instanceUuid}`);
  }

  create(node: Node): Promise<Node> {
    return this.createObject(node, this.chassisCheck(node));
  }

  async save(node: Node, options: SaveOptions = {}): Promise<Node> {
    const meta = this.metaOf(node);
    const now = this.now();
    node.updated_at = new Date(now).toISOString();
    let lockOwner = meta.lockOwner;
    let lockExpiresAt = meta.lockExpiresAt;
    if (options.release) {
      node.reservation = null;
      lockOwner = undefined;
      lockExpiresAt = undefined;
    } else if (options.lockFor) {
      node.reservation = options.lockFor.host;
      lockOwner = options.lockFor.token;
      lockExpiresAt = now + options.lockFor.ttlSeconds * 1000;
    }
    const book: Bookkeeping = {
      rev: meta.rev + 1,
      sortId: meta.sortId,
      guards: NODE_CODEC.guards(node.values()),
      lockOwner,
      lockExpiresAt,
    };
    const checks = node.whatChanged().has('chassis_uuid') ? this.chassisCheck(node) : [];
    const event = options.event === undefined ? [] : [this.eventPut(options.event, now)];
    const saved = await this.write(node, book, this.writeCondition(meta, now), checks, event);
    if (options.event !== undefined) options.event.resetChanges();
    return saved;
  }

  /** The put of a new history record of a node, stamped and sorted at `now`. */
  private eventPut(record: NodeHistory, now: number): TransactItem {
    const { item, book } = this.history.newItem(record, now);
    record.storeMeta = { ...book, guards: [] };
    return {
      Put: {
        TableName: this.tables.node_history,
        Item: item,
        ConditionExpression: 'attribute_not_exists(#key)',
        ExpressionAttributeNames: { '#key': 'uuid' },
      },
    };
  }

  /** Destroy a node with its ports, portgroups, allocations, history, inventory, BIOS settings and firmware components (see `node-cascade.ts`). */
  async destroy(node: Node): Promise<void> {
    const meta = this.metaOf(node);
    const dependents = await dependentsOf(this.client, this.tables, node.uuid);
    if (dependents.length === 0) {
      await this.destroyObject(node);
    } else {
      const condition = this.writeCondition(meta, this.now());
      const key = { uuid: node.uuid };
      const transactions = cascadeTransactions(
        [{ Delete: { TableName: this.tableName, Key: key, ...condition } }, ...meta.guards.map((g) => this.guardDeleteFor(g, node.uuid))],
        { ConditionCheck: { TableName: this.tableName, Key: key, ...condition } },
        dependents.map((d) => [
          { Delete: { TableName: d.table, Key: { uuid: d.uuid } } } as TransactItem,
          ...d.guards.map((g) => this.guardDeleteFor(g, d.uuid)),
        ]),
      );
      for (const items of transactions) {
        try {
          await this.transact(items);
        } catch (err) {
          // The node's condition failed (or a concurrent transaction): what is deleted stays so, the node stays.
          if (cancellationCodes(err)) throw await this.conflictCause(node.uuid, meta);
          throw err;
        }
      }
    }
    const others = { client: this.client, tables: this.tables, release: this.releaseSelection };
    await this.history.prune(node.uuid, 0);
    await new DynamoNodeInventoryStore(others).destroy(node.uuid);
    await new DynamoBiosSettingStore(others).destroyAll(node.uuid);
    await new DynamoFirmwareComponentStore(others).destroyAll(node.uuid);
  }

  async reserve(uuid: string, owner: LockOwner, options: ReserveOptions = {}): Promise<Node> {
    const now = this.now();
    const values: Dict = {
      ':host': owner.host,
      ':token': owner.token,
      ':exp': now + owner.ttlSeconds * 1000,
      ':now': now,
      ':one': 1,
    };
    let condition = 'attribute_exists(#uuid) AND (attribute_not_exists(#owner) OR #exp < :now OR #owner = :token';
    if (options.takeOverFrom !== undefined) {
      condition += ' OR #owner = :previous';
      values[':previous'] = options.takeOverFrom;
    }
    condition += ')';
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { uuid },
          UpdateExpression: 'SET #reservation = :host, #owner = :token, #exp = :exp, #rev = #rev + :one',
          ConditionExpression: condition,
          ExpressionAttributeNames: {
            '#uuid': 'uuid',
            '#reservation': 'reservation',
            '#owner': '_lock_owner',
            '#exp': '_lock_exp',
            '#rev': 'rev',
          },
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      const node = this.decode(Attributes as Dict);
      node.storeMeta = { ...this.metaOf(node), lockOwner: owner.token, lockHolder: owner.token };
      return node;
    } catch (err) {
      // Held by a transaction under way (past the SDK's retries) is busy too: the caller's lock retries apply.
      if (!isConditionFailure(err) && !isTransactionConflict(err)) throw err;
      const current = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { uuid }, ConsistentRead: true }));
      if (!current.Item) throw new NodeNotFound(uuid);
      throw new NodeLocked(uuid, String(current.Item.reservation ?? 'unknown'));
    }
  }

  async release(node: Node): Promise<boolean> {
    const owner = node.storeMeta?.lockOwner;
    if (owner === undefined) return false;
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { uuid: node.uuid },
          UpdateExpression: 'REMOVE #reservation, #owner, #exp SET #rev = #rev + :one',
          ConditionExpression: '#owner = :token',
          ExpressionAttributeNames: { '#reservation': 'reservation', '#owner': '_lock_owner', '#exp': '_lock_exp', '#rev': 'rev' },
          ExpressionAttributeValues: { ':token': owner, ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      node.reservation = null;
      node.resetChanges();
      if (node.storeMeta) {
        node.storeMeta = {
          rev: Number(Attributes?.rev ?? node.storeMeta.rev + 1),
          sortId: node.storeMeta.sortId,
          guards: node.storeMeta.guards,
        };
      }
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  async revision(uuid: string): Promise<number | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { uuid },
        ConsistentRead: true,
        ProjectionExpression: '#rev',
        ExpressionAttributeNames: { '#rev': 'rev' },
      }),
    );
    return Item === undefined ? undefined : Number(Item.rev);
  }

  async list(filter: NodeFilter, page: Page): Promise<{ nodes: Node[]; more: boolean }> {
    const plan = planNodeQuery(filter, this.now());
    let from = plan.from;
    if (plan.instanceGuard !== undefined) {
      const owner = await this.guardOwner(plan.instanceGuard);
      from = { keys: owner === undefined ? [] : [owner] };
    }
    const result = await this.listFrom(from, page, plan.matches);
    return { nodes: result.items, more: result.more };
  }

  /**
   * A sweep page is a Scan of the table (it holds nodes only): DynamoDB charges a Scan by the
   * size of what it read, half a unit per 4 KB eventually consistently, where a list (keys from an
   * index, then BatchGetItem) pays half a unit for every node however small. A cursor is the
   * last node's key, which a Scan takes as its ExclusiveStartKey whether or not that node still
   * exists.
   */
  async sweep(page: SweepPage): Promise<{ nodes: Node[]; cursor?: string }> {
    const out = await this.client.send(
      new ScanCommand({
        TableName: this.tableName,
        Limit: page.limit,
        ConsistentRead: false,
        ...(page.cursor !== undefined ? { ExclusiveStartKey: { uuid: page.cursor } } : {}),
      }),
    );
    const last = out.LastEvaluatedKey?.uuid;
    return { nodes: (out.Items ?? []).map((item) => this.decode(item)), ...(last !== undefined ? { cursor: String(last) } : {}) };
  }

  // --- internals -------------------------------------------------------------------------------

  protected override encode(node: Node, book: Bookkeeping): Dict {
    const item = super.encode(node, book);
    // `reservation` is shown only while the lock it names is held.
    if (book.lockOwner === undefined) delete item.reservation;
    return item;
  }

  /** Condition of every write: the revision we read, and a lock that is ours or nobody's. */
  protected override writeCondition(meta: StoreMeta, now: number): WriteCondition {
    if (meta.lockOwner !== undefined) {
      return {
        ConditionExpression: '#rev = :rev AND #owner = :token',
        ExpressionAttributeNames: { '#rev': 'rev', '#owner': '_lock_owner' },
        ExpressionAttributeValues: { ':rev': meta.rev, ':token': meta.lockOwner },
      };
    }
    return {
      ConditionExpression: '#rev = :rev AND (attribute_not_exists(#owner) OR #exp < :now)',
      ExpressionAttributeNames: { '#rev': 'rev', '#owner': '_lock_owner', '#exp': '_lock_exp' },
      ExpressionAttributeValues: { ':rev': meta.rev, ':now': now },
    };
  }

  /** Why a conditional write on a node failed: gone, locked by someone else, or changed meanwhile. */
  protected override async conflictCause(uuid: string, meta: StoreMeta): Promise<Error> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { uuid }, ConsistentRead: true }));
    if (!Item) return new NodeNotFound(uuid);
    const owner = Item._lock_owner;
    const live = typeof owner === 'string' && typeof Item._lock_exp === 'number' && Item._lock_exp >= this.now();
    if (live && owner !== meta.lockOwner) return new NodeLocked(uuid, String(Item.reservation ?? 'unknown'));
    return new ConcurrentUpdate(`Node ${uuid}`);
  }

  /**
   * Nodes per shard, from a keys-only scan of the shard index: an admin endpoint, reading a few
   * hundred keys per read unit, never on a node's hot path.
   */
  async shardCounts(): Promise<Map<string | null, number>> {
    const counts = new Map<string | null, number>();
    let exclusiveStart: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new ScanCommand({
          TableName: this.tableName,
          IndexName: 'byShard',
          ProjectionExpression: '#shard',
          ExpressionAttributeNames: { '#shard': '_shard' },
          ExclusiveStartKey: exclusiveStart,
        }),
      );
      for (const item of page.Items ?? []) {
        const key = String(item._shard);
        const shard = key.startsWith('s#') ? key.slice(2) : null;
        counts.set(shard, (counts.get(shard) ?? 0) + 1);
      }
      exclusiveStart = page.LastEvaluatedKey;
    } while (exclusiveStart !== undefined);
    return counts;
  }

  /** A node's chassis must exist when the node is written with it (Ironic's foreign key). */
  private chassisCheck(node: Node): ItemCheck[] {
    const chassis = node.chassis_uuid;
    if (chassis === null || chassis === undefined) return [];
    return [
      {
        table: this.chassisTable,
        key: { uuid: chassis },
        condition: 'attribute_exists(#uuid)',
        names: { '#uuid': 'uuid' },
        error: () => new ChassisNotFound(chassis),
      },
    ];
  }
}
