/**
 * Failing nodes a dead conductor left behind (Ironic's `_fail_transient_state`). In Lambda a
 * conductor "dies" when an invocation is killed or times out: the node keeps its transitional
 * state, and its lock, which expires. Such a node is moved to its failed state with Ironic's
 * message, so it never stays stuck.
 */
import { NodeLocked } from '#common/errors';
import { newUuid } from '#common/ids';
import { STUCK_STATES_TREATED_AS_FAIL } from '#common/states';
import type { Node } from '#objects/node';
import type { ConductorContext } from '../context';
import { historyEventType } from '../history';
import { serviceName } from '../identity';
import { lockOwner } from '../lock';
import { EXECUTION_KEYS } from './flow-kinds';
import { type PageWalk, walkNodesInStates } from './periodic-pages';

/** A node whose lock holder is gone: no live lock, in a state that cannot be resumed. */
function isStuck(node: Node, now: number): boolean {
  if (!STUCK_STATES_TREATED_AS_FAIL.includes(node.provision_state)) return false;
  const expires = node.storeMeta?.lockExpiresAt;
  return expires === undefined || expires < now;
}

export interface StuckRun {
  failed: number;
  /** Where another invocation goes on, if the walk was handed on. */
  continuedAt?: string;
}

/** Fail the stuck nodes of one page of the transitional states (all of them without `continueAt`). */
export async function failStuckNodes(ctx: ConductorContext, walk: PageWalk = {}, now: number = Date.now()): Promise<StuckRun> {
  const run: StuckRun = { failed: 0 };
  const continuedAt = await walkNodesInStates(ctx, STUCK_STATES_TREATED_AS_FAIL, walk, async (state, nodes) => {
    for (const candidate of nodes) {
      if (isStuck(candidate, now) && (await failStuck(ctx, candidate, state))) run.failed++;
    }
  });
  if (continuedAt !== undefined) run.continuedAt = continuedAt;
  return run;
}

/** Fail one node found stuck, under its lock; false if it was taken or changed meanwhile. */
async function failStuck(ctx: ConductorContext, candidate: Node, state: string): Promise<boolean> {
  try {
    const node = await ctx.nodes.reserve(candidate.uuid, lockOwner(ctx, `periodic:${newUuid()}`));
    if (node.provision_state !== state) {
      await ctx.nodes.release(node);
      return false;
    }
    // The execution that ran the flow (if any still runs) is stopped first: it must not act
    // on the node again, nor on a flow started on it later. Its tasks would refuse anyway
    // (the ownership check), but one stopped does not linger until its timeouts.
    const execution = node.driver_internal_info.steps_execution;
    if (typeof execution === 'string') await ctx.steps.stop(execution, `Node ${node.uuid} failed: its ${state} could not be resumed`);
    node.last_error = `The ${state} state can't be resumed by conductor ${candidate.reservation ?? serviceName(ctx.config.functionName)}. Moving to fail state.`;
    node.processEvent('fail');
    historyEventType(node, 'transition');
    for (const field of ['deploy_step', 'clean_step', 'service_step'] as const) node[field] = null;
    const info = { ...node.driver_internal_info };
    for (const key of EXECUTION_KEYS) delete info[key];
    node.driver_internal_info = info;
    await ctx.nodes.save(node, { release: true });
    ctx.log.warn('Failed a node left in a transitional state', { node: node.uuid, state, now: node.provision_state });
    return true;
  } catch (err) {
    if (err instanceof NodeLocked) return false; // someone took it meanwhile: not stuck
    throw err;
  }
}
