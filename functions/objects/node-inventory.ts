/**
 * What inspection found on a node, kept apart from the node as Ironic keeps it (its
 * `node_inventory` table, `ironic/objects/node_inventory.py`): the inventory the ramdisk sent and
 * the plugin data the inspection hooks left (without the ramdisk's logs), or the inventory redfish
 * inspection built from the BMC (with empty plugin data). One per node, keyed by
 * the node's UUID (Ironic's integer `node_id`), replaced by each inspection and deleted with its
 * node. `GET /v1/nodes/{node}/inventory` (API 1.81) shows it.
 */
import { VersionedObject, type VersionStep } from './base';
import { type FieldValues, t } from './fields';

export const NODE_INVENTORY_FIELDS = {
  node_uuid: t.uuid(),
  inventory_data: t.dict({ nullable: true }),
  plugin_data: t.dict({ nullable: true }),
  created_at: t.datetime(),
  updated_at: t.datetime({ nullable: true }),
} as const;

export type NodeInventoryData = FieldValues<typeof NODE_INVENTORY_FIELDS>;

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- field accessors are installed at runtime
export interface NodeInventory extends NodeInventoryData {}

// Version 1.0: initial version (Ironic's NodeInventory 1.0 fields, the node referenced by UUID).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class NodeInventory extends VersionedObject {
  static override readonly objName = 'NodeInventory';
  static override readonly VERSION = '1.0';
  static override readonly fields = NODE_INVENTORY_FIELDS;
  static override readonly history: readonly VersionStep[] = [{ version: '1.0' }];
}
