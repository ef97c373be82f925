/**
 * The portgroup store. A portgroup belongs to a node (checked in its write's transaction); its
 * name and MAC address are unique among portgroups (guards). A portgroup with ports cannot be
 * destroyed (Ironic's PortgroupNotEmpty).
 */
import { QueryCommand } from './dynamo';
import {
  NodeNotFound,
  PortgroupAlreadyExists,
  PortgroupDuplicateName,
  PortgroupMACAlreadyExists,
  PortgroupNotEmpty,
  PortgroupNotFound,
} from '#common/errors';
import { isUuidLike } from '#common/ids';
import { Portgroup } from '#objects/portgroup';
import type { ObjectCodec } from './items';
import { guard, sparseKey } from './keys';
import { exists } from './ports';
import type { Page, PageOf } from './query';
import { type ItemCheck, ObjectTable, type StoreContext } from './table';

export interface PortgroupFilter {
  readonly nodeUuid?: string;
  readonly address?: string;
}

export interface PortgroupStore {
  get(uuid: string): Promise<Portgroup>;
  getByName(name: string): Promise<Portgroup>;
  /** A UUID or a name. */
  getByIdent(ident: string): Promise<Portgroup>;
  getByAddress(address: string): Promise<Portgroup>;
  create(portgroup: Portgroup): Promise<Portgroup>;
  save(portgroup: Portgroup): Promise<Portgroup>;
  /** PortgroupNotEmpty while ports are in it. */
  destroy(portgroup: Portgroup): Promise<void>;
  list(filter: PortgroupFilter, page: Page): Promise<PageOf<Portgroup>>;
}

export const PORTGROUP_CODEC: ObjectCodec<Portgroup> = {
  cls: Portgroup,
  keyName: 'uuid',
  derive: (v) => ({ _all: 'portgroup', _node: sparseKey(v.node_uuid) }),
  guards: (v) => {
    const guards: string[] = [];
    if (typeof v.name === 'string' && v.name !== '') guards.push(guard.portgroupName(v.name));
    if (typeof v.address === 'string' && v.address !== '') guards.push(guard.portgroupAddress(v.address));
    return guards;
  },
};

export class DynamoPortgroupStore extends ObjectTable<Portgroup> implements PortgroupStore {
  private readonly nodesTable: string;
  private readonly portsTable: string;

  constructor(ctx: StoreContext) {
    super(ctx, 'portgroups', PORTGROUP_CODEC, {
      notFound: (ident) => new PortgroupNotFound(ident),
      alreadyExists: (pg) => new PortgroupAlreadyExists(pg.uuid),
      duplicate: (key, pg) =>
        key.startsWith('portgroup/name/') ? new PortgroupDuplicateName(pg.name ?? '') : new PortgroupMACAlreadyExists(pg.address ?? ''),
    });
    this.nodesTable = ctx.tables.nodes;
    this.portsTable = ctx.tables.ports;
  }

  getByName(name: string): Promise<Portgroup> {
    return this.getByGuard(guard.portgroupName(name), name);
  }

  getByIdent(ident: string): Promise<Portgroup> {
    return isUuidLike(ident) ? this.get(ident) : this.getByName(ident);
  }

  getByAddress(address: string): Promise<Portgroup> {
    return this.getByGuard(guard.portgroupAddress(address), address);
  }

  create(portgroup: Portgroup): Promise<Portgroup> {
    return this.createObject(portgroup, [this.nodeCheck(portgroup)]);
  }

  save(portgroup: Portgroup): Promise<Portgroup> {
    return this.saveObject(portgroup, portgroup.whatChanged().has('node_uuid') ? [this.nodeCheck(portgroup)] : []);
  }

  async destroy(portgroup: Portgroup): Promise<void> {
    // NOTE: a port added between this check and the delete would keep a dangling portgroup_uuid;
    // Ironic's foreign key has no DynamoDB equivalent short of a member count on the portgroup.
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.portsTable,
        IndexName: 'byPortgroup',
        KeyConditionExpression: '#pg = :pg',
        ExpressionAttributeNames: { '#pg': '_portgroup' },
        ExpressionAttributeValues: { ':pg': sparseKey(portgroup.uuid) },
        Limit: 1,
      }),
    );
    if ((Items ?? []).length > 0) throw new PortgroupNotEmpty(portgroup.uuid);
    return this.destroyObject(portgroup);
  }

  async list(filter: PortgroupFilter, page: Page): Promise<PageOf<Portgroup>> {
    if (filter.address !== undefined) {
      const owner = await this.guardOwner(guard.portgroupAddress(filter.address));
      const node = filter.nodeUuid;
      return this.listFrom(
        { keys: owner === undefined ? [] : [owner] },
        page,
        node === undefined ? undefined : (pg) => pg.node_uuid === node,
      );
    }
    if (filter.nodeUuid !== undefined) {
      return this.listFrom({ indexes: [{ index: 'byNode', keyName: '_node', value: sparseKey(filter.nodeUuid)! }] }, page);
    }
    return this.listFrom({ indexes: [{ index: 'byId', keyName: '_all', value: 'portgroup' }] }, page);
  }

  private nodeCheck(portgroup: Portgroup): ItemCheck {
    const node = portgroup.node_uuid;
    return exists(this.nodesTable, node, () => new NodeNotFound(node));
  }
}
