/**
 * Management of a node (Ironic's manager.py set_boot_device, get_boot_device,
 * get_supported_boot_devices, inject_nmi, change_node_boot_mode, change_node_secure_boot).
 *
 * The calls run while the API waits: each takes the node's lock for its duration (a node locked by
 * someone else is NodeLocked, 409), validates the management interface, acts and lets go. Boot
 * mode and secure boot are casts: the API has locked the node for the message and cleared
 * last_error; a failure here becomes the node's last_error, as in Ironic's worker.
 */
import { newUuid } from '#common/ids';
import type { Task } from '#drivers/base';
import { loadDriver } from '#drivers/registry';
import type { Node } from '#objects/node';
import * as st from '#common/states';
import type { RpcMethods, RpcResults } from '#rpc/messages';
import type { ConductorContext } from '../context';
import { type MessageArgs, claimForMessage } from '../claim';
import { lockOwner } from '../lock';
import { guarded, shouldRetry } from '../attempt';
import { rethrowRefusal } from '#drivers/guard';

/**
 * Run `fn` with the node locked for this call (Ironic's exclusive task). The node is saved if `fn`
 * changed it (e.g. a boot device remembered in driver_internal_info), and the lock released either way.
 */
export async function withNodeLock<T>(ctx: ConductorContext, nodeId: string, fn: (node: Node) => Promise<T>): Promise<T> {
  const node = guarded(ctx, await ctx.nodes.reserve(nodeId, lockOwner(ctx, `call:${newUuid()}`)), 'The management call');
  try {
    const result = await fn(node);
    if (node.whatChanged().size > 0) await ctx.nodes.save(node, { release: true });
    else await ctx.nodes.release(node);
    return result;
  } catch (err) {
    await ctx.nodes.release(node).catch((e: unknown) => ctx.log.error('Could not release a node lock', { node: nodeId, error: String(e) }));
    throw err;
  }
}

function taskOf(ctx: ConductorContext, node: Node): Task {
  return { node, log: ctx.log };
}

export async function setBootDevice(ctx: ConductorContext, args: RpcMethods['set_boot_device']): Promise<null> {
  return withNodeLock(ctx, args.node_id, async (node) => {
    const management = loadDriver(node).management;
    const task = taskOf(ctx, node);
    await management.validate(task);
    await management.setBootDevice(task, args.device, args.persistent);
    ctx.log.info('Boot device set', { node: node.uuid, device: args.device, persistent: args.persistent });
    return null;
  });
}

export async function getBootDevice(ctx: ConductorContext, args: RpcMethods['get_boot_device']): Promise<RpcResults['get_boot_device']> {
  return withNodeLock(ctx, args.node_id, async (node) => {
    const management = loadDriver(node).management;
    const task = taskOf(ctx, node);
    await management.validate(task);
    const info = await management.getBootDevice(task);
    return { boot_device: info.boot_device, persistent: info.persistent };
  });
}

/** Read-only and without a lock, as Ironic's shared task. */
export async function getSupportedBootDevices(ctx: ConductorContext, args: RpcMethods['get_supported_boot_devices']): Promise<string[]> {
  const node = await ctx.nodes.get(args.node_id);
  return loadDriver(node).management.getSupportedBootDevices(taskOf(ctx, node));
}

export async function injectNmi(ctx: ConductorContext, args: RpcMethods['inject_nmi']): Promise<null> {
  return withNodeLock(ctx, args.node_id, async (node) => {
    const management = loadDriver(node).management;
    const task = taskOf(ctx, node);
    await management.validate(task);
    await management.injectNmi(task);
    ctx.log.info('NMI injected', { node: node.uuid });
    return null;
  });
}

/** Python's str() of what the worker formats into last_error. */
function pyStr(value: unknown): string {
  return typeof value === 'boolean' ? (value ? 'True' : 'False') : String(value);
}

interface Change<V> {
  readonly what: string;
  read(task: Task): Promise<V | null>;
  write(task: Task, value: V): Promise<void>;
  record(node: Node, value: V): void;
  /** Ironic's last_error on failure (note boot mode's unbalanced quote, as Ironic writes it). */
  error(value: V, err: Error): string;
}

const BOOT_MODE: Change<string> = {
  what: 'boot mode',
  read: (task) => loadDriver(task.node).management.getBootMode(task),
  write: (task, mode) => loadDriver(task.node).management.setBootMode(task, mode),
  record: (node, mode) => (node.boot_mode = mode),
  error: (mode, err) => `Failed to change boot mode to '${mode}: ${err.message}`,
};

const SECURE_BOOT: Change<boolean> = {
  what: 'secure boot',
  read: (task) => loadDriver(task.node).management.getSecureBootState(task),
  write: (task, state) => loadDriver(task.node).management.setSecureBootState(task, state),
  record: (node, state) => (node.secure_boot = state),
  error: (state, err) => `Failed to change secure_boot state to '${pyStr(state)}': ${err.message}`,
};

/**
 * Ironic's node_change_boot_mode / node_change_secure_boot: nothing to do when the BMC already
 * reports the target; a current state that cannot be read is not an error, the write decides.
 */
async function change<V>(ctx: ConductorContext, args: MessageArgs, target: V, how: Change<V>): Promise<void> {
  const node = await claimForMessage(ctx, args, st.ALL_STATES);
  if (node === undefined) return;
  const task = taskOf(ctx, node);
  try {
    await loadDriver(node).management.validate(task);
    let current: V | null = null;
    try {
      current = await how.read(task);
    } catch (err) {
      rethrowRefusal(err);
      ctx.log.warn(`Could not read the ${how.what} before changing it`, { node: node.uuid, error: String(err) });
    }
    if (current !== null && current === target) {
      // As Ironic: nothing is written, not even the node's field.
      ctx.log.info(`The ${how.what} is already as requested`, { node: node.uuid, target: pyStr(target) });
    } else {
      await how.write(task, target);
      how.record(node, target);
      ctx.log.info(`Changed the ${how.what}`, { node: node.uuid, target: pyStr(target) });
    }
  } catch (err) {
    if (shouldRetry(ctx, err)) throw err;
    node.last_error = how.error(target, err as Error);
    ctx.log.error(`Changing the ${how.what} failed`, { node: node.uuid, error: node.last_error });
  }
  await ctx.nodes.save(node, { release: true });
}

export function changeNodeBootMode(ctx: ConductorContext, args: MessageArgs & { target: string }): Promise<void> {
  return change(ctx, args, args.target, BOOT_MODE);
}

export function changeNodeSecureBoot(ctx: ConductorContext, args: MessageArgs & { target: boolean }): Promise<void> {
  return change(ctx, args, args.target, SECURE_BOOT);
}
