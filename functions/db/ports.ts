/**
 * The port store. A port belongs to a node (checked in the same transaction as its write: the
 * node must exist) and maybe to one of its portgroups; its MAC address and name are unique among
 * ports (guards). Lookups by address (the agent's lookup, inspection) are 2 consistent reads.
 */
import { MACAlreadyExists, NodeNotFound, PortAlreadyExists, PortDuplicateName, PortNotFound, PortgroupNotFound } from '#common/errors';
import { Port } from '#objects/port';
import type { ObjectCodec } from './items';
import { guard, sparseKey } from './keys';
import type { IndexSource, Page, PageOf } from './query';
import { type ItemCheck, ObjectTable, type StoreContext } from './table';

export interface PortFilter {
  readonly nodeUuid?: string;
  readonly portgroupUuid?: string;
  readonly address?: string;
}

export interface PortStore {
  get(uuid: string): Promise<Port>;
  getByAddress(address: string): Promise<Port>;
  getByName(name: string): Promise<Port>;
  create(port: Port): Promise<Port>;
  save(port: Port): Promise<Port>;
  destroy(port: Port): Promise<void>;
  list(filter: PortFilter, page: Page): Promise<PageOf<Port>>;
}

export const PORT_CODEC: ObjectCodec<Port> = {
  cls: Port,
  keyName: 'uuid',
  derive: (v) => ({ _all: 'port', _node: sparseKey(v.node_uuid), _portgroup: sparseKey(v.portgroup_uuid) }),
  guards: (v) => {
    const guards: string[] = [];
    if (typeof v.address === 'string' && v.address !== '') guards.push(guard.portAddress(v.address));
    if (typeof v.name === 'string' && v.name !== '') guards.push(guard.portName(v.name));
    return guards;
  },
};

export class DynamoPortStore extends ObjectTable<Port> implements PortStore {
  private readonly nodesTable: string;
  private readonly portgroupsTable: string;

  constructor(ctx: StoreContext) {
    super(ctx, 'ports', PORT_CODEC, {
      notFound: (ident) => new PortNotFound(ident),
      alreadyExists: (port) => new PortAlreadyExists(port.uuid),
      duplicate: (key, port) =>
        key.startsWith('port/address/') ? new MACAlreadyExists(port.address ?? '') : new PortDuplicateName(port.name ?? ''),
    });
    this.nodesTable = ctx.tables.nodes;
    this.portgroupsTable = ctx.tables.portgroups;
  }

  getByAddress(address: string): Promise<Port> {
    return this.getByGuard(guard.portAddress(address), address);
  }

  getByName(name: string): Promise<Port> {
    return this.getByGuard(guard.portName(name), name);
  }

  create(port: Port): Promise<Port> {
    return this.createObject(port, this.references(port, true));
  }

  save(port: Port): Promise<Port> {
    return this.saveObject(port, this.references(port, false));
  }

  destroy(port: Port): Promise<void> {
    return this.destroyObject(port);
  }

  async list(filter: PortFilter, page: Page): Promise<PageOf<Port>> {
    const rest = (port: Port) =>
      (filter.nodeUuid === undefined || port.node_uuid === filter.nodeUuid) &&
      (filter.portgroupUuid === undefined || port.portgroup_uuid === filter.portgroupUuid) &&
      (filter.address === undefined || port.address?.toLowerCase() === filter.address.toLowerCase());
    if (filter.address !== undefined) {
      const owner = await this.guardOwner(guard.portAddress(filter.address));
      return this.listFrom({ keys: owner === undefined ? [] : [owner] }, page, rest);
    }
    let source: IndexSource = { index: 'byId', keyName: '_all', value: 'port' };
    let residual = filter.nodeUuid !== undefined || filter.portgroupUuid !== undefined;
    if (filter.portgroupUuid !== undefined) {
      source = { index: 'byPortgroup', keyName: '_portgroup', value: sparseKey(filter.portgroupUuid)! };
      residual = filter.nodeUuid !== undefined;
    } else if (filter.nodeUuid !== undefined) {
      source = { index: 'byNode', keyName: '_node', value: sparseKey(filter.nodeUuid)! };
      residual = false;
    }
    return this.listFrom({ indexes: [source] }, page, residual ? rest : undefined);
  }

  /** The node (and portgroup) a port names must exist; checked only when they are set or change. */
  private references(port: Port, creating: boolean): ItemCheck[] {
    const changed = port.whatChanged();
    const checks: ItemCheck[] = [];
    if (creating || changed.has('node_uuid')) {
      const node = port.node_uuid;
      checks.push(exists(this.nodesTable, node, () => new NodeNotFound(node)));
    }
    const portgroup = port.portgroup_uuid;
    if (portgroup !== null && (creating || changed.has('portgroup_uuid'))) {
      checks.push(exists(this.portgroupsTable, portgroup, () => new PortgroupNotFound(portgroup)));
    }
    return checks;
  }
}

/** A transaction check that an item with this uuid exists. */
export function exists(table: string, uuid: string, error: () => Error): ItemCheck {
  return { table, key: { uuid }, condition: 'attribute_exists(#uuid)', names: { '#uuid': 'uuid' }, error };
}
