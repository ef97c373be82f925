/**
 * `GET /v1/nodes/{node}/inventory` (1.81, Ironic's NodeInventoryController): what the last
 * inspection of the node found (in band by the ramdisk, or out of band over Redfish),
 * `{inventory, plugin_data}`, kept apart from the node. A node never inspected so has none: Ironic's
 * 404. Below 1.81 the path does not exist.
 */
import { httpErrors } from '#common/errors';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json } from '../http';
import { findNode } from '../lookup';
import { atLeast } from '../microversion';
import { NO_QUERY } from '../request';
import { route } from '../route';

export const NODE_INVENTORY_VERSION = 81;

export async function getNodeInventory(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  if (!atLeast(req.version, NODE_INVENTORY_VERSION)) throw httpErrors.notFound();
  NO_QUERY.read(req);
  const node = await findNode(req, ctx, params.ident);
  const stored = await ctx.stores.nodeInventory.get(node.uuid);
  return json(200, { inventory: stored.inventory_data, plugin_data: stored.plugin_data });
}

export const NODE_INVENTORY_ROUTES = [route('GET', '/v1/nodes/:ident/inventory', getNodeInventory)];
