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
import { InvalidParameterValue } from '#common/errors';
import { CLEANWAIT, DEPLOYWAIT, SERVICEWAIT, SERVICING } from '#common/states';
import type { Driver, Step } from '#drivers/base';
import { loadDriver } from '#drivers/registry';
import type { ConductorContext, FlowName } from '../context';
import { type MessageArgs, claimForMessage, runToken } from '../claim';
import { failFlow } from './failure';
import { continueSteps, isReservedStep, reservedStep } from './reserved';
import { startSteps } from './run-steps';
import { REQUESTED_KEY } from './step-lists';
import { findStep, requestedAgentStep, requestedDriverStep, setSteps, stepName } from './steps';

export interface ServiceArgs extends MessageArgs {
  readonly service_steps: readonly { interface: string; step: string; args?: Record<string, unknown> }[];
  readonly disable_ramdisk?: boolean;
}

/** Whether a requested step needs the ramdisk: an agent step (unknown to the driver) or a driver step that says so. */
function needsRamdisk(driver: Driver, step: Step): boolean {
  if (isReservedStep(step)) return false;
  const impl = findStep(driver, 'service', step);
  return impl === undefined || impl.requiresRamdisk !== false;
}

export async function doNodeService(ctx: ConductorContext, args: ServiceArgs): Promise<void> {
  const node = await claimForMessage(ctx, args, [SERVICING], 'service');
  if (node === undefined) return;
  let steps: Step[];
  let bootAgent: boolean;
  try {
    const driver = loadDriver(node);
    try {
      await driver.power.validate({ node, log: ctx.log });
    } catch (err) {
      throw new Error(`Validation of node ${node.uuid} for service failed: ${(err as Error).message}`);
    }
    steps = args.service_steps.map((requested) =>
      isReservedStep(requested)
        ? reservedStep(requested)
        : (requestedDriverStep(driver, 'service', requested) ?? requestedAgentStep(requested)),
    );
    const ramdisk = driver.deploy.usesAgent === true && args.disable_ramdisk !== true && steps.some((s) => needsRamdisk(driver, s));
    bootAgent = ramdisk;
    if (!ramdisk) {
      // Without the ramdisk every step must be the driver's own (Ironic's _validate_user_steps).
      for (const step of steps) {
        const impl = isReservedStep(step) ? undefined : findStep(driver, 'service', step);
        if (!isReservedStep(step) && impl === undefined) {
          throw new InvalidParameterValue(`node does not support this service step: ${stepName(step)}`);
        }
        if (args.disable_ramdisk === true && impl !== undefined && impl.requiresRamdisk !== false) {
          throw new InvalidParameterValue(`service step ${stepName(step)} requires booting a ramdisk`);
        }
      }
    }
  } catch (err) {
    const message = (err as Error).message;
    await failFlow(
      ctx,
      node,
      'service',
      message.startsWith('Validation of node') ? message : `Cannot service node ${node.uuid}: ${message}`,
    );
    return;
  }
  setSteps(node, 'service', bootAgent ? [] : steps);
  if (bootAgent) node.driver_internal_info = { ...node.driver_internal_info, [REQUESTED_KEY.service]: steps };
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
