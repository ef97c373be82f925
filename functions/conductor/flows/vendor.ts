/**
 * Vendor passthru (Ironic's manager.py vendor_passthru and driver_vendor_passthru): calls. A node
 * method runs with the node locked unless it says it needs no exclusive lock; a driver method
 * runs on the hardware type's default vendor interface, without a node.
 *
 * An `async` node method runs after the call has answered, as Ironic's spawned worker runs it:
 * the call finds the method, takes the lock it needs and validates the arguments (all answered
 * to the API), then casts the method (`spawn.ts`); the cast's handler here runs it and releases
 * the lock. Its result is dropped, as Ironic drops it; a failure becomes the node's last_error
 * unless the node already has one, as Ironic's task manager words and keeps it.
 *
 * NOTE: an `async` driver method (none of the offered hardware types has one) still runs within
 * the call: it has no node, so no lock to hold and no conductor group to cast to.
 */
import { newUuid } from '#common/ids';
import * as st from '#common/states';
import { defaultVendorInterface, getHardwareType, loadDriver } from '#drivers/registry';
import { type PassthruMethod, type VendorInterface, passthruRoute } from '#drivers/vendor';
import type { Node } from '#objects/node';
import type { PassthruResult, RequestContext, RpcMethods } from '#rpc/messages';
import { guarded, shouldRetry } from '../attempt';
import { claimForMessage } from '../claim';
import type { ConductorContext } from '../context';
import { lockOwner } from '../lock';
import { canSpawn, spawnLocked, spawnShared } from '../spawn';
import { withNodeLock } from './management';

async function invoke<T>(route: PassthruMethod<T>, task: T, httpMethod: string, info: Record<string, unknown>): Promise<PassthruResult> {
  const result = await route.run(task, httpMethod.toUpperCase(), info);
  return { return: route.async ? null : result, async: route.async, attach: route.attach };
}

function routeOf(node: Node, method: string, httpMethod: string): { vendor: VendorInterface; route: PassthruMethod } {
  const vendor = loadDriver(node).interfaces.vendor as VendorInterface;
  return { vendor, route: passthruRoute(vendor.vendorRoutes, method, httpMethod) };
}

export async function vendorPassthru(
  ctx: ConductorContext,
  args: RpcMethods['vendor_passthru'],
  context: RequestContext,
): Promise<PassthruResult> {
  const current = await ctx.nodes.get(args.node_id);
  const { vendor, route } = routeOf(current, args.method, args.http_method);
  const exclusive = route.require_exclusive_lock !== false;
  if (route.async && canSpawn(ctx, 'do_vendor_passthru')) {
    const answer = { return: null, async: true, attach: route.attach };
    const work = { node_id: current.uuid, method: args.method, http_method: args.http_method, info: args.info };
    if (!exclusive) {
      vendor.validatePassthru?.({ node: current, log: ctx.log }, args.method, args.info);
      await spawnShared(ctx, current, 'do_vendor_passthru', work, context);
      return answer;
    }
    const node = guarded(ctx, await ctx.nodes.reserve(current.uuid, lockOwner(ctx, `call:${newUuid()}`)), 'The vendor passthru call');
    try {
      vendor.validatePassthru?.({ node, log: ctx.log }, args.method, args.info);
    } catch (err) {
      await ctx.nodes
        .release(node)
        .catch((e: unknown) => ctx.log.error('Could not release a node lock', { node: node.uuid, error: String(e) }));
      throw err;
    }
    await spawnLocked(ctx, node, 'do_vendor_passthru', (lock_token) => ({ ...work, lock_token }), context);
    return answer;
  }
  const run = async (node: Node) => {
    const task = { node, log: ctx.log };
    vendor.validatePassthru?.(task, args.method, args.info);
    return invoke(route, task, args.http_method, args.info);
  };
  return exclusive ? withNodeLock(ctx, current.uuid, run) : run(current);
}

/**
 * The cast: run an `async` method the call validated, with the lock it took for it (or none, for
 * a method that needs no exclusive lock). A failure is kept as Ironic's task manager keeps it.
 */
export async function doVendorPassthru(
  ctx: ConductorContext,
  args: RpcMethods['do_vendor_passthru'] & { message_id: string },
): Promise<void> {
  const lockToken = args.lock_token;
  const node =
    lockToken === undefined
      ? await ctx.nodes.get(args.node_id)
      : await claimForMessage(ctx, { ...args, lock_token: lockToken }, st.ALL_STATES);
  if (node === undefined) return;
  let failed = false;
  try {
    const { route } = routeOf(node, args.method, args.http_method);
    await route.run({ node, log: ctx.log }, args.http_method.toUpperCase(), args.info);
    ctx.log.info('Vendor passthru method ran', { node: node.uuid, method: args.method });
  } catch (err) {
    if (lockToken !== undefined && shouldRetry(ctx, err)) throw err;
    failed = true;
    ctx.log.error('Vendor passthru method failed', { node: node.uuid, method: args.method, error: String(err) });
    // Ironic's worker does not overwrite an error the node already has.
    if (node.last_error === null) node.last_error = `Async execution of ${args.method} failed with error: ${(err as Error).message}`;
  }
  if (lockToken !== undefined) await ctx.nodes.save(node, { release: true });
  else if (failed && node.whatChanged().size > 0) {
    // Without the lock (as Ironic's shared task saves): a node locked meanwhile keeps its state.
    await ctx.nodes.save(node).catch((e: unknown) => ctx.log.warn('Could not record the failure', { node: node.uuid, error: String(e) }));
  }
}

export async function driverVendorPassthru(ctx: ConductorContext, args: RpcMethods['driver_vendor_passthru']): Promise<PassthruResult> {
  const vendor = defaultVendorInterface(getHardwareType(args.driver_name));
  const route = passthruRoute(vendor.driverRoutes, args.method, args.http_method);
  vendor.validatePassthru?.(undefined, args.method, args.info);
  return invoke(route, { log: ctx.log }, args.http_method, args.info);
}
