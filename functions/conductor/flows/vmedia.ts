/**
 * Virtual media (Ironic's manager.py get_virtual_media, attach_virtual_media, detach_virtual_media
 * and its do_attach_virtual_media / run_node_action workers).
 *
 * Reading takes no lock (Ironic's shared task) and answers the management interface's list, or
 * its error. Attaching and detaching are calls that do what Ironic's do before answering: take the
 * node's lock (NodeLocked, 409), validate the management interface, refuse a node in maintenance
 * for a power failure (TemporaryFailure) and clear last_error. The action itself runs after the
 * answer, as in Ironic's worker: the call hands the lock to a cast (`spawn.ts`), whose handler here
 * acts on the BMC and releases the lock. A failure becomes last_error (and so an ERROR history
 * event), not the API's answer; a management interface without virtual media (fake-hardware's, as
 * Ironic's FakeManagement) fails that way too, with UnsupportedDriverExtension.
 */
import { TemporaryFailure, UnsupportedDriverExtension } from '#common/errors';
import { newUuid } from '#common/ids';
import * as st from '#common/states';
import { pyRepr } from '#common/pyrepr';
import type { ManagementInterface, Task } from '#drivers/base';
import { rethrowRefusal } from '#drivers/guard';
import { loadDriver } from '#drivers/registry';
import type { Node } from '#objects/node';
import type { RequestContext, RpcMethods, RpcResults } from '#rpc/messages';
import { guarded, shouldRetry } from '../attempt';
import { type MessageArgs, claimForMessage } from '../claim';
import type { ConductorContext } from '../context';
import { lockOwner } from '../lock';
import { canSpawn, spawnLocked } from '../spawn';
import { POWER_FAILURE } from './power-sync';

type VmediaMethod = 'getVirtualMedia' | 'attachVirtualMedia' | 'detachVirtualMedia';

const EXTENSIONS: Readonly<Record<VmediaMethod, string>> = {
  getVirtualMedia: 'get_virtual_media',
  attachVirtualMedia: 'attach_virtual_media',
  detachVirtualMedia: 'detach_virtual_media',
};

function method<K extends VmediaMethod>(management: ManagementInterface, task: Task, name: K): NonNullable<ManagementInterface[K]> {
  const fn = management[name];
  if (fn === undefined) throw new UnsupportedDriverExtension(task.node.driver, EXTENSIONS[name]);
  return fn.bind(management) as NonNullable<ManagementInterface[K]>;
}

export async function getVirtualMedia(
  ctx: ConductorContext,
  args: RpcMethods['get_virtual_media'],
): Promise<RpcResults['get_virtual_media']> {
  const node = await ctx.nodes.get(args.node_id);
  const task = { node, log: ctx.log };
  const management = loadDriver(node).management;
  await management.validate(task);
  const devices = await method(management, task, 'getVirtualMedia')(task);
  return devices.map((d) => ({ media_types: [...d.media_types], inserted: d.inserted, image: d.image }));
}

type Action = (management: ManagementInterface, task: Task) => Promise<void>;
type Failure = (node: string, reason: string) => string;

/** Run `action` on the locked node; its failure becomes last_error as `failure(message)` words it. */
async function act(ctx: ConductorContext, node: Node, action: Action, failure: Failure, inCall: boolean): Promise<void> {
  const task = { node, log: ctx.log };
  try {
    await action(loadDriver(node).management, task);
  } catch (err) {
    // A fenced or timed-out action, or DynamoDB failing, is not the hardware's failure.
    if (inCall) rethrowRefusal(err);
    else if (shouldRetry(ctx, err)) throw err;
    node.last_error = failure(node.uuid, (err as Error).message);
    ctx.log.error('Virtual media action failed', { node: node.uuid, error: node.last_error });
  }
}

type VmediaCast = 'do_attach_virtual_media' | 'do_detach_virtual_media';

/**
 * The call: lock, validate, refuse a power failure, clear last_error, then hand the action to
 * `cast` (answered at once) or, when this conductor may not cast it, run it here.
 */
async function begin<M extends VmediaCast>(
  ctx: ConductorContext,
  nodeId: string,
  what: string,
  context: RequestContext,
  cast: { method: M; args: (lockToken: string) => RpcMethods[M] },
  action: Action,
  failure: Failure,
): Promise<null> {
  const node = guarded(ctx, await ctx.nodes.reserve(nodeId, lockOwner(ctx, `call:${newUuid()}`)), 'The virtual media call');
  const release = () =>
    ctx.nodes.release(node).catch((e: unknown) => ctx.log.error('Could not release a node lock', { node: nodeId, error: String(e) }));
  try {
    await loadDriver(node).management.validate({ node, log: ctx.log });
    if (node.maintenance && node.fault === POWER_FAILURE) {
      throw new TemporaryFailure(`Unable to ${what} virtual media for node ${node.uuid} due to power failure state`);
    }
  } catch (err) {
    await release();
    throw err;
  }
  // Starting a new operation: the previous error goes (Ironic saves this before spawning).
  node.last_error = null;
  if (canSpawn(ctx, cast.method)) {
    await spawnLocked(ctx, node, cast.method, cast.args, context);
    return null;
  }
  try {
    await act(ctx, node, action, failure, true);
  } catch (err) {
    await release();
    throw err;
  }
  await ctx.nodes.save(node, { release: true });
  return null;
}

/** The cast: the node locked for it by the call; act, record a failure, release. */
async function finish(ctx: ConductorContext, args: MessageArgs, action: Action, failure: Failure): Promise<void> {
  const node = await claimForMessage(ctx, args, st.ALL_STATES);
  if (node === undefined) return;
  await act(ctx, node, action, failure, false);
  await ctx.nodes.save(node, { release: true });
}

function attachAction(
  ctx: ConductorContext,
  { device_type: deviceType, image_url: imageUrl, image_download_source: downloadSource }: RpcMethods['attach_virtual_media'],
): { action: Action; failure: Failure } {
  return {
    action: async (management, task) => {
      await method(management, task, 'attachVirtualMedia')(task, deviceType, imageUrl, downloadSource);
      ctx.log.info('Virtual media attached', { node: task.node.uuid, device_type: deviceType, image_url: imageUrl });
    },
    failure: (node, reason) => `Could not attach device ${deviceType} to node ${node}: ${reason}`,
  };
}

function detachAction(ctx: ConductorContext, deviceTypes: string[] | undefined): { action: Action; failure: Failure } {
  // Ironic's message shows the list as Python prints it, or None for every device.
  const shown = deviceTypes === undefined ? 'None' : pyRepr(deviceTypes);
  return {
    action: async (management, task) => {
      await method(management, task, 'detachVirtualMedia')(task, deviceTypes);
      ctx.log.info('Virtual media detached', { node: task.node.uuid, device_types: shown });
    },
    failure: (node, reason) => `Could not detach device(s) ${shown} from node ${node}: ${reason}`,
  };
}

export async function attachVirtualMedia(
  ctx: ConductorContext,
  args: RpcMethods['attach_virtual_media'],
  context: RequestContext,
): Promise<null> {
  const { action, failure } = attachAction(ctx, args);
  const cast = { method: 'do_attach_virtual_media' as const, args: (lock_token: string) => ({ ...args, lock_token }) };
  return begin(ctx, args.node_id, 'attach', context, cast, action, failure);
}

export async function detachVirtualMedia(
  ctx: ConductorContext,
  args: RpcMethods['detach_virtual_media'],
  context: RequestContext,
): Promise<null> {
  const { action, failure } = detachAction(ctx, args.device_types);
  const cast = { method: 'do_detach_virtual_media' as const, args: (lock_token: string) => ({ ...args, lock_token }) };
  return begin(ctx, args.node_id, 'detach', context, cast, action, failure);
}

export async function doAttachVirtualMedia(
  ctx: ConductorContext,
  args: RpcMethods['do_attach_virtual_media'] & MessageArgs,
): Promise<void> {
  const { action, failure } = attachAction(ctx, args);
  return finish(ctx, args, action, failure);
}

export async function doDetachVirtualMedia(
  ctx: ConductorContext,
  args: RpcMethods['do_detach_virtual_media'] & MessageArgs,
): Promise<void> {
  const { action, failure } = detachAction(ctx, args.device_types);
  return finish(ctx, args, action, failure);
}
