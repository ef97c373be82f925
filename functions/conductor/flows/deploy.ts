/**
 * Deploy: the API has moved the node to `deploying` (target `active`) and locked it for this
 * message. Validate, build the step list, and hand it to the steps machine.
 */
import { DEPLOYING } from '#common/states';
import { loadDriver } from '#drivers/registry';
import type { ConductorContext } from '../context';
import { type MessageArgs, claimForMessage, runToken } from '../claim';
import { failFlow } from './failure';
import { startSteps } from './run-steps';
import { driverSteps, setSteps } from './steps';

export async function doNodeDeploy(ctx: ConductorContext, args: MessageArgs): Promise<void> {
  const node = await claimForMessage(ctx, args, [DEPLOYING], 'deploy');
  if (node === undefined) return;
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
  await startSteps(ctx, node, 'deploy', runToken(args), args.message_id);
}
