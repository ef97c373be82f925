/**
 * Moving a flow on once a step is done: to its next step, or to its end (the node goes where the
 * flow leads and is released). The step runner (run-steps.ts), the reserved steps (reserved.ts),
 * heartbeats and polled steps all move flows on; this module sits below them so that none has to
 * import another for it.
 */
import type { ProvisionEvent } from '#common/states';
import { collectRamdiskLogs } from '#drivers/agent/ramdisk-logs';
import { consoleOf } from '#drivers/console';
import { rethrowRefusal } from '#drivers/guard';
import { loadDriver } from '#drivers/registry';
import type { LockOwner } from '#db/nodes';
import type { Node } from '#objects/node';
import type { ConductorContext, Decision, FlowName } from '../context';
import { EXECUTION_KEYS, FLOWS } from './flow-kinds';
import { tearDownRamdisk } from './ramdisk-teardown';
import { advanceTo, storedSteps } from './steps';

/** Execution names: unique per message, so a redelivered message starts nothing new. */
export function executionName(flow: FlowName, node: Node, messageId: string): string {
  return `${flow}-${node.uuid.slice(0, 8)}-${messageId}`.slice(0, 80);
}

/** The flow's last step is done: move the node to where the flow leads and release it. */
export async function finishFlow(ctx: ConductorContext, node: Node, flow: FlowName): Promise<void> {
  const event: ProvisionEvent = flow === 'clean' && node.driver_internal_info.manual_cleaning === true ? 'manage' : 'done';
  if (flow !== 'deploy' && node.driver_internal_info.steps_boot_agent === true) {
    // With deployLogsCollect "always" Ironic keeps the ramdisk's logs after the last step, before tearing it down.
    await collectRamdiskLogs(node, { label: FLOWS[flow].ramdiskLogsLabel, outcome: 'success' }, ctx.log);
    // Ironic's tear_down_cleaning / tear_down_service: the ramdisk is powered off and removed.
    await tearDownRamdisk(ctx, node, flow);
  }
  const info = { ...node.driver_internal_info };
  for (const key of EXECUTION_KEYS) delete info[key];
  node.driver_internal_info = info;
  node.processEvent(event);
  node.last_error = null;
  if (flow === 'deploy') await restartConsole(ctx, node);
  await ctx.nodes.save(node, { release: true });
  ctx.log.info(`${FLOWS[flow].label} finished`, { node: node.uuid, state: node.provision_state });
}

/**
 * Ironic's `_start_console_in_deploy`: a console the tear-down stopped (enabled, not running) is
 * started again as the deployment ends. A failure does not fail the deployment: it becomes
 * last_error and the console is recorded as off.
 */
async function restartConsole(ctx: ConductorContext, node: Node): Promise<void> {
  if (!node.console_enabled) return;
  const task = { node, log: ctx.log };
  try {
    await consoleOf(loadDriver(node), task).startConsole(task);
  } catch (err) {
    rethrowRefusal(err);
    node.last_error = `Failed to start console while deploying the node ${node.uuid}: ${(err as Error).message}.`;
    node.console_enabled = false;
    ctx.log.error(node.last_error, { node: node.uuid });
  }
}

/** The current step is done: move to the next (saving the node, still locked) or finish the flow. */
export async function nextStep(
  ctx: ConductorContext,
  node: Node,
  flow: FlowName,
  options: { lockFor?: LockOwner } = {},
): Promise<Decision> {
  const { index } = storedSteps(node, flow);
  const decision = advanceTo(node, flow, index + 1);
  if (decision.mode === 'done') {
    await finishFlow(ctx, node, flow);
  } else {
    // The execution's next task takes the node with its own token; hand the lock over if held by another.
    await ctx.nodes.save(node, options.lockFor ? { lockFor: options.lockFor } : {});
  }
  return decision;
}
