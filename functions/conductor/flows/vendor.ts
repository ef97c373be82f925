/**
 * Vendor passthru (Ironic's manager.py vendor_passthru and driver_vendor_passthru): calls. A node
 * method runs with the node locked unless it says it needs no exclusive lock; a driver method
 * runs on the hardware type's default vendor interface, without a node.
 *
 * NOTE: Ironic runs an `async` method in a background worker after answering; a Lambda cannot
 * work after it has answered, so the method runs before the call returns and its result is
 * dropped, as Ironic drops it. The API still answers 202 for it.
 */
import { defaultVendorInterface, getHardwareType, loadDriver } from '#drivers/registry';
import { type PassthruMethod, type VendorInterface, passthruRoute } from '#drivers/vendor';
import type { Node } from '#objects/node';
import type { PassthruResult, RpcMethods } from '#rpc/messages';
import type { ConductorContext } from '../context';
import { withNodeLock } from './management';

async function invoke<T>(route: PassthruMethod<T>, task: T, httpMethod: string, info: Record<string, unknown>): Promise<PassthruResult> {
  const result = await route.run(task, httpMethod.toUpperCase(), info);
  return { return: route.async ? null : result, async: route.async, attach: route.attach };
}

export async function vendorPassthru(ctx: ConductorContext, args: RpcMethods['vendor_passthru']): Promise<PassthruResult> {
  const current = await ctx.nodes.get(args.node_id);
  const vendor = loadDriver(current).interfaces.vendor as VendorInterface;
  const route = passthruRoute(vendor.vendorRoutes, args.method, args.http_method);
  const run = async (node: Node) => {
    const task = { node, log: ctx.log };
    vendor.validatePassthru?.(task, args.method, args.info);
    return invoke(route, task, args.http_method, args.info);
  };
  return route.require_exclusive_lock === false ? run(current) : withNodeLock(ctx, current.uuid, run);
}

export async function driverVendorPassthru(ctx: ConductorContext, args: RpcMethods['driver_vendor_passthru']): Promise<PassthruResult> {
  const vendor = defaultVendorInterface(getHardwareType(args.driver_name));
  const route = passthruRoute(vendor.driverRoutes, args.method, args.http_method);
  vendor.validatePassthru?.(undefined, args.method, args.info);
  return invoke(route, { log: ctx.log }, args.http_method, args.info);
}
