/**
 * Failing a flow the way Ironic's `set_failed_state` / `cleaning_error_handler` /
 * `servicing_error_handler` do: the node goes to the flow's failed state with `last_error`, its step
 * is cleared, a failed clean or service step puts it in maintenance with fault `clean failure` /
 * `service failure`, the node is powered off after a failed deploy, and the lock is released in
 * the same write. A node left in maintenance loses a firmware update's remaining updates (Ironic
 * master's `_query_update_failed`, done here at once rather than by a periodic task), so they never
 * go on when maintenance ends. The ramdisk's logs are kept first if its agent runs (`#drivers/agent/ramdisk-logs`),
 * unless the caller knows it is gone.
 */
import { discardFailedUpdates } from '#common/firmware-bookkeeping';
import { POWER_OFF } from '#common/states';
import { collectRamdiskLogs } from '#drivers/agent/ramdisk-logs';
import { loadDriver } from '#drivers/registry';
import type { Node } from '#objects/node';
import type { ConductorContext, FlowName } from '../context';
import { EXECUTION_KEYS, FLOWS } from './flow-kinds';
import { tearDownRamdisk } from './ramdisk-teardown';
import { clearSteps } from './steps';

export async function failFlow(
  ctx: ConductorContext,
  node: Node,
  flow: FlowName,
  message: string,
  options: { readonly collectLogs?: boolean } = {},
): Promise<void> {
  const kind = FLOWS[flow];
  if (!kind.activeStates.includes(node.provision_state)) {
    // The node left the flow meanwhile (aborted, already failed): nothing to fail.
    ctx.log.info('Not failing flow: node is no longer in it', { node: node.uuid, flow, state: node.provision_state });
    await ctx.nodes.release(node);
    return;
  }
  // Ironic collects the ramdisk's logs before the error handler tears anything down
  // (set_failed_state, _step_failure_handler, do_next_clean_step / do_next_service_step).
  if (options.collectLogs !== false) await collectRamdiskLogs(node, { label: kind.ramdiskLogsLabel, outcome: 'failure' }, ctx.log);
  // Ironic's cleaning_error_handler / servicing_error_handler: a failed step (rather than a failure
  // around the steps) puts the node in maintenance with a fault, before the ramdisk is torn down
  // (which then leaves the agent running for the operator to look at).
  const stepFailed = flow !== 'deploy' && node[kind.stepField] !== null && node[kind.stepField] !== undefined;
  if (stepFailed) {
    node.fault = flow === 'clean' ? 'clean failure' : 'service failure';
    node.maintenance = true;
    node.maintenance_reason ??= message;
  }
  if (flow === 'deploy') {
    try {
      const driver = loadDriver(node);
      // A node that may not be off (1.95) is rebooted out of what the deploy left running, as
      // Ironic's deploy clean_up does for it.
      if (node.disable_power_off) await driver.power.reboot({ node, log: ctx.log });
      else {
        await driver.power.setPowerState({ node, log: ctx.log }, POWER_OFF);
        node.power_state = POWER_OFF;
      }
    } catch (err) {
      ctx.log.warn('Could not power off node after failed deploy', { node: node.uuid, error: String(err) });
    }
  } else if (node.driver_internal_info.steps_boot_agent === true) {
    // Ironic's cleaning_error_handler tears cleaning down (the ramdisk is powered off), its
    // servicing_error_handler tears servicing down (the instance boots again).
    try {
      await tearDownRamdisk(ctx, node, flow);
    } catch (err) {
      ctx.log.warn('Could not tear down the ramdisk after a failed flow', { node: node.uuid, error: String(err) });
    }
  }
  clearSteps(node, flow);
  const info = { ...node.driver_internal_info };
  for (const key of EXECUTION_KEYS) delete info[key];
  node.driver_internal_info = info;
  node.last_error = message;
  node.processEvent('fail');
  // Failed in maintenance: its firmware updates go (master's _query_update_failed).
  if (discardFailedUpdates(node)) ctx.log.error(`Update firmware failed for node ${node.uuid}. Discarding remaining firmware updates.`);
  await ctx.nodes.save(node, { release: true });
  ctx.log.info(`${kind.label} failed`, { node: node.uuid, lastError: message });
}
