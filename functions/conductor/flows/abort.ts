/**
 * Abort: the API has already applied the state machine's `abort` (e.g. clean wait → clean failed,
 * service wait → active) with Ironic's last_error and locked the node for this message. The
 * conductor stops the steps execution that was waiting for the agent, tears down what the flow had
 * booted, and releases the node.
 *
 * A step that may not be stopped (`abortable` false) is only flagged by the API (`abort_after` on
 * the node's current step); the heartbeat that sees it finish aborts the flow here instead of
 * moving on (`abortAfterStep`, Ironic's check in `continue_node_clean` and its kin).
 */
import { ACTIVE, DEPLOYFAIL, INSPECTFAIL, SERVICEFAIL, abortedByRequest } from '#common/states';
import { loadDriver } from '#drivers/registry';
import type { Node } from '#objects/node';
import type { ConductorContext, FlowName } from '../context';
import type { MessageArgs } from '../claim';
import { EXECUTION_KEYS, FLOWS } from './flow-kinds';
import { lockOwner } from '../lock';
import { guarded } from '../attempt';
import { bootInstance } from './ramdisk-teardown';
import { tearDownInspection } from './inspection';

export async function doAbort(ctx: ConductorContext, args: MessageArgs): Promise<void> {
  const current = await ctx.nodes.get(args.node_id);
  if (current.storeMeta?.lockHolder !== args.lock_token) {
    ctx.log.info('Abort already handled', { node: current.uuid });
    return;
  }
  const node = guarded(ctx, await ctx.nodes.reserve(args.node_id, lockOwner(ctx, args.lock_token)), 'The abort');
  // An inspection waiting for its ramdisk (inspect wait → inspect failed): take the ramdisk away.
  if (node.provision_state === INSPECTFAIL) {
    await tearDownInspection(ctx, node);
    await ctx.nodes.save(node, { release: true });
    ctx.log.info('Inspection aborted', { node: node.uuid, state: node.provision_state });
    return;
  }
  const execution = await endAbortedFlow(ctx, node, `Aborted by request ${args.message_id}`);
  await ctx.nodes.save(node, { release: true });
  ctx.log.info('Aborted', { node: node.uuid, state: node.provision_state, execution });
}

/**
 * The step of `flow` that has just finished was flagged to abort after it: fail the flow with
 * Ironic's abort message, tear down, save the node released. False (nothing done) when not flagged.
 */
export async function abortAfterStep(ctx: ConductorContext, node: Node, flow: FlowName): Promise<boolean> {
  const step = node[FLOWS[flow].stepField];
  if (step?.abort_after !== true) return false;
  const message = abortedByRequest(flow, step);
  node.processEvent('fail');
  const execution = await endAbortedFlow(ctx, node, `Aborted after step ${String(step.interface)}.${String(step.step)}`);
  node.last_error = message;
  await ctx.nodes.save(node, { release: true });
  ctx.log.info('Aborted after the step that could not be stopped', { node: node.uuid, state: node.provision_state, execution });
  return true;
}

/**
 * Stop the flow's execution, forget its steps, and undo what it booted: servicing powers the ramdisk
 * off and boots the instance again (Ironic's do_node_service_abort), cleaning and deploying power
 * the ramdisk off. Returns the execution stopped.
 */
async function endAbortedFlow(ctx: ConductorContext, node: Node, cause: string): Promise<unknown> {
  const execution = node.driver_internal_info.steps_execution;
  if (typeof execution === 'string') await ctx.steps.stop(execution, cause);
  const info = { ...node.driver_internal_info };
  for (const flow of Object.values(FLOWS)) {
    delete info[flow.stepsKey];
    delete info[flow.indexKey];
    node[flow.stepField] = null;
  }
  const bootedAgent = info.steps_boot_agent === true;
  for (const key of EXECUTION_KEYS) delete info[key];
  node.driver_internal_info = info;
  const servicing = node.provision_state === ACTIVE || node.provision_state === SERVICEFAIL;
  if (bootedAgent || node.provision_state === DEPLOYFAIL) await tearDownAgent(ctx, node, servicing && bootedAgent);
  return execution;
}

async function tearDownAgent(ctx: ConductorContext, node: Node, bootInstanceAfter: boolean): Promise<void> {
  try {
    const deploy = loadDriver(node).deploy;
    if (deploy.usesAgent) await deploy.tearDownCleaning?.({ node, log: ctx.log });
    if (bootInstanceAfter) await bootInstance(ctx, node);
  } catch (err) {
    ctx.log.warn('Could not tear down the ramdisk of an aborted flow', { node: node.uuid, error: String(err) });
  }
}
