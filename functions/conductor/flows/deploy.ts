/**
 * Deploy: the API has moved the node to `deploying` (target `active`) and locked it for this
 * message. Validate, build the step list, and hand it to the steps machine.
 */
import { DEPLOYING } from '#common/states';
import { loadDriver } from '#drivers/registry';
import type { ConductorContext } from '../context';
import { lockOwner } from '../lock';
import { failFlow } from './failure';
import { executionName, resumeStart, startSteps } from './run-steps';
import { driverSteps, setSteps } from './steps';

export async function doNodeDeploy(
  ctx: ConductorContext,
  args: { node_id: string; lock_token: string; message_id: string },
): Promise<void> {
  // A redelivered message whose execution may already be running must not write the node (it would
  // race the execution's own writes under the same lock token): only re-issue the idempotent start.
  const current = await ctx.nodes.get(args.node_id);
  const running = current.driver_internal_info.steps_execution;
  if (running !== undefined) {
    if (running === executionName('deploy', current, args.message_id)) {
      await resumeStart(ctx, current, 'deploy', args.lock_token, args.message_id);
    }
    return;
  }
  if (current.provision_state !== DEPLOYING) {
    ctx.log.info('Deploy no longer wanted', { node: current.uuid, state: current.provision_state });
    return;
  }
  const node = await ctx.nodes.reserve(args.node_id, lockOwner(ctx, args.lock_token));
  try {
    const driver = loadDriver(node);
    const task = { node, log: ctx.log };
    await driver.power.validate(task);
    await driver.deploy.validate(task);
    setSteps(node, 'deploy', driverSteps(driver, 'deploy'));
  } catch (err) {
    await failFlow(ctx, node, 'deploy', `Failed to prepare to deploy: ${(err as Error).message}`);
    return;
  }
  await startSteps(ctx, node, 'deploy', args.lock_token, args.message_id);
}
