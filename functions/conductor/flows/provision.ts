/**
 * Provisioning actions that lead into cleaning: provide (manageable → cleaning), deleted/undeploy
 * (tear down, then cleaning), and manual cleaning with the operator's steps. Each arrives with the
 * lock the API took, and hands the node to the steps machine when there are steps to run.
 */
import { CLEANING, DELETING } from '#common/states';
import { InvalidParameterValue } from '#common/errors';
import type { Step } from '#drivers/base';
import { loadDriver } from '#drivers/registry';
import type { ConductorContext } from '../context';
import { type MessageArgs, claimForMessage, runToken } from '../claim';
import { destroyReleasedAllocation } from './allocate';
import { startAutomatedClean } from './clean';
import { failFlow } from './failure';
import { startSteps } from './run-steps';
import { isReservedStep, reservedStep } from './reserved';
import { REQUESTED_KEY } from './step-lists';
import { requestedAgentStep, requestedDriverStep, setSteps, stepName } from './steps';

/** provide: clean the node (automated cleaning) and make it available. */
export async function doProvide(ctx: ConductorContext, args: MessageArgs): Promise<void> {
  const node = await claimForMessage(ctx, args, [CLEANING], 'clean');
  if (node === undefined) return;
  await startAutomatedClean(ctx, node, runToken(args), args.message_id);
}

/** deleted/undeploy: tear the instance down, then clean (Ironic's `_do_node_tear_down`). */
export async function doNodeTearDown(ctx: ConductorContext, args: MessageArgs): Promise<void> {
  const node = await claimForMessage(ctx, args, [DELETING], 'clean');
  if (node === undefined) return;
  try {
    const driver = loadDriver(node);
    await driver.deploy.tearDown({ node, log: ctx.log });
  } catch (err) {
    node.last_error = `Failed to tear down. Error: ${(err as Error).message}`;
    node.processEvent('fail');
    await ctx.nodes.save(node, { release: true });
    return;
  }
  const allocation = node.allocation_uuid;
  node.instance_uuid = null;
  node.allocation_uuid = null;
  node.instance_info = {};
  const info = { ...node.driver_internal_info };
  delete info.deploy_steps;
  delete info.deploy_step_index;
  node.driver_internal_info = info;
  node.processEvent('clean');
  await ctx.nodes.save(node);
  // Ironic's tear-down destroys the node's allocation with the instance.
  if (allocation) await destroyReleasedAllocation(ctx, allocation);
  await startAutomatedClean(ctx, node, runToken(args), args.message_id);
}

/** Manual cleaning: the operator's steps, in the order given; ends in manageable (Ironic's do_node_clean). */
export async function doManualClean(
  ctx: ConductorContext,
  args: MessageArgs & { clean_steps: { interface: string; step: string; args?: Record<string, unknown> }[] },
): Promise<void> {
  const node = await claimForMessage(ctx, args, [CLEANING], 'clean');
  if (node === undefined) return;
  let steps: Step[];
  let bootAgent = false;
  try {
    const driver = loadDriver(node);
    await driver.power.validate({ node, log: ctx.log });
    bootAgent = driver.deploy.usesAgent === true;
    steps = args.clean_steps.map((requested) => {
      if (isReservedStep(requested)) return reservedStep(requested);
      const step = requestedDriverStep(driver, 'clean', requested);
      if (step !== undefined) return step;
      // With an agent, a step the driver lacks may be in-band: checked once the agent is up.
      const unknown = requestedAgentStep(requested);
      if (!bootAgent) throw new InvalidParameterValue(`node does not support this clean step: ${stepName(unknown)}`);
      return unknown;
    });
  } catch (err) {
    await failFlow(ctx, node, 'clean', `Failed to prepare node ${node.uuid} for cleaning: ${(err as Error).message}`);
    return;
  }
  setSteps(node, 'clean', bootAgent ? [] : steps);
  node.driver_internal_info = {
    ...node.driver_internal_info,
    manual_cleaning: true,
    ...(bootAgent ? { [REQUESTED_KEY.clean]: steps } : {}),
  };
  await startSteps(ctx, node, 'clean', runToken(args), args.message_id, { bootAgent });
}
