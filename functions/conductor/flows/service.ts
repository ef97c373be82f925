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
import type { ConductorContext, FlowName } from '../context';
import { type MessageArgs, claimForMessage, runToken } from '../claim';
import { continueSteps } from './reserved';
import { needsRamdisk, startUserSteps } from './requested-steps';

export interface ServiceArgs extends MessageArgs {
  readonly service_steps: readonly { interface: string; step: string; args?: Record<string, unknown> }[];
  readonly disable_ramdisk?: boolean;
}

export async function doNodeService(ctx: ConductorContext, args: ServiceArgs): Promise<void> {
  const node = await claimForMessage(ctx, args, [SERVICING], 'service');
  if (node === undefined) return;
  const disableRamdisk = args.disable_ramdisk === true;
  await startUserSteps(ctx, node, 'service', args.service_steps, {
    owner: runToken(args),
    messageId: args.message_id,
    disableRamdisk,
    // Unlike cleaning, servicing boots the ramdisk only when a step needs it.
    ramdisk: (driver) =>
      driver.deploy.usesAgent === true && !disableRamdisk && args.service_steps.some((s) => needsRamdisk(driver, 'service', s)),
    info: (bootAgent) => ({ service_disable_ramdisk: !bootAgent }),
  });
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
