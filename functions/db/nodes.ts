/**
 * The node store: the port the domain uses (`NodeStore`) and its DynamoDB implementation.
 *
 * Costs per operation (DynamoDB round trips): get by uuid 1 read; get by name 2 reads (guard, item);
 * create 1 write (a transaction when the node has a name or instance); save 1 write; reserve 1 write
 * (returns the item); list: 1 query per page of keys + 1 batch read per 100 items.
 *
 * Every write is conditional: on the item's revision (no lost updates) and on its lock (a node
 * reserved by someone else is never written: NodeLocked, 409).
 */
import {
  BatchGetCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ConcurrentUpdate, DuplicateName, InstanceAssociated, NodeAlreadyExists, NodeLocked, NodeNotFound } from '#common/errors';
import type { ReleaseSelection } from '#common/releases';
import type { Dict } from '#objects/fields';
import { Node } from '#objects/node';
import { isUuidLike } from '#common/ids';
import { cancellationCodes, isConditionFailure, splitItem } from './items';
import { ALL_NODES, groupKey, guard, newSortId, shardKey } from './keys';
import type { TableName } from './schema';

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
}

export interface NodeFilter {
  readonly provisionState?: string;
  readonly conductorGroup?: string;
  readonly shards?: readonly string[];
  readonly sharded?: boolean;
  readonly instanceUuid?: string;
  readonly associated?: boolean;
  readonly maintenance?: boolean;
  readonly driver?: string;
  readonly resourceClass?: string;
  readonly owner?: string;
  readonly lessee?: string;
  readonly fault?: string;
  readonly retired?: boolean;
  readonly chassisUuid?: string;
  /** SQL LIKE '%…%' semantics, as Ironic's database applies it: case-insensitive, `%` and `_` are wildcards. */
  readonly descriptionContains?: string;
  readonly parentNode?: string;
  /** Owner or lessee. */
  readonly project?: string;
}

export interface Page {
  readonly limit: number;
  /** UUID of the last node of the previous page. */
  readonly marker?: string;
  /** A node field; undefined = Ironic's default order (creation). */
  readonly sortKey?: string;
  readonly sortDir?: 'asc' | 'desc';
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
  list(filter: NodeFilter, page: Page): Promise<{ nodes: Node[]; more: boolean }>;
  /** Lock a node (conditional write); NodeLocked when someone else holds a live lock. */
  reserve(uuid: string, owner: LockOwner, options?: ReserveOptions): Promise<Node>;
  /** Release a lock this copy holds; false when it was no longer ours. */
  release(node: Node): Promise<boolean>;
  /** How many nodes each shard has (null: nodes without a shard). */
  shardCounts(): Promise<Map<string | null, number>>;
}

export interface DynamoNodeStoreProps {
  readonly client: DynamoDBDocumentClient;
  readonly tables: Record<TableName, string>;
  readonly release: ReleaseSelection;
  readonly now?: () => number;
}

const BATCH_GET_MAX = 100;

export class DynamoNodeStore implements NodeStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly table: string;
  private readonly uniques: string;
  private readonly releaseSelection: ReleaseSelection;
  private readonly now: () => number;

  constructor(props: DynamoNodeStoreProps) {
    this.client = props.client;
    this.table = props.tables.nodes;
    this.uniques = props.tables.uniques;
    this.releaseSelection = props.release;
    this.now = props.now ?? Date.now;
  }

  async get(uuid: string): Promise<Node> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: { uuid }, ConsistentRead: true }));
    if (!Item) throw new NodeNotFound(uuid);
    return this.fromItem(Item);
  }

  async getByName(name: string): Promise<Node> {
    const owner = await this.guardOwner(guard.nodeName(name));
    if (owner === undefined) throw new NodeNotFound(name);
    try {
      return await this.get(owner);
    } catch (err) {
      if (err instanceof NodeNotFound) throw new NodeNotFound(name);
      throw err;
    }
  }

  getByIdent(ident: string): Promise<Node> {
    return isUuidLike(ident) ? this.get(ident) : this.getByName(ident);
  }

  async getByInstance(instanceUuid: string): Promise<Node> {
    const owner = await this.guardOwner(guard.nodeInstance(instanceUuid));
    if (owner === undefined) throw new NodeNotFound(`with instance ${instanceUuid}`);
    return this.get(owner);
  }

  async create(node: Node): Promise<Node> {
    const now = new Date(this.now()).toISOString();
    node.created_at = now;
    node.updated_at = null;
    const sortId = newSortId(this.now());
    const guards = guardsOf(node);
    const item = this.toItem(node, { rev: 1, sortId, guards });
    try {
      if (guards.length === 0) {
        await this.client.send(
          new PutCommand({
            TableName: this.table,
            Item: item,
            ConditionExpression: 'attribute_not_exists(#uuid)',
            ExpressionAttributeNames: { '#uuid': 'uuid' },
          }),
        );
      } else {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: this.table,
                  Item: item,
                  ConditionExpression: 'attribute_not_exists(#uuid)',
                  ExpressionAttributeNames: { '#uuid': 'uuid' },
                },
              },
              ...guards.map((key) => ({
                Put: {
                  TableName: this.uniques,
                  Item: { key, owner: node.uuid },
                  ConditionExpression: 'attribute_not_exists(#key)',
                  ExpressionAttributeNames: { '#key': 'key' },
                },
              })),
            ],
          }),
        );
      }
    } catch (err) {
      if (isConditionFailure(err)) throw new NodeAlreadyExists(node.uuid);
      const codes = cancellationCodes(err);
      if (codes) throw this.guardError(node, codes, guards, 1, () => new NodeAlreadyExists(node.uuid));
      throw err;
    }
    node.storeMeta = { rev: 1, sortId, guards };
    node.resetChanges();
    return node;
  }

  async save(node: Node, options: SaveOptions = {}): Promise<Node> {
    const meta = node.storeMeta;
    if (meta === undefined) throw new Error('save() needs a node read from the store; use create() for new nodes');
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
    const guards = guardsOf(node);
    const item = this.toItem(node, { rev: meta.rev + 1, sortId: meta.sortId, guards, lockOwner, lockExpiresAt });
    const condition = this.writeCondition(meta, now);
    const removed = meta.guards.filter((key) => !guards.includes(key));
    const added = guards.filter((key) => !meta.guards.includes(key));
    try {
      if (removed.length === 0 && added.length === 0) {
        await this.client.send(new PutCommand({ TableName: this.table, Item: item, ...condition }));
      } else {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: this.table, Item: item, ...condition } },
              ...added.map((key) => ({
                Put: {
                  TableName: this.uniques,
                  Item: { key, owner: node.uuid },
                  ConditionExpression: 'attribute_not_exists(#key)',
                  ExpressionAttributeNames: { '#key': 'key' },
                },
              })),
              ...removed.map((key) => ({
                Delete: {
                  TableName: this.uniques,
                  Key: { key },
                  ConditionExpression: '#owner = :owner',
                  ExpressionAttributeNames: { '#owner': 'owner' },
                  ExpressionAttributeValues: { ':owner': node.uuid },
                },
              })),
            ],
          }),
        );
      }
    } catch (err) {
      if (isConditionFailure(err)) throw await this.conflictCause(node.uuid, meta);
      const codes = cancellationCodes(err);
      if (codes) {
        if (codes[0] !== undefined) throw await this.conflictCause(node.uuid, meta);
        throw this.guardError(node, codes, added, 1, () => new ConcurrentUpdate(`Node ${node.uuid}`));
      }
      throw err;
    }
    node.storeMeta = { rev: meta.rev + 1, sortId: meta.sortId, guards };
    if (lockOwner !== undefined) node.storeMeta.lockOwner = lockOwner;
    if (lockExpiresAt !== undefined) node.storeMeta.lockExpiresAt = lockExpiresAt;
    node.resetChanges();
    return node;
  }

  async destroy(node: Node): Promise<void> {
    const meta = node.storeMeta;
    if (meta === undefined) throw new Error('destroy() needs a node read from the store');
    const condition = this.writeCondition(meta, this.now());
    try {
      if (meta.guards.length === 0) {
        await this.client.send(new DeleteCommand({ TableName: this.table, Key: { uuid: node.uuid }, ...condition }));
      } else {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              { Delete: { TableName: this.table, Key: { uuid: node.uuid }, ...condition } },
              ...meta.guards.map((key) => ({ Delete: { TableName: this.uniques, Key: { key } } })),
            ],
          }),
        );
      }
    } catch (err) {
      if (isConditionFailure(err) || cancellationCodes(err)) throw await this.conflictCause(node.uuid, meta);
      throw err;
    }
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
          TableName: this.table,
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
      return this.fromItem(Attributes as Dict);
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      const current = await this.client.send(new GetCommand({ TableName: this.table, Key: { uuid }, ConsistentRead: true }));
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
          TableName: this.table,
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

  async list(filter: NodeFilter, page: Page): Promise<{ nodes: Node[]; more: boolean }> {
    // An empty shard list matches nothing (SQL `shard IN ()`).
    if (filter.shards !== undefined && filter.shards.length === 0) return { nodes: [], more: false };
    const sources = this.indexSources(filter);
    const custom = page.sortKey !== undefined && page.sortKey !== 'id';
    const descending = page.sortDir === 'desc';
    let start: string | undefined;
    if (page.marker !== undefined && !custom) {
      // The marker's position in creation order; a vanished marker restarts nothing (empty page).
      const marker = await this.client.send(
        new GetCommand({
          TableName: this.table,
          Key: { uuid: page.marker },
          ProjectionExpression: '#id',
          ExpressionAttributeNames: { '#id': '_id' },
        }),
      );
      if (!marker.Item) return { nodes: [], more: false };
      start = String(marker.Item._id);
    }
    const wanted = custom ? Number.POSITIVE_INFINITY : page.limit + 1;
    const nodes = await this.collect(sources, filter, { start, descending, wanted });
    if (!custom) return { nodes: nodes.slice(0, page.limit), more: nodes.length > page.limit };

    const key = page.sortKey as string;
    // Ironic orders by (sort key, id), both in the requested direction; NULL sorts first.
    nodes.sort(
      (a, b) =>
        (compareField((a as unknown as Dict)[key], (b as unknown as Dict)[key]) || compareField(a.storeMeta!.sortId, b.storeMeta!.sortId)) *
        (descending ? -1 : 1),
    );
    let from = 0;
    if (page.marker !== undefined) {
      const index = nodes.findIndex((n) => n.uuid === page.marker);
      if (index < 0) return { nodes: [], more: false };
      from = index + 1;
    }
    return { nodes: nodes.slice(from, from + page.limit), more: nodes.length > from + page.limit };
  }

  // --- internals -------------------------------------------------------------------------------

  private async guardOwner(key: string): Promise<string | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.uniques, Key: { key }, ConsistentRead: true }));
    return typeof Item?.owner === 'string' ? Item.owner : undefined;
  }

  private fromItem(item: Dict): Node {
    const { attributes, meta } = splitItem(item);
    const node = Node.fromItem(attributes);
    node.storeMeta = meta;
    return node;
  }

  private toItem(
    node: Node,
    bookkeeping: {
      rev: number;
      sortId: string;
      guards: readonly string[];
      lockOwner?: string | undefined;
      lockExpiresAt?: number | undefined;
    },
  ): Dict {
    const item = node.toItem(this.releaseSelection.objectVersion('Node'));
    item.rev = bookkeeping.rev;
    item._id = bookkeeping.sortId;
    item._all = ALL_NODES;
    item._shard = shardKey(node.shard);
    item._group = groupKey(node.conductor_group);
    item._pstate = node.provision_state;
    if (bookkeeping.guards.length > 0) item._guards = [...bookkeeping.guards];
    if (bookkeeping.lockOwner !== undefined) {
      item._lock_owner = bookkeeping.lockOwner;
      item._lock_exp = bookkeeping.lockExpiresAt;
    } else {
      delete item.reservation;
    }
    return item;
  }

  /** Condition of every write: the revision we read, and a lock that is ours or nobody's. */
  private writeCondition(
    meta: { rev: number; lockOwner?: string },
    now: number,
  ): { ConditionExpression: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues: Dict } {
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
  private async conflictCause(uuid: string, meta: { lockOwner?: string }): Promise<Error> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: { uuid }, ConsistentRead: true }));
    if (!Item) return new NodeNotFound(uuid);
    const owner = Item._lock_owner;
    const live = typeof owner === 'string' && typeof Item._lock_exp === 'number' && Item._lock_exp >= this.now();
    if (live && owner !== meta.lockOwner) return new NodeLocked(uuid, String(Item.reservation ?? 'unknown'));
    return new ConcurrentUpdate(`Node ${uuid}`);
  }

  private guardError(node: Node, codes: (string | undefined)[], guards: readonly string[], offset: number, fallback: () => Error): Error {
    for (let i = 0; i < guards.length; i++) {
      if (codes[i + offset] === undefined) continue;
      const key = guards[i] as string;
      if (key.startsWith('node/name/')) return new DuplicateName(node.name ?? '');
      if (key.startsWith('node/instance/')) return new InstanceAssociated(node.instance_uuid ?? '', node.uuid);
    }
    return fallback();
  }

  /** Nodes per shard (null = no shard), from a keys-only read of the shard index. */
  async shardCounts(): Promise<Map<string | null, number>> {
    const counts = new Map<string | null, number>();
    let exclusiveStart: Dict | undefined;
    do {
      const page = await this.client.send(
        new ScanCommand({
          TableName: this.table,
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

  /** Which index answers a filter, and with which partition values. */
  private indexSources(filter: NodeFilter): { index: string; keyName: string; values: string[] }[] {
    if (filter.provisionState !== undefined) return [{ index: 'byProvisionState', keyName: '_pstate', values: [filter.provisionState] }];
    if (filter.shards !== undefined && filter.shards.length > 0)
      return [{ index: 'byShard', keyName: '_shard', values: filter.shards.map(shardKey) }];
    if (filter.sharded === false) return [{ index: 'byShard', keyName: '_shard', values: [shardKey(null)] }];
    if (filter.conductorGroup !== undefined)
      return [{ index: 'byConductorGroup', keyName: '_group', values: [groupKey(filter.conductorGroup)] }];
    return [{ index: 'byId', keyName: '_all', values: [ALL_NODES] }];
  }

  /** Read keys from the chosen index in `_id` order, fetch the items, apply the remaining filters. */
  private async collect(
    sources: { index: string; keyName: string; values: string[] }[],
    filter: NodeFilter,
    options: { start: string | undefined; descending: boolean; wanted: number },
  ): Promise<Node[]> {
    const out: Node[] = [];
    const streams = sources.flatMap((source) => source.values.map((value) => ({ ...source, value })));
    for (const stream of streams) {
      let exclusiveStart: Dict | undefined;
      let fetched = 0;
      do {
        const keyCondition = options.start === undefined ? '#pk = :pk' : `#pk = :pk AND #id ${options.descending ? '<' : '>'} :start`;
        const result = await this.client.send(
          new QueryCommand({
            TableName: this.table,
            IndexName: stream.index,
            KeyConditionExpression: keyCondition,
            ExpressionAttributeNames: options.start === undefined ? { '#pk': stream.keyName } : { '#pk': stream.keyName, '#id': '_id' },
            ExpressionAttributeValues:
              options.start === undefined ? { ':pk': stream.value } : { ':pk': stream.value, ':start': options.start },
            ScanIndexForward: !options.descending,
            ExclusiveStartKey: exclusiveStart,
            Limit: Number.isFinite(options.wanted) ? Math.min(Math.max(options.wanted - out.length, 1) * 2, 1000) : 1000,
          }),
        );
        const uuids = (result.Items ?? []).map((item) => String(item.uuid));
        fetched += uuids.length;
        for (const node of await this.batchGet(uuids)) {
          if (matches(node, filter)) out.push(node);
        }
        exclusiveStart = result.LastEvaluatedKey;
      } while (exclusiveStart !== undefined && (streams.length > 1 || out.length < options.wanted));
      void fetched;
    }
    if (streams.length > 1) {
      out.sort((a, b) => a.storeMeta!.sortId.localeCompare(b.storeMeta!.sortId) * (options.descending ? -1 : 1));
    }
    return out;
  }

  /** Fetch items by uuid, keeping the given order; items deleted meanwhile are skipped. */
  private async batchGet(uuids: string[]): Promise<Node[]> {
    const found = new Map<string, Node>();
    const chunks: string[][] = [];
    for (let i = 0; i < uuids.length; i += BATCH_GET_MAX) chunks.push(uuids.slice(i, i + BATCH_GET_MAX));
    await Promise.all(
      chunks.map(async (chunk) => {
        let keys: Dict[] | undefined = chunk.map((uuid) => ({ uuid }));
        while (keys !== undefined && keys.length > 0) {
          const result = await this.client.send(
            new BatchGetCommand({ RequestItems: { [this.table]: { Keys: keys, ConsistentRead: true } } }),
          );
          for (const item of result.Responses?.[this.table] ?? []) {
            const node = this.fromItem(item);
            found.set(node.uuid, node);
          }
          keys = result.UnprocessedKeys?.[this.table]?.Keys as Dict[] | undefined;
        }
      }),
    );
    return uuids.flatMap((uuid) => {
      const node = found.get(uuid);
      return node ? [node] : [];
    });
  }
}

function guardsOf(node: Node): string[] {
  const guards: string[] = [];
  if (node.name) guards.push(guard.nodeName(node.name));
  if (node.instance_uuid) guards.push(guard.nodeInstance(node.instance_uuid));
  return guards;
}

function matches(node: Node, filter: NodeFilter): boolean {
  if (filter.provisionState !== undefined && node.provision_state !== filter.provisionState) return false;
  if (filter.conductorGroup !== undefined && (node.conductor_group ?? '') !== filter.conductorGroup) return false;
  if (filter.shards !== undefined && (node.shard === null || !filter.shards.includes(node.shard))) return false;
  if (filter.sharded !== undefined && (node.shard !== null) !== filter.sharded) return false;
  if (filter.project !== undefined && node.owner !== filter.project && node.lessee !== filter.project) return false;
  if (filter.instanceUuid !== undefined && node.instance_uuid !== filter.instanceUuid) return false;
  if (filter.associated !== undefined && (node.instance_uuid !== null) !== filter.associated) return false;
  if (filter.maintenance !== undefined && node.maintenance !== filter.maintenance) return false;
  if (filter.driver !== undefined && node.driver !== filter.driver) return false;
  if (filter.resourceClass !== undefined && node.resource_class !== filter.resourceClass) return false;
  if (filter.owner !== undefined && node.owner !== filter.owner) return false;
  if (filter.lessee !== undefined && node.lessee !== filter.lessee) return false;
  if (filter.fault !== undefined && node.fault !== filter.fault) return false;
  if (filter.retired !== undefined && node.retired !== filter.retired) return false;
  if (filter.chassisUuid !== undefined && node.chassis_uuid !== filter.chassisUuid) return false;
  if (filter.parentNode !== undefined && node.parent_node !== filter.parentNode) return false;
  if (filter.descriptionContains !== undefined && !sqlLike(node.description, filter.descriptionContains)) return false;
  return true;
}

/** `value LIKE '%keyword%'`: ASCII letters case-insensitive, `%` any run, `_` any one character. */
export function sqlLike(value: string | null, keyword: string): boolean {
  if (value === null) return false;
  const pattern = [...keyword]
    .map((ch) => {
      if (ch === '%') return '.*';
      if (ch === '_') return '.';
      if (/[A-Za-z]/.test(ch)) return `[${ch.toLowerCase()}${ch.toUpperCase()}]`;
      return ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    })
    .join('');
  return new RegExp(pattern, 'su').test(value);
}

/** SQL order: NULL first, numbers and booleans by value, text by code unit (a binary collation). */
function compareField(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return b === null || b === undefined ? 0 : -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
