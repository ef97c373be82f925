/**
 * Provisioning actions that start from a state the API has already left: manage (verifying),
 * provide (cleaning) and deleted/undeploy (deleting). Each arrives with the lock the API took.
 */
import { CLEANING, DELETING, VERIFYING } from '#common/states';
import { loadDriver } from '#drivers/registry';
import type { Node } from '#objects/node';
import type { ConductorContext, FlowName } from '../context';
import { lockOwner } from '../lock';
import { startAutomatedClean } from './clean';
import { executionName, resumeStart } from './run-steps';

interface ActionArgs {
  readonly node_id: string;
  readonly lock_token: string;
  readonly message_id: string;
}

/**
 * Reserve the node for this message if it still waits in `state`. A redelivered message finds the
 * node moved on (nothing to do) or its steps execution recorded (re-issue the idempotent start).
 */
async function claim(ctx: ConductorContext, args: ActionArgs, state: string, flow?: FlowName): Promise<Node | undefined> {
  const current = await ctx.nodes.get(args.node_id);
  const running = current.driver_internal_info.steps_execution;
  if (running !== undefined) {
    if (flow !== undefined && running === executionName(flow, current, args.message_id)) {
      await resumeStart(ctx, current, flow, args.lock_token, args.message_id);
    } else {
      ctx.log.info('A steps execution already runs for this node', { node: current.uuid, execution: running });
    }
    return undefined;
  }
  if (current.provision_state !== state) {
    ctx.log.info('Node is no longer waiting for this action', { node: current.uuid, state: current.provision_state, expected: state });
    return undefined;
  }
  return ctx.nodes.reserve(args.node_id, lockOwner(ctx, args.lock_token));
}

/** manage: verify the BMC can be reached with the node's credentials (Ironic's `_do_node_verify`). */
export async function doNodeVerify(ctx: ConductorContext, args: ActionArgs): Promise<void> {
  const node = await claim(ctx, args, VERIFYING);
  if (node === undefined) return;
  try {
    const driver = loadDriver(node);
    const task = { node, log: ctx.log };
    await driver.power.validate(task);
    await driver.interfaces.management.validate(task);
    node.power_state = await driver.power.getPowerState(task);
    node.last_error = null;
    node.processEvent('done');
  } catch (err) {
    node.last_error = `Failed to get power state for node ${node.uuid}. Error: ${(err as Error).message}`;
    node.processEvent('fail');
  }
  await ctx.nodes.save(node, { release: true });
  ctx.log.info('Verification finished', { node: node.uuid, state: node.provision_state });
}

/** provide: clean the node (automated cleaning) and make it available. */
export async function doProvide(ctx: ConductorContext, args: ActionArgs): Promise<void> {
  const node = await claim(ctx, args, CLEANING, 'clean');
  if (node === undefined) return;
  await startAutomatedClean(ctx, node, args.lock_token, args.message_id);
}

/** deleted/undeploy: tear the instance down, then clean (Ironic's `_do_node_tear_down`). */
export async function doNodeTearDown(ctx: ConductorContext, args: ActionArgs): Promise<void> {
  const node = await claim(ctx, args, DELETING, 'clean');
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
  node.instance_uuid = null;
  node.instance_info = {};
  const info = { ...node.driver_internal_info };
  delete info.deploy_steps;
  delete info.deploy_step_index;
  node.driver_internal_info = info;
  node.processEvent('clean');
  await ctx.nodes.save(node);
  await startAutomatedClean(ctx, node, args.lock_token, args.message_id);
}
