/**
 * Deploy: the API has moved the node to `deploying` (target `active`) and locked it for this
 * message. Validate, build the step list — driver defaults, deploy templates matched by the
 * instance traits, the user's deploy_steps — and hand it to the steps machine. With the `direct`
 * interface the agent's in-band steps join the list after its first heartbeat.
 */
import { DEPLOYING } from '#common/states';
import { loadDriver } from '#drivers/registry';
import type { RpcMethods } from '#rpc/messages';
import type { ConductorContext } from '../context';
import { type MessageArgs, claimForMessage, runToken } from '../claim';
import { failFlow } from './failure';
import { startSteps } from './run-steps';
import { initialDeploySteps } from './step-lists';
import { setSteps } from './steps';

export async function doNodeDeploy(
  ctx: ConductorContext,
  args: MessageArgs & Pick<RpcMethods['do_node_deploy'], 'deploy_steps'>,
): Promise<void> {
  const node = await claimForMessage(ctx, args, [DEPLOYING], 'deploy');
  if (node === undefined) return;
  try {
    const driver = loadDriver(node);
    const task = { node, log: ctx.log };
    await driver.power.validate(task);
    await driver.deploy.validate(task);
    setSteps(node, 'deploy', await initialDeploySteps(ctx, node, driver, args.deploy_steps));
  } catch (err) {
    await failFlow(ctx, node, 'deploy', `Failed to prepare to deploy: ${(err as Error).message}`);
    return;
  }
  await startSteps(ctx, node, 'deploy', runToken(args), args.message_id);
}
