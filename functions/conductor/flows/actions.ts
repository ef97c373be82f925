/**
 * Provisioning actions that finish without the steps machine: verification (manage), inspection,
 * adoption, rescue and unrescue. The API has moved the node to the action's first state and locked
 * it for this message; each ends with the state machine's `done` or `fail`, and the lock released.
 */
import * as st from '#common/states';
import type { Task } from '#drivers/base';
import { loadDriver } from '#drivers/registry';
import type { Node } from '#objects/node';
import type { ConductorContext } from '../context';
import { type MessageArgs, claimForMessage } from '../claim';

interface Action {
  /** The state the API left the node in for this action. */
  readonly state: string;
  /** The work; throwing fails the action with the error's message. */
  run(task: Task): Promise<void>;
  /** last_error for a failure. */
  error(node: Node, err: Error): string;
}

const ACTIONS: Readonly<Record<string, Action>> = {
  manage: {
    state: st.VERIFYING,
    async run(task) {
      const driver = loadDriver(task.node);
      await driver.power.validate(task);
      await driver.interfaces.management.validate(task);
      task.node.power_state = await driver.power.getPowerState(task);
    },
    error: (node, err) => `Failed to get power state for node ${node.uuid}. Error: ${err.message}`,
  },
  inspect: {
    state: st.INSPECTING,
    async run(task) {
      const driver = loadDriver(task.node);
      await driver.power.validate(task);
      await driver.interfaces.inspect.validate(task);
      task.node.inspection_started_at = new Date().toISOString();
      task.node.inspection_finished_at = new Date().toISOString();
    },
    error: (node, err) => `Failed to inspect hardware. Reason: ${err.message}`,
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
    await action.run({ node, log: ctx.log });
    node.last_error = null;
    node.processEvent('done');
  } catch (err) {
    node.last_error = action.error(node, err as Error);
    node.processEvent('fail');
  }
  await ctx.nodes.save(node, { release: true });
  ctx.log.info(`${args.action} finished`, { node: node.uuid, state: node.provision_state, lastError: node.last_error });
}
