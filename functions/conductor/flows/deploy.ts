/**
 * Deploy: the API has moved the node to `deploying` (target `active`) and locked it for this
 * message. Validate, build the step list — driver defaults, deploy templates matched by the
 * instance traits, the user's deploy_steps — and hand it to the steps machine. With the `direct`
 * interface the agent's in-band steps join the list after its first heartbeat.
 */
import { DatabaseUnavailable } from '#common/errors';
import { DEPLOYING } from '#common/states';
import { loadDriver } from '#drivers/registry';
import type { RpcMethods } from '#rpc/messages';
import type { ConductorContext } from '../context';
import { type MessageArgs, claimForMessage, runToken } from '../claim';
import { failFlow } from './failure';
import { launchSteps, recordStart, type StepsStart } from './run-steps';
import { finishFlow } from './step-advance';
import { initialDeploySteps } from './step-lists';
import { setSteps } from './steps';

export async function doNodeDeploy(
  ctx: ConductorContext,
  args: MessageArgs & Pick<RpcMethods['do_node_deploy'], 'deploy_steps'>,
): Promise<void> {
  const owner = runToken(args);
  let failure: Error | undefined;
  let start: StepsStart | undefined;
  // Validate and plan inside the claim, so its one conditional write also stores the steps and the
  // execution: a deploy costs one node write fewer. Nothing here writes; a failure fails the flow
  // once the node is claimed, except DynamoDB being unavailable: that ends this delivery before
  // the claim, and SQS delivers the message again.
  const node = await claimForMessage(ctx, args, [DEPLOYING], 'deploy', async (current) => {
    try {
      const driver = loadDriver(current);
      const task = { node: current, log: ctx.log };
      await driver.power.validate(task);
      await driver.deploy.validate(task);
      await driver.deploy.prepare?.(task);
      setSteps(current, 'deploy', await initialDeploySteps(ctx, current, driver, args.deploy_steps));
      start = recordStart(current, 'deploy', owner, args.message_id);
    } catch (err) {
      if (err instanceof DatabaseUnavailable) throw err;
      failure = err as Error;
    }
  });
  if (node === undefined) return;
  if (failure !== undefined || start === undefined) {
    await failFlow(ctx, node, 'deploy', `Failed to prepare to deploy: ${failure?.message ?? 'no step list'}`);
    return;
  }
  if (start.decision.mode === 'done') {
    await finishFlow(ctx, node, 'deploy');
    return;
  }
  await launchSteps(ctx, node, 'deploy', owner, start);
}
