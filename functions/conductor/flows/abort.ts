/**
 * Abort: the API has already applied the state machine's `abort` (e.g. clean wait → clean failed)
 * with Ironic's last_error and locked the node for this message. The conductor stops the steps
 * execution that was waiting for the agent, and releases the node.
 */
import type { ConductorContext } from '../context';
import type { MessageArgs } from '../claim';
import { DEPLOYFAIL } from '#common/states';
import { loadDriver } from '#drivers/registry';
import type { Node } from '#objects/node';
import { EXECUTION_KEYS, FLOWS } from './flow-kinds';
import { lockOwner } from '../lock';

export async function doAbort(ctx: ConductorContext, args: MessageArgs): Promise<void> {
  const current = await ctx.nodes.get(args.node_id);
  if (current.storeMeta?.lockHolder !== args.lock_token) {
    ctx.log.info('Abort already handled', { node: current.uuid });
    return;
  }
  const node = await ctx.nodes.reserve(args.node_id, lockOwner(ctx, args.lock_token));
  const execution = node.driver_internal_info.steps_execution;
  if (typeof execution === 'string') await ctx.steps.stop(execution, `Aborted by request ${args.message_id}`);
  const info = { ...node.driver_internal_info };
  for (const flow of Object.values(FLOWS)) {
    delete info[flow.stepsKey];
    delete info[flow.indexKey];
    node[flow.stepField] = null;
  }
  const bootedAgent = info.steps_boot_agent === true;
  for (const key of EXECUTION_KEYS) delete info[key];
  node.driver_internal_info = info;
  // The ramdisk the aborted flow booted is powered off (Ironic tears cleaning down on abort).
  if (bootedAgent || node.provision_state === DEPLOYFAIL) await powerOffAgent(ctx, node);
  await ctx.nodes.save(node, { release: true });
  ctx.log.info('Aborted', { node: node.uuid, state: node.provision_state, execution });
}

async function powerOffAgent(ctx: ConductorContext, node: Node): Promise<void> {
  try {
    const deploy = loadDriver(node).deploy;
    if (deploy.usesAgent) await deploy.tearDownCleaning?.({ node, log: ctx.log });
  } catch (err) {
    ctx.log.warn('Could not power off the ramdisk of an aborted flow', { node: node.uuid, error: String(err) });
  }
}
