/**
 * Servicing an active node (API 1.87, Ironic's `conductor/servicing.py`) and `unhold` (API 1.85).
 *
 * `do_node_service`: the API has moved the node active → servicing and locked it for the message.
 * The user's steps run in the order given: out-of-band on the driver, in-band on the agent. The
 * ramdisk is booted first (as manual cleaning does) unless `disable_ramdisk` is set or every step
 * can run without it (reserved steps, driver steps with `requiresRamdisk: false`). At the end the
 * ramdisk is torn down and the instance booted again (`finishFlow`), and the node is active.
 *
 * `unhold`: the API has moved the node from a hold state to the flow's wait state; the flow
 * continues with the step after the hold in a new steps execution.
 */
import { CLEANWAIT, DEPLOYWAIT, SERVICEWAIT, SERVICING } from '#common/states';
import type { Driver, Step } from '#drivers/base';
import { loadDriver } from '#drivers/registry';
import type { ConductorContext, FlowName } from '../context';
import { type MessageArgs, claimForMessage, runToken } from '../claim';
import { failFlow } from './failure';
import { continueSteps } from './reserved';
import { needsRamdisk, resolveUserSteps } from './requested-steps';
import { startSteps } from './run-steps';
import { REQUESTED_KEY } from './step-lists';
import { setSteps } from './steps';

export interface ServiceArgs extends MessageArgs {
  readonly service_steps: readonly { interface: string; step: string; args?: Record<string, unknown> }[];
  readonly disable_ramdisk?: boolean;
}

export async function doNodeService(ctx: ConductorContext, args: ServiceArgs): Promise<void> {
  const node = await claimForMessage(ctx, args, [SERVICING], 'service');
  if (node === undefined) return;
  const disableRamdisk = args.disable_ramdisk === true;
  let driver: Driver;
  try {
    driver = loadDriver(node);
    await driver.power.validate({ node, log: ctx.log });
  } catch (err) {
    await failFlow(ctx, node, 'service', `Validation of node ${node.uuid} for service failed: ${(err as Error).message}`);
    return;
  }
  // Unlike cleaning, servicing boots the ramdisk only when a step needs it.
  const bootAgent =
    driver.deploy.usesAgent === true && !disableRamdisk && args.service_steps.some((s) => needsRamdisk(driver, 'service', s));
  let steps: Step[];
  try {
    steps = resolveUserSteps(driver, 'service', args.service_steps, { ramdisk: bootAgent, disableRamdisk });
  } catch (err) {
    await failFlow(ctx, node, 'service', `Cannot service node ${node.uuid}: ${(err as Error).message}`);
    return;
  }
  setSteps(node, 'service', bootAgent ? [] : steps);
  // Kept as the user wrote them until the agent's steps are known (cleanStepsWithAgent).
  if (bootAgent) node.driver_internal_info = { ...node.driver_internal_info, [REQUESTED_KEY.service]: args.service_steps };
  node.driver_internal_info = { ...node.driver_internal_info, service_disable_ramdisk: !bootAgent };
  await startSteps(ctx, node, 'service', runToken(args), args.message_id, { bootAgent });
}

const WAIT_FLOWS: Readonly<Record<string, FlowName>> = { [DEPLOYWAIT]: 'deploy', [CLEANWAIT]: 'clean', [SERVICEWAIT]: 'service' };

/** unhold: continue the held flow with its next step. */
export async function doUnhold(ctx: ConductorContext, args: MessageArgs): Promise<void> {
  const current = await ctx.nodes.get(args.node_id);
  const flow = WAIT_FLOWS[current.provision_state] ?? 'clean';
  const node = await claimForMessage(ctx, args, Object.keys(WAIT_FLOWS), flow);
  if (node === undefined) return;
  await continueSteps(ctx, node, flow, runToken(args), args.message_id);
}
