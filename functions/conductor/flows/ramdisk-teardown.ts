/**
 * Leaving the ramdisk a cleaning or servicing flow booted, whichever way the flow ends (Ironic's
 * tear_down_cleaning / tear_down_service). It sits below the step runner (run-steps.ts), the
 * failure path (failure.ts) and abort (abort.ts), which all end flows, so none of them has to
 * import another for it.
 */
import { POWER_ON } from '#common/states';
import { loadDriver } from '#drivers/registry';
import type { Node } from '#objects/node';
import type { ConductorContext, FlowName } from '../context';

/**
 * Power the ramdisk off and remove it; after servicing, boot the instance again. Errors are the
 * caller's to handle (the failure path only logs them).
 */
export async function tearDownRamdisk(ctx: ConductorContext, node: Node, flow: FlowName): Promise<void> {
  await loadDriver(node).deploy.tearDownCleaning?.({ node, log: ctx.log });
  if (flow === 'service') await bootInstance(ctx, node);
}

/** After servicing with the ramdisk: boot the instance from its disk again (Ironic's tear_down_service). */
export async function bootInstance(ctx: ConductorContext, node: Node): Promise<void> {
  const driver = loadDriver(node);
  const task = { node, log: ctx.log };
  await driver.boot.prepareInstance(task);
  await driver.power.setPowerState(task, POWER_ON);
  node.power_state = POWER_ON;
}
