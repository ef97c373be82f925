/** In-memory conductor, node history, port and inventory stores, for unit tests of liveness, routing, history and inspection. */
import {
  BIOSSettingNotFound,
  ConductorNotFound,
  MACAlreadyExists,
  NodeHistoryNotFound,
  NodeInventoryNotFound,
  PortNotFound,
} from '../../../functions/common/errors';
import type { ConductorRegistration, ConductorService, ConductorStore, ServiceRecords } from '../../../functions/db/conductors';
import { type BiosSettingStore, type BiosSettingValues, type BiosSyncResult, settingChanged } from '../../../functions/db/bios-settings';
import type { NodeHistoryStore } from '../../../functions/db/node-history';
import type { NodeInventoryStore } from '../../../functions/db/node-inventory';
import type { PortFilter, PortStore } from '../../../functions/db/ports';
import type { Page, PageOf } from '../../../functions/db/query';
import { BIOSSetting } from '../../../functions/objects/bios-setting';
import type { FirmwareComponent } from '../../../functions/objects/firmware-component';
import {
  type FirmwareComponentReading,
  type FirmwareComponentStore,
  type FirmwareSyncResult,
  applyReading,
} from '../../../functions/db/firmware-components';
import { Conductor } from '../../../functions/objects/conductor';
import type { NodeHistory } from '../../../functions/objects/node-history';
import type { NodeInventory } from '../../../functions/objects/node-inventory';
import type { Port } from '../../../functions/objects/port';

export class MemoryConductorStore implements ConductorStore {
  readonly items = new Map<string, Conductor>();
  now = () => Date.now();
  /** Register/touch calls, in order, for assertions. */
  readonly calls: string[] = [];

  async get(hostname: string): Promise<Conductor> {
    const c = this.items.get(hostname);
    if (c === undefined) throw new ConductorNotFound(hostname);
    return c;
  }

  async register(r: ConductorRegistration): Promise<Conductor> {
    this.calls.push(`register ${r.hostname}`);
    const at = new Date(this.now()).toISOString();
    const existing = this.items.get(r.hostname);
    const c = new Conductor({
      hostname: r.hostname,
      conductor_group: (r.conductorGroup ?? '').toLowerCase(),
      drivers: r.drivers ?? null,
      online: true,
      created_at: existing?.created_at ?? at,
      updated_at: at,
    });
    this.items.set(r.hostname, c);
    return c;
  }

  async touch(hostname: string): Promise<void> {
    this.calls.push(`touch ${hostname}`);
    const c = await this.get(hostname);
    c.updated_at = new Date(this.now()).toISOString();
    c.online = true;
  }

  async unregister(hostname: string): Promise<void> {
    (await this.get(hostname)).online = false;
  }

  async list(filter: { online?: boolean; conductorGroup?: string }, page: Page): Promise<PageOf<Conductor>> {
    let items = [...this.items.values()].filter(
      (c) =>
        (filter.online === undefined || c.online === filter.online) &&
        (filter.conductorGroup === undefined || c.conductor_group === filter.conductorGroup),
    );
    if (page.marker !== undefined) items = items.slice(items.findIndex((c) => c.hostname === page.marker) + 1);
    return { items: items.slice(0, page.limit), more: items.length > page.limit };
  }

  async retire(hostname: string, updatedAt: string | null): Promise<boolean> {
    const c = this.items.get(hostname);
    if (c === undefined || (c.updated_at ?? null) !== updatedAt) return false;
    this.calls.push(`retire ${hostname}`);
    return this.items.delete(hostname);
  }

  /** Identity records by key (`group/<function>/<group>`, `queue/<queue>`), as the uniques table keeps them. */
  readonly services = new Map<string, ConductorService>();

  async findService(fn: string, group: string, queue: string): Promise<ServiceRecords> {
    return { byGroup: this.services.get(`group/${fn}/${group}`), byQueue: this.services.get(`queue/${queue}`) };
  }

  async createService(service: ConductorService): Promise<boolean> {
    const keys = [`group/${service.function}/${service.conductorGroup}`, `queue/${service.queue}`];
    if (keys.some((k) => this.services.has(k))) return false;
    for (const k of keys) this.services.set(k, service);
    return true;
  }
}

export class MemoryNodeHistoryStore implements NodeHistoryStore {
  readonly items: NodeHistory[] = [];
  failCreate = false;

  async get(uuid: string): Promise<NodeHistory> {
    const r = this.items.find((i) => i.uuid === uuid);
    if (r === undefined) throw new NodeHistoryNotFound(uuid);
    return r;
  }

  async create(record: NodeHistory, at: number = Date.now()): Promise<NodeHistory> {
    if (this.failCreate) throw new Error('history table unavailable');
    record.created_at = new Date(at).toISOString();
    this.items.push(record);
    return record;
  }

  async listByNode(nodeUuid: string, page: Page): Promise<PageOf<NodeHistory>> {
    const items = this.items.filter((i) => i.node_uuid === nodeUuid);
    return { items: items.slice(0, page.limit), more: items.length > page.limit };
  }

  async purgeCandidates(nodeUuids: readonly string[], maxEntries: number, before?: string): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    const counted = this.items.filter((i) => before === undefined || Date.parse(String(i.created_at)) < Date.parse(before));
    for (const node of nodeUuids) {
      const mine = counted.filter((i) => i.node_uuid === node);
      if (mine.length > maxEntries)
        out.set(
          node,
          mine.slice(0, mine.length - maxEntries).map((i) => i.uuid),
        );
    }
    return out;
  }

  async deleteMany(uuids: readonly string[]): Promise<void> {
    for (let i = this.items.length - 1; i >= 0; i--) if (uuids.includes((this.items[i] as NodeHistory).uuid)) this.items.splice(i, 1);
  }

  async prune(nodeUuid: string, keep: number): Promise<number> {
    const mine = this.items.filter((i) => i.node_uuid === nodeUuid);
    const doomed = new Set(mine.slice(0, Math.max(0, mine.length - keep)));
    for (let i = this.items.length - 1; i >= 0; i--) if (doomed.has(this.items[i] as NodeHistory)) this.items.splice(i, 1);
    return doomed.size;
  }
}

/** Ports in memory, their addresses unique as the port store keeps them (MACAlreadyExists). */
export class MemoryPortStore implements PortStore {
  readonly items: Port[] = [];

  async get(uuid: string): Promise<Port> {
    const port = this.items.find((p) => p.uuid === uuid);
    if (port === undefined) throw new PortNotFound(uuid);
    return port;
  }

  async getByAddress(address: string): Promise<Port> {
    const port = this.items.find((p) => p.address === address.toLowerCase());
    if (port === undefined) throw new PortNotFound(address);
    return port;
  }

  async getByName(name: string): Promise<Port> {
    const port = this.items.find((p) => p.name === name);
    if (port === undefined) throw new PortNotFound(name);
    return port;
  }

  async create(port: Port): Promise<Port> {
    if (this.items.some((p) => p.address === port.address)) throw new MACAlreadyExists(port.address ?? '');
    this.items.push(port);
    return port;
  }

  async save(port: Port): Promise<Port> {
    return port;
  }

  async destroy(port: Port): Promise<void> {
    this.items.splice(this.items.indexOf(port), 1);
  }

  async list(filter: PortFilter, page: Page): Promise<PageOf<Port>> {
    const items = this.items.filter((p) => filter.nodeUuid === undefined || p.node_uuid === filter.nodeUuid);
    return { items: items.slice(0, page.limit), more: items.length > page.limit };
  }
}

/** Node inventories in memory, one per node. */
export class MemoryNodeInventoryStore implements NodeInventoryStore {
  readonly items = new Map<string, NodeInventory>();

  async get(nodeUuid: string): Promise<NodeInventory> {
    const found = this.items.get(nodeUuid);
    if (found === undefined) throw new NodeInventoryNotFound(nodeUuid);
    return found;
  }

  async put(inventory: NodeInventory): Promise<NodeInventory> {
    this.items.set(inventory.node_uuid, inventory);
    return inventory;
  }

  async destroy(nodeUuid: string): Promise<void> {
    this.items.delete(nodeUuid);
  }
}

/** BIOS settings in memory, by node then name (sync as the DynamoDB store: the node's settings become exactly those given). */
export class MemoryBiosSettingStore implements BiosSettingStore {
  readonly items = new Map<string, Map<string, BIOSSetting>>();

  async list(nodeUuid: string): Promise<BIOSSetting[]> {
    return [...(this.items.get(nodeUuid)?.values() ?? [])].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  async get(nodeUuid: string, name: string): Promise<BIOSSetting> {
    const found = this.items.get(nodeUuid)?.get(name);
    if (found === undefined) throw new BIOSSettingNotFound(nodeUuid, name);
    return found;
  }

  async sync(nodeUuid: string, settings: readonly BiosSettingValues[]): Promise<BiosSyncResult> {
    const old = this.items.get(nodeUuid) ?? new Map<string, BIOSSetting>();
    const result: BiosSyncResult = { created: [], updated: [], deleted: [], unchanged: [] };
    const next = new Map<string, BIOSSetting>();
    for (const s of settings) {
      const before = old.get(s.name);
      if (before !== undefined && !settingChanged(before, s)) {
        result.unchanged.push(s.name);
        next.set(s.name, before);
        continue;
      }
      (before ? result.updated : result.created).push(s.name);
      next.set(s.name, new BIOSSetting({ ...s, node_uuid: nodeUuid, created_at: new Date().toISOString() }));
    }
    for (const name of old.keys()) if (!next.has(name)) result.deleted.push(name);
    this.items.set(nodeUuid, next);
    return result;
  }

  async destroyAll(nodeUuid: string): Promise<void> {
    this.items.delete(nodeUuid);
  }
}

/** Firmware components in memory, by node then component (sync as the DynamoDB store, through the same applyReading). */
export class MemoryFirmwareComponentStore implements FirmwareComponentStore {
  readonly items = new Map<string, Map<string, FirmwareComponent>>();

  async list(nodeUuid: string): Promise<FirmwareComponent[]> {
    return [...(this.items.get(nodeUuid)?.values() ?? [])].sort((a, b) => (a.component < b.component ? -1 : 1));
  }

  async sync(nodeUuid: string, readings: readonly FirmwareComponentReading[]): Promise<FirmwareSyncResult> {
    const stored = this.items.get(nodeUuid) ?? new Map<string, FirmwareComponent>();
    const result: FirmwareSyncResult = { created: [], updated: [], unchanged: [] };
    for (const read of readings) {
      const old = stored.get(read.component);
      const next = applyReading(nodeUuid, old, read, new Date().toISOString());
      if (next === undefined) {
        result.unchanged.push(read.component);
        continue;
      }
      (old === undefined ? result.created : result.updated).push(read.component);
      stored.set(read.component, next);
    }
    this.items.set(nodeUuid, stored);
    return result;
  }

  async destroyAll(nodeUuid: string): Promise<void> {
    this.items.delete(nodeUuid);
  }
}
