/**
 * Virtual media (Ironic's manager.py get_virtual_media, attach_virtual_media, detach_virtual_media).
 *
 * Reading takes no lock (Ironic's shared task) and answers the management interface's list, or
 * its error. Attaching and detaching take the node's lock, validate the management interface and
 * refuse a node in maintenance for a power failure (TemporaryFailure), all answered to the API;
 * then last_error is cleared and the action runs. Ironic runs it in a worker after answering; here
 * it runs within the call (a BMC's insert or eject takes seconds) and, like Ironic's worker, turns
 * a failure into last_error (and so an ERROR history event), not into the API's answer. A
 * management interface without virtual media (fake-hardware's, as Ironic's FakeManagement) fails
 * that way too, with UnsupportedDriverExtension.
 */
import { TemporaryFailure, UnsupportedDriverExtension } from '#common/errors';
import { pyRepr } from '#common/pyrepr';
import type { ManagementInterface, Task } from '#drivers/base';
import { rethrowRefusal } from '#drivers/guard';
import { loadDriver } from '#drivers/registry';
import type { RpcMethods, RpcResults } from '#rpc/messages';
import type { ConductorContext } from '../context';
import { withNodeLock } from './management';
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

/**
 * The locked part both actions share: validate, refuse a power failure, clear last_error, run
 * `action`; its failure becomes last_error as `failure(message)` words it.
 */
async function runAction(
  ctx: ConductorContext,
  nodeId: string,
  what: string,
  action: (management: ManagementInterface, task: Task) => Promise<void>,
  failure: (node: string, reason: string) => string,
): Promise<null> {
  return withNodeLock(ctx, nodeId, async (node) => {
    const task = { node, log: ctx.log };
    const management = loadDriver(node).management;
    await management.validate(task);
    if (node.maintenance && node.fault === POWER_FAILURE) {
      throw new TemporaryFailure(`Unable to ${what} virtual media for node ${node.uuid} due to power failure state`);
    }
    node.last_error = null;
    try {
      await action(management, task);
    } catch (err) {
      // A fenced or timed-out action, or DynamoDB failing, is not the hardware's failure.
      rethrowRefusal(err);
      node.last_error = failure(node.uuid, (err as Error).message);
      ctx.log.error('Virtual media action failed', { node: node.uuid, error: node.last_error });
    }
    return null;
  });
}

export async function attachVirtualMedia(ctx: ConductorContext, args: RpcMethods['attach_virtual_media']): Promise<null> {
  const { device_type: deviceType, image_url: imageUrl } = args;
  // NOTE: Ironless has no image server of its own: every image_download_source ('local' and 'swift'
  // too) hands the URL to the BMC as 'http' does (see the README).
  return runAction(
    ctx,
    args.node_id,
    'attach',
    async (management, task) => {
      await method(management, task, 'attachVirtualMedia')(task, deviceType, imageUrl);
      ctx.log.info('Virtual media attached', { node: task.node.uuid, device_type: deviceType, image_url: imageUrl });
    },
    (node, reason) => `Could not attach device ${deviceType} to node ${node}: ${reason}`,
  );
}

export async function detachVirtualMedia(ctx: ConductorContext, args: RpcMethods['detach_virtual_media']): Promise<null> {
  const deviceTypes = args.device_types;
  // Ironic's message shows the list as Python prints it, or None for every device.
  const shown = deviceTypes === undefined ? 'None' : pyRepr(deviceTypes);
  return runAction(
    ctx,
    args.node_id,
    'detach',
    async (management, task) => {
      await method(management, task, 'detachVirtualMedia')(task, deviceTypes);
      ctx.log.info('Virtual media detached', { node: task.node.uuid, device_types: shown });
    },
    (node, reason) => `Could not detach device(s) ${shown} from node ${node}: ${reason}`,
  );
}
