/**
 * `PUT/DELETE /v1/nodes/{node}/maintenance` (Ironic's NodeMaintenanceController): set or clear
 * maintenance mode, with an optional reason (a query parameter or a key of a JSON body). Leaving
 * maintenance also clears the reason and the fault, as Ironic's update_node does. One
 * conditional write: a node locked or changed meanwhile is a 409. A failed node put in maintenance
 * loses its firmware updates in the same write (`#common/firmware-bookkeeping`).
 */
import { discardFailedUpdates } from '#common/firmware-bookkeeping';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, noContent } from '../http';
import { checkConductorFor } from '../interfaces';
import { findNode, whenUnlocked } from '../lookup';
import { arg, defineArgs } from '../request';
import { route } from '../route';

/** A reason may come as a query parameter or a body key; leaving maintenance takes nothing. */
const SetMaintenance = defineArgs({ reason: arg.string() });
const ClearMaintenance = defineArgs({});

async function setMaintenance(req: ApiRequest, ctx: ApiContext, ident: string, on: boolean): Promise<ApiResponse> {
  const { reason } = on ? SetMaintenance.read(req) : { reason: undefined, ...ClearMaintenance.read(req) };
  const found = await findNode(req, ctx, ident);
  await checkConductorFor(ctx, found.driver, found.conductor_group, found.uuid);
  const node = await whenUnlocked(ctx, found);
  node.maintenance = on;
  node.maintenance_reason = reason ?? null;
  if (!on) node.fault = null;
  // A failed node put in maintenance goes on with no firmware update (master's _query_update_failed).
  if (discardFailedUpdates(node)) ctx.log.error(`Update firmware failed for node ${node.uuid}. Discarding remaining firmware updates.`);
  await ctx.nodes.save(node);
  ctx.log.info(on ? 'Maintenance set' : 'Maintenance cleared', { node: node.uuid });
  return noContent(202);
}

export const putMaintenance = (req: ApiRequest, ctx: ApiContext, params: { ident: string }) => setMaintenance(req, ctx, params.ident, true);
export const deleteMaintenance = (req: ApiRequest, ctx: ApiContext, params: { ident: string }) =>
  setMaintenance(req, ctx, params.ident, false);

export const NODE_MAINTENANCE_ROUTES = [
  route('PUT', '/v1/nodes/:ident/maintenance', putMaintenance),
  route('DELETE', '/v1/nodes/:ident/maintenance', deleteMaintenance),
];
