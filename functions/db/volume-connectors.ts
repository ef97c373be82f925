/**
 * The volume connector store, and what it shares with the target store. A connector belongs to a
 * node (checked in the same transaction as its write: the node must exist); (type, connector_id)
 * is unique among all connectors, as Ironic's database constraint makes it (a guard). A node's
 * connectors come from the byNode index.
 */
import { ConcurrentUpdate, NodeNotFound } from '#common/errors';
import { POWER_OFF } from '#common/states';
import { VolumeConnectorAlreadyExists, VolumeConnectorNotFound, VolumeConnectorTypeAndIdAlreadyExists } from '#common/volume-errors';
import { VolumeConnector } from '#objects/volume-connector';
import type { Dict } from '#objects/fields';
import type { VolumeTarget } from '#objects/volume-target';
import { type ObjectCodec, cancellationCodes } from './items';
import { guard, sparseKey } from './keys';
import { exists } from './ports';
import type { Page, PageOf } from './query';
import { type ItemCheck, ObjectTable, type StoreContext, type TableErrors } from './table';

export interface VolumeFilter {
  readonly nodeUuid?: string;
}

/**
 * What the node must still be when one of its volume items changes or goes (Ironic's conductor
 * checks it under the node's lock): unlocked, and powered off or in one of `orStates`. Checked in
 * the same transaction as the write, so a power on that lands in between refuses the write.
 */
export interface NodeCondition {
  readonly nodeUuid: string;
  readonly orStates?: readonly string[];
}

/** The store of connectors or targets (one interface: they are kept the same way). */
export interface VolumeStore<T> {
  get(uuid: string): Promise<T>;
  create(item: T): Promise<T>;
  /** Save under `node` (the node the item belongs to after the change). */
  save(item: T, node: NodeCondition): Promise<T>;
  destroy(item: T, node: NodeCondition): Promise<void>;
  list(filter: VolumeFilter, page: Page): Promise<PageOf<T>>;
}

export type VolumeConnectorStore = VolumeStore<VolumeConnector>;

export const VOLUME_CONNECTOR_CODEC: ObjectCodec<VolumeConnector> = {
  cls: VolumeConnector,
  keyName: 'uuid',
  derive: (v) => ({ _all: 'volume_connector', _node: sparseKey(v.node_uuid) }),
  guards: (v) => [guard.volumeConnectorId(String(v.type), String(v.connector_id))],
};

/**
 * What connectors and targets share: the node must exist when an item is created, and be as
 * `NodeCondition` says when one is saved or destroyed.
 */
export class VolumeTable<T extends VolumeConnector | VolumeTarget> extends ObjectTable<T> implements VolumeStore<T> {
  private readonly nodesTable: string;

  constructor(ctx: StoreContext, table: 'volume_connectors' | 'volume_targets', codec: ObjectCodec<T>, errors: TableErrors<T>) {
    super(ctx, table, codec, errors);
    this.nodesTable = ctx.tables.nodes;
  }

  create(item: T): Promise<T> {
    const node = item.node_uuid;
    return this.createObject(item, [exists(this.nodesTable, node, () => new NodeNotFound(node))]);
  }

  save(item: T, node: NodeCondition): Promise<T> {
    return this.saveObject(item, [this.nodeCheck(node)]);
  }

  async destroy(item: T, node: NodeCondition): Promise<void> {
    const meta = this.metaOf(item);
    const check = this.nodeCheck(node);
    try {
      await this.transact([
        { Delete: { TableName: this.tableName, Key: { uuid: item.uuid }, ...this.writeCondition(meta, this.now()) } },
        ...meta.guards.map((key) => this.guardDeleteFor(key, item.uuid)),
        {
          ConditionCheck: {
            TableName: check.table,
            Key: check.key,
            ConditionExpression: check.condition,
            ExpressionAttributeNames: check.names,
            ExpressionAttributeValues: check.values,
          },
        },
      ]);
    } catch (err) {
      const codes = cancellationCodes(err);
      if (codes === undefined) throw err;
      if (codes[codes.length - 1] === 'ConditionalCheckFailed') throw check.error();
      throw await this.conflictCause(item.uuid, meta);
    }
  }

  list(filter: VolumeFilter, page: Page): Promise<PageOf<T>> {
    const all = this.codec.cls.objName === 'VolumeConnector' ? 'volume_connector' : 'volume_target';
    const source =
      filter.nodeUuid === undefined
        ? { index: 'byId', keyName: '_all', value: all }
        : { index: 'byNode', keyName: '_node', value: sparseKey(filter.nodeUuid)! };
    return this.listFrom({ indexes: [source] }, page);
  }

  /** The node exists, is not locked, and is powered off or in one of the states allowed. */
  private nodeCheck(node: NodeCondition): ItemCheck {
    const states = node.orStates ?? [];
    const values: Dict = { ':now': this.now(), ':off': POWER_OFF };
    states.forEach((state, i) => (values[`:s${i}`] = state));
    const stateCondition = states.length === 0 ? '#ps = :off' : `(#ps = :off OR #pst IN (${states.map((_, i) => `:s${i}`).join(', ')}))`;
    return {
      table: this.nodesTable,
      key: { uuid: node.nodeUuid },
      condition: `attribute_exists(#uuid) AND (attribute_not_exists(#lo) OR #le < :now) AND ${stateCondition}`,
      names: {
        '#uuid': 'uuid',
        '#lo': '_lock_owner',
        '#le': '_lock_exp',
        '#ps': 'power_state',
        ...(states.length ? { '#pst': 'provision_state' } : {}),
      },
      values,
      error: () => new ConcurrentUpdate(`Node ${node.nodeUuid}`),
    };
  }
}

export class DynamoVolumeConnectorStore extends VolumeTable<VolumeConnector> {
  constructor(ctx: StoreContext) {
    super(ctx, 'volume_connectors', VOLUME_CONNECTOR_CODEC, {
      notFound: (ident) => new VolumeConnectorNotFound(ident),
      alreadyExists: (c) => new VolumeConnectorAlreadyExists(c.uuid),
      duplicate: (_key, c) => new VolumeConnectorTypeAndIdAlreadyExists(c.type, c.connector_id),
    });
  }
}
