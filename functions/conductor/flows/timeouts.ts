/**
 * Wait-state timeouts (Ironic's `_check_deploy_timeouts`, `_check_cleanwait_timeouts`, …): a node
 * waiting for its ramdisk longer than the callback timeout (`inspect wait`: the inspect wait
 * timeout) is failed with Ironic's message. The
 * steps machine's own TimeoutSeconds normally fails such a node first; this periodic task is the
 * safety net for a wait whose execution is gone (stopped, or lost with a local stack's restart).
 */
import { NodeLocked } from '#common/errors';
import { newUuid } from '#common/ids';
import { pyRepr } from '#common/pyrepr';
import * as st from '#common/states';
import type { Node } from '#objects/node';
import type { ConductorContext } from '../context';
import { EXECUTION_KEYS, FLOWS } from './flow-kinds';
import { historyEventType } from '../history';
import { lockOwner } from '../lock';
import { type PageWalk, walkNodesInStates } from './periodic-pages';
import { tearDownInspection } from './inspection';

/** Extra time past the callback timeout, so the execution's own timeout acts first. */
const GRACE_MS = 60_000;

interface Wait {
  readonly state: string;
  readonly since: (n: Node) => string | null;
  readonly message: (n: Node) => string;
  /** How long the wait may last (ms), 0 for ever; default: the callback timeout and its grace. */
  readonly limit?: (ctx: ConductorContext) => number;
}

const WAITS: readonly Wait[] = [
  {
    state: st.DEPLOYWAIT,
    since: (n) => n.provision_updated_at,
    message: (n) => `Timeout reached while waiting for callback for node ${n.uuid}`,
  },
  {
    state: st.CLEANWAIT,
    since: (n) => n.provision_updated_at,
    message: (n) =>
      `Timeout reached while cleaning the node. Please check if the ramdisk responsible for the cleaning is running on the node. Failed on step ${pyRepr(n.clean_step)}.`,
  },
  {
    state: st.RESCUEWAIT,
    since: (n) => n.provision_updated_at,
    message: () => 'Timeout reached while waiting for rescue ramdisk callback for node',
  },
  {
    // Ironic's _check_inspect_wait_timeouts with cleanup_inspectwait_timeout (2026.1): its own
    // timeout, no steps execution to act first, and the ramdisk taken away.
    state: st.INSPECTWAIT,
    since: (n) => n.inspection_started_at ?? n.provision_updated_at,
    message: () =>
      'Timeout reached while inspecting the node. Please check if the ramdisk responsible for the inspection is running on the node.',
    limit: (ctx) => ctx.config.inspectWaitTimeoutSeconds * 1000,
  },
  { state: st.SERVICEWAIT, since: (n) => n.provision_updated_at, message: (n) => `Timeout reached while servicing the node ${n.uuid}` },
];

export interface TimeoutRun {
  failed: number;
  /** Where another invocation goes on, if the walk was handed on. */
  continuedAt?: string;
}

/** Fail the timed-out nodes of one page of the wait states (all of them without `continueAt`). */
export async function failTimedOutWaits(ctx: ConductorContext, walk: PageWalk = {}, now: number = Date.now()): Promise<TimeoutRun> {
  const run: TimeoutRun = { failed: 0 };
  const waits = WAITS.filter((w) => limitOf(ctx, w) > 0);
  const continuedAt = await walkNodesInStates(
    ctx,
    waits.map((w) => w.state),
    walk,
    async (state, nodes) => {
      const wait = waits.find((w) => w.state === state)!;
      const limit = limitOf(ctx, wait);
      for (const candidate of nodes) {
        const since = wait.since(candidate);
        if (candidate.maintenance || since === null || now - Date.parse(since) < limit) continue;
        if (await failWait(ctx, candidate, wait, now - limit)) run.failed++;
      }
    },
  );
  if (continuedAt !== undefined) run.continuedAt = continuedAt;
  return run;
}

function limitOf(ctx: ConductorContext, wait: Wait): number {
  return wait.limit?.(ctx) ?? ctx.config.callbackTimeoutSeconds * 1000 + GRACE_MS;
}

/** Fail one node that waited too long, under its lock; false if it was taken or changed meanwhile. */
async function failWait(ctx: ConductorContext, candidate: Node, wait: Wait, startedBefore: number): Promise<boolean> {
  try {
    const node = await ctx.nodes.reserve(candidate.uuid, lockOwner(ctx, `periodic:${newUuid()}`));
    // Checked again on the node as locked: the page may be a moment old.
    const since = wait.since(node);
    if (node.provision_state !== wait.state || since === null || Date.parse(since) > startedBefore) {
      await ctx.nodes.release(node);
      return false;
    }
    const execution = node.driver_internal_info.steps_execution;
    if (typeof execution === 'string') await ctx.steps.stop(execution, 'callback timeout');
    node.last_error = wait.message(node);
    // Ironic's cleanup_after_timeout records deploy timeouts as "provisioning".
    if (wait.state === st.DEPLOYWAIT) historyEventType(node, 'provisioning');
    node.processEvent('fail');
    const info = { ...node.driver_internal_info };
    for (const flow of Object.values(FLOWS)) {
      delete info[flow.stepsKey];
      delete info[flow.indexKey];
      node[flow.stepField] = null;
    }
    for (const key of EXECUTION_KEYS) delete info[key];
    node.driver_internal_info = info;
    if (wait.state === st.INSPECTWAIT) await tearDownInspection(ctx, node);
    await ctx.nodes.save(node, { release: true });
    ctx.log.warn('Failed a node that waited too long for its ramdisk', { node: node.uuid, state: wait.state });
    return true;
  } catch (err) {
    if (err instanceof NodeLocked) return false;
    throw err;
  }
}
