/**
 * Provisioning actions that finish without the steps machine: verification (manage), adoption,
 * rescue and unrescue (inspection has its own module, `inspection.ts`). The API has moved the node to the action's first state and locked
 * it for this message; each ends with the state machine's `done` or `fail`, and the lock released.
 */
import * as st from '#common/states';
import type { Task } from '#drivers/base';
import { loadDriver } from '#drivers/registry';
import type { Node } from '#objects/node';
import type { ConductorContext } from '../context';
import { type MessageArgs, claimForMessage } from '../claim';
import { shouldRetry } from '../attempt';
import { rethrowRefusal } from '#drivers/guard';
import { cacheBiosSettings } from '../bios';
import { cacheFirmwareComponents } from '../firmware';

class VerifyError extends Error {}

/** What verification caches from the management interface; an interface without it is skipped. */
async function cacheManagementFacts(task: Task): Promise<void> {
  const driver = loadDriver(task.node);
  const management = driver.management;
  const attempt = async <T>(read: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await read();
    } catch (err) {
      rethrowRefusal(err);
      task.log.debug('Not cached during verification', { node: task.node.uuid, error: String(err) });
      return undefined;
    }
  };
  const vendor = await attempt(() => management.detectVendor(task));
  if (vendor) task.node.properties = { ...task.node.properties, vendor };
  const mode = await attempt(() => management.getBootMode(task));
  if (mode !== undefined && mode !== null) task.node.boot_mode = mode;
  const secure = await attempt(() => management.getSecureBootState(task));
  if (secure !== undefined) task.node.secure_boot = secure;
}

interface Action {
  /** The state the API left the node in for this action. */
  readonly state: string;
  /** The work; throwing fails the action with the error's message. */
  run(task: Task, ctx: ConductorContext): Promise<void>;
  /** last_error for a failure. */
  error(node: Node, err: Error): string;
}

const ACTIONS: Readonly<Record<string, Action>> = {
  manage: {
    // Ironic's do_node_verify: power credentials, then cache vendor, BIOS settings, firmware components, boot mode and secure boot.
    state: st.VERIFYING,
    async run(task, ctx) {
      const driver = loadDriver(task.node);
      try {
        await driver.power.validate(task);
      } catch (err) {
        rethrowRefusal(err);
        throw new VerifyError(`Failed to validate power driver interface for node ${task.node.uuid}. Error: ${(err as Error).message}`);
      }
      try {
        task.node.power_state = await driver.power.getPowerState(task);
      } catch (err) {
        rethrowRefusal(err);
        throw new VerifyError(`Failed to get power state for node ${task.node.uuid}. Error: ${(err as Error).message}`);
      }
      await cacheBiosSettings(ctx, task);
      await cacheFirmwareComponents(ctx, task);
      await cacheManagementFacts(task);
    },
    error: (_node, err) => err.message,
  },
  adopt: {
    state: st.ADOPTING,
    async run(task) {
      const driver = loadDriver(task.node);
      await driver.power.validate(task);
      await driver.deploy.validate(task);
      task.node.power_state = await driver.power.getPowerState(task);
    },
    error: (node, err) => `Error while attempting to adopt node ${node.uuid}: ${err.message}.`,
  },
  rescue: {
    state: st.RESCUING,
    async run(task) {
      const driver = loadDriver(task.node);
      await driver.power.validate(task);
      await driver.interfaces.rescue.validate(task);
    },
    error: (node, err) => `Node ${node.uuid} failed to rescue: ${err.message}`,
  },
  unrescue: {
    state: st.UNRESCUING,
    async run(task) {
      const driver = loadDriver(task.node);
      await driver.interfaces.rescue.validate(task);
      const info = { ...task.node.instance_info };
      delete info.rescue_password;
      delete info.hashed_rescue_password;
      task.node.instance_info = info;
    },
    error: (node, err) => `Node ${node.uuid} failed to unrescue: ${err.message}`,
  },
};

export function isDirectAction(action: string): boolean {
  return action in ACTIONS;
}

export async function doDirectAction(ctx: ConductorContext, args: MessageArgs & { action: string }): Promise<void> {
  const action = ACTIONS[args.action];
  if (action === undefined) throw new Error(`Unknown provisioning action ${args.action}`);
  const node = await claimForMessage(ctx, args, [action.state]);
  if (node === undefined) return;
  try {
    await action.run({ node, log: ctx.log }, ctx);
    node.last_error = null;
    node.processEvent('done');
  } catch (err) {
    if (shouldRetry(ctx, err)) throw err;
    node.last_error = action.error(node, err as Error);
    node.processEvent('fail');
  }
  await ctx.nodes.save(node, { release: true });
  ctx.log.info(`${args.action} finished`, {
    node: node.uuid,
    state: node.provision_state,
    lastError: node.last_error,
    message_id: args.message_id,
  });
}
