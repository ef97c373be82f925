/**
 * The node inventory store (Ironic's `node_inventory` table): one item per node, keyed by the
 * node's UUID. Storing replaces what an earlier inspection left (Ironic deletes the node's row and
 * adds the new one in one transaction; here it is one unconditional put of the same key).
 *
 * Costs: get 1 read; put 1 write; delete 1 write. Items hold the whole inventory and plugin data:
 * DynamoDB's 400 KB item limit bounds them (an over-large one is ObjectTooLarge, nothing written).
 */
import { DeleteCommand, PutCommand } from './dynamo';
import { Conflict, NodeInventoryNotFound } from '#common/errors';
import { NodeInventory } from '#objects/node-inventory';
import type { ObjectCodec } from './items';
import { newSortId } from './keys';
import { ObjectTable, type StoreContext } from './table';

export interface NodeInventoryStore {
  /** The node's inventory; NodeInventoryNotFound (404) when none was stored. */
  get(nodeUuid: string): Promise<NodeInventory>;
  /** Store the node's inventory, replacing any earlier one. */
  put(inventory: NodeInventory): Promise<NodeInventory>;
  /** Delete the node's inventory; nothing happens when there is none. */
  destroy(nodeUuid: string): Promise<void>;
}

export const NODE_INVENTORY_CODEC: ObjectCodec<NodeInventory> = {
  cls: NodeInventory,
  keyName: 'node_uuid',
  derive: () => ({}),
  guards: () => [],
};

export class DynamoNodeInventoryStore extends ObjectTable<NodeInventory> implements NodeInventoryStore {
  constructor(ctx: StoreContext) {
    super(ctx, 'node_inventory', NODE_INVENTORY_CODEC, {
      notFound: (node) => new NodeInventoryNotFound(node),
      alreadyExists: (inv) => new Conflict(`A node inventory for node ${inv.node_uuid} already exists.`),
      duplicate: (_key, inv) => new Conflict(`A node inventory for node ${inv.node_uuid} already exists.`),
    });
  }

  async put(inventory: NodeInventory): Promise<NodeInventory> {
    const now = this.now();
    inventory.created_at = new Date(now).toISOString();
    inventory.updated_at = null;
    const book = { rev: 1, sortId: newSortId(now), guards: [] };
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: this.encode(inventory, book) }));
    inventory.storeMeta = { ...book };
    inventory.resetChanges();
    return inventory;
  }

  async destroy(nodeUuid: string): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { node_uuid: nodeUuid } }));
  }
}
