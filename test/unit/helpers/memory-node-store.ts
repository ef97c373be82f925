/**
 * An in-memory NodeStore with the DynamoDB store's semantics that the domain relies on: revisions
 * (a stale copy cannot be saved), locks with expiry, unique names. For unit tests of flows.
 */
import { ConcurrentUpdate, DuplicateName, NodeLocked, NodeNotFound } from '../../../functions/common/errors';
import type { LockOwner, NodeFilter, NodeStore, Page, ReserveOptions, SaveOptions, SweepPage } from '../../../functions/db/nodes';
import type { NodeHistoryStore } from '../../../functions/db/node-history';
import type { Dict } from '../../../functions/objects/fields';
import { Node } from '../../../functions/objects/node';

interface Stored {
  item: Dict;
  rev: number;
  sortId: string;
  lockOwner?: string;
  lockExpiresAt?: number;
}

export class MemoryNodeStore implements NodeStore {
  readonly items = new Map<string, Stored>();
  private seq = 0;
  now = () => Date.now();
  /** Where a save's `event` goes (written first: a failing history store fails the save, as one transaction). */
  history?: NodeHistoryStore;

  private load(stored: Stored): Node {
    const node = Node.fromItem(structuredClone(stored.item));
    node.storeMeta = { rev: stored.rev, sortId: stored.sortId, guards: [] };
    // As the DynamoDB store: a read sees the lock's expiry; only reserve() hands out the lock.
    if (stored.lockOwner !== undefined) {
      node.storeMeta.lockExpiresAt = stored.lockExpiresAt;
      node.storeMeta.lockHolder = stored.lockOwner;
    }
    return node;
  }

  private live(stored: Stored): boolean {
    return stored.lockOwner !== undefined && (stored.lockExpiresAt ?? 0) >= this.now();
  }

  async get(uuid: string): Promise<Node> {
    const stored = this.items.get(uuid);
    if (!stored) throw new NodeNotFound(uuid);
    return this.load(stored);
  }

  async getByName(name: string): Promise<Node> {
    for (const stored of this.items.values()) if (stored.item.name === name) return this.load(stored);
    throw new NodeNotFound(name);
  }

  getByIdent(ident: string): Promise<Node> {
    return this.items.has(ident) ? this.get(ident) : this.getByName(ident);
  }

  async getByInstance(instanceUuid: string): Promise<Node> {
    for (const stored of this.items.values()) if (stored.item.instance_uuid === instanceUuid) return this.load(stored);
    throw new NodeNotFound(instanceUuid);
  }

  async create(node: Node): Promise<Node> {
    if (node.name && [...this.items.values()].some((s) => s.item.name === node.name)) throw new DuplicateName(node.name);
    node.created_at ??= new Date(this.now()).toISOString();
    const stored: Stored = { item: node.toItem(), rev: 1, sortId: String(++this.seq).padStart(10, '0') };
    this.items.set(node.uuid, stored);
    node.storeMeta = { rev: 1, sortId: stored.sortId, guards: [] };
    node.resetChanges();
    return node;
  }

  async save(node: Node, options: SaveOptions = {}): Promise<Node> {
    const stored = this.items.get(node.uuid);
    const meta = node.storeMeta;
    if (!stored || !meta) throw new NodeNotFound(node.uuid);
    if (this.live(stored) && stored.lockOwner !== meta.lockOwner) throw new NodeLocked(node.uuid, String(stored.item.reservation));
    if (stored.rev !== meta.rev) throw new ConcurrentUpdate(`Node ${node.uuid}`);
    if (options.release) {
      node.reservation = null;
      delete stored.lockOwner;
      delete stored.lockExpiresAt;
    } else if (options.lockFor) {
      node.reservation = options.lockFor.host;
      stored.lockOwner = options.lockFor.token;
      stored.lockExpiresAt = this.now() + options.lockFor.ttlSeconds * 1000;
    }
    if (options.event !== undefined) {
      if (this.history === undefined) throw new Error('MemoryNodeStore: a save with an event needs a history store (set `history`)');
      await this.history.create(options.event, this.now());
    }
    stored.item = node.toItem();
    stored.rev += 1;
    const held = stored.lockOwner !== undefined && (options.lockFor !== undefined || meta.lockOwner === stored.lockOwner);
    node.storeMeta = { rev: stored.rev, sortId: stored.sortId, guards: [] };
    if (stored.lockOwner !== undefined) node.storeMeta.lockExpiresAt = stored.lockExpiresAt;
    if (stored.lockOwner !== undefined) node.storeMeta.lockHolder = stored.lockOwner;
    if (held) node.storeMeta.lockOwner = stored.lockOwner;
    node.resetChanges();
    return node;
  }

  async destroy(node: Node): Promise<void> {
    this.items.delete(node.uuid);
  }

  async list(filter: NodeFilter, page: Page): Promise<{ nodes: Node[]; more: boolean }> {
    let nodes = [...this.items.values()].sort((a, b) => a.sortId.localeCompare(b.sortId)).map((s) => this.load(s));
    if (filter.provisionState !== undefined) nodes = nodes.filter((n) => n.provision_state === filter.provisionState);
    if (page.marker !== undefined) nodes = nodes.slice(nodes.findIndex((n) => n.uuid === page.marker) + 1);
    return { nodes: nodes.slice(0, page.limit), more: nodes.length > page.limit };
  }

  async sweep(page: SweepPage): Promise<{ nodes: Node[]; cursor?: string }> {
    // Key order, as a table's scan order is independent of creation order.
    let stored = [...this.items.values()].sort((a, b) => String(a.item.uuid).localeCompare(String(b.item.uuid)));
    if (page.cursor !== undefined) stored = stored.filter((s) => String(s.item.uuid) > page.cursor!);
    const nodes = stored.slice(0, page.limit).map((s) => this.load(s));
    const last = nodes[nodes.length - 1];
    return { nodes, ...(stored.length > page.limit && last ? { cursor: last.uuid } : {}) };
  }

  async reserve(uuid: string, owner: LockOwner, options: ReserveOptions = {}): Promise<Node> {
    const stored = this.items.get(uuid);
    if (!stored) throw new NodeNotFound(uuid);
    if (this.live(stored) && stored.lockOwner !== owner.token && stored.lockOwner !== options.takeOverFrom) {
      throw new NodeLocked(uuid, String(stored.item.reservation));
    }
    stored.lockOwner = owner.token;
    stored.lockExpiresAt = this.now() + owner.ttlSeconds * 1000;
    stored.item = { ...stored.item, reservation: owner.host };
    stored.rev += 1;
    const node = this.load(stored);
    node.storeMeta = { ...node.storeMeta!, lockOwner: owner.token, lockHolder: owner.token };
    return node;
  }

  async revision(uuid: string): Promise<number | undefined> {
    return this.items.get(uuid)?.rev;
  }

  async shardCounts(): Promise<Map<string | null, number>> {
    const counts = new Map<string | null, number>();
    for (const stored of this.items.values()) {
      const shard = this.load(stored).shard;
      counts.set(shard, (counts.get(shard) ?? 0) + 1);
    }
    return counts;
  }

  async release(node: Node): Promise<boolean> {
    const stored = this.items.get(node.uuid);
    if (!stored || stored.lockOwner !== node.storeMeta?.lockOwner) return false;
    delete stored.lockOwner;
    delete stored.lockExpiresAt;
    const { reservation: _reservation, ...item } = stored.item;
    stored.item = item;
    stored.rev += 1;
    node.reservation = null;
    return true;
  }
}
