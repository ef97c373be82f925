/**
 * Power actions (Ironic's `node_power_action`). The API has set target_power_state and locked the
 * node for this message; the conductor drives the BMC, records the result and releases the lock.
 * A failure leaves the power state as it was, with last_error saying what failed.
 */
import * as st from '#common/states';
import { wipeOnPowerOff } from '#drivers/agent/token';
import { loadDriver } from '#drivers/registry';
import type { ConductorContext } from '../context';
import { type MessageArgs, claimForMessage } from '../claim';
import { shouldRetry } from '../attempt';

/** The actions after which the agent that was running is gone. */
const WIPING_ACTIONS = [st.POWER_OFF, st.SOFT_POWER_OFF, st.REBOOT, st.SOFT_REBOOT];

/** The power state an action ends in (Ironic's `_calculate_target_state`). */
export function powerTarget(action: string): string {
  return action === st.SOFT_POWER_OFF ? st.POWER_OFF : action === st.REBOOT || action === st.SOFT_REBOOT ? st.POWER_ON : action;
}

/**
 * The user's power `timeout` (any whole number ≥ 1 by the API), capped at what is left of this
 * message's time, with a warning, as Ironic caps a wait step at its configured maximum: the wait
 * happens inside one conductor invocation.
 */
export function capTimeout(ctx: ConductorContext, node: string, requested: number | undefined): number | undefined {
  if (requested === undefined || ctx.deadline === undefined) return requested;
  const left = Math.max(1, Math.floor((ctx.deadline - Date.now()) / 1000));
  if (requested <= left) return requested;
  ctx.log.warn(
    `A power timeout exceeding the time this conductor has for the request has been requested. Waiting for ${left}, got ${requested}.`,
    {
      node,
    },
  );
  return left;
}

export async function changeNodePowerState(ctx: ConductorContext, args: MessageArgs & { target: string; timeout?: number }): Promise<void> {
  const node = await claimForMessage(ctx, args, st.ALL_STATES);
  if (node === undefined) return;
  if (node.target_power_state === null) {
    await ctx.nodes.release(node);
    return;
  }
  const target = powerTarget(args.target);
  const task = { node, log: ctx.log };
  const timeout = capTimeout(ctx, node.uuid, args.timeout);
  try {
    const driver = loadDriver(node);
    await driver.power.validate(task);
    // Ironic's node_power_action: what a power off or reboot makes stale is forgotten, and stored
    // before the action (a rebooted agent looks up at once), even when the state already matches —
    // the node may have been switched off behind our back. A pregenerated token stays: the boot
    // media still carries it.
    if (WIPING_ACTIONS.includes(args.target) && wipeOnPowerOff(node)) await ctx.nodes.save(node);
    const current = await driver.power.getPowerState(task);
    if (current === target && (args.target === st.POWER_ON || args.target === st.POWER_OFF)) {
      ctx.log.info('Power state already as requested', { node: node.uuid, state: current });
    } else if (args.target === st.REBOOT) {
      await driver.power.reboot(task, timeout);
    } else {
      await driver.power.setPowerState(task, args.target, timeout);
    }
    node.power_state = target;
    if (!st.FAILURE_STATES.includes(node.provision_state)) node.last_error = null;
    ctx.log.info('Power state changed', { node: node.uuid, action: args.target, state: target, message_id: args.message_id });
  } catch (err) {
    // Out of time on a delivery that is not the last: SQS delivers the message again.
    if (shouldRetry(ctx, err)) throw err;
    node.last_error = `Failed to change power state to '${target}' by '${args.target}': ${(err as Error).message}`;
    ctx.log.warn('Power action failed', { node: node.uuid, error: node.last_error });
  }
  node.target_power_state = null;
  await ctx.nodes.save(node, { release: true });
}
