/**
 * The periodic task `poll_waiting_steps` (Ironic's redfish `_query_update_status` and
 * `_query_bios_apply_status`, every `[redfish]firmware_update_status_interval`): a step that waits
 * on the BMC (a definition with `poll`: the firmware update, the BIOS apply and factory reset) left
 * its node in `clean wait` (`service wait`, `deploy wait`) with the steps machine's task token on
 * it, as an agent step does. Each run walks those wait states a page at a time
 * (`periodic-pages.ts`), and for each node whose current step is such a step, takes its lock and
 * lets the step's `poll` look at the BMC once:
 *
 * - still running: the node is let go and the waiting task kept alive (SendTaskHeartbeat), as an
 *   agent heartbeat does (the agent's own heartbeats leave such a step alone, `heartbeat.ts`,
 *   unless the step has `resume` and its reboot booted the ramdisk: the BIOS steps);
 * - done: the flow resumes at its next step (SendTaskSuccess), as Ironic's
 *   notify_conductor_resume_clean / _service / _deploy;
 * - failed: the flow fails with the interface's message as `last_error` (SendTaskFailure), as
 *   Ironic's cleaning / servicing / deploying error handlers.
 *
 * The wait's timeout is the wait state's (the execution's TimeoutSeconds, `fail_timed_out_waits`).
 */
import { NodeLocked } from '#common/errors';
import { newUuid } from '#common/ids';
import { CLEANWAIT, DEPLOYWAIT, SERVICEWAIT } from '#common/states';
import type { Driver, Step, StepDefinition, StepProgress } from '#drivers/base';
import { ActionRefused } from '#drivers/guard';
import { loadDriver } from '#drivers/registry';
import type { Node } from '#objects/node';
import type { ConductorContext, FlowName } from '../context';
import { guarded } from '../attempt';
import { lockOwner } from '../lock';
import { abortAfterStep } from './abort';
import { executionOwner, resumeWithNextStep, takeToken } from './async-steps';
import { type PageWalk, walkNodesInStates } from './periodic-pages';
import { AGENT_STEP_FAILED, stepTask } from './run-steps';
import { nextStep } from './step-advance';
import { findStep, storedSteps } from './steps';

const WAIT_FLOWS: Readonly<Record<string, FlowName>> = { [CLEANWAIT]: 'clean', [SERVICEWAIT]: 'service', [DEPLOYWAIT]: 'deploy' };

/**
 * Nodes one invocation polls at most: each poll may reboot a node (seconds of power polling),
 * so a page is small and the rest is handed on.
 */
export const POLL_PAGE_SIZE = 10;

/** The definition of `step` if it is an async step its interface follows itself (not the agent's heartbeats). */
export function polledStep(driver: Driver, flow: FlowName, step: Step | null | undefined): StepDefinition | undefined {
  if (step?.async !== true) return undefined;
  const def = findStep(driver, flow, step);
  return def?.poll !== undefined ? def : undefined;
}

/** The node's current step's poll, if the flow it waits in is at such a step. */
function waitingPoll(node: Node, flow: FlowName): StepDefinition['poll'] {
  const { steps, index } = storedSteps(node, flow);
  try {
    return polledStep(loadDriver(node), flow, steps[index])?.poll;
  } catch {
    return undefined; // a driver this conductor cannot load: not its to follow
  }
}

export interface PollRun {
  checked: number;
  resumed: number;
  failed: number;
  /** Where another invocation goes on, if the walk was handed on. */
  continuedAt?: string;
}

/** Poll the waiting steps of one page of the wait states (all of them without `continueAt`). */
export async function pollWaitingSteps(ctx: ConductorContext, walk: PageWalk = {}): Promise<PollRun> {
  const run: PollRun = { checked: 0, resumed: 0, failed: 0 };
  const continuedAt = await walkNodesInStates(ctx, Object.keys(WAIT_FLOWS), { pageSize: POLL_PAGE_SIZE, ...walk }, async (state, nodes) => {
    const flow = WAIT_FLOWS[state]!;
    for (const candidate of nodes) {
      if (candidate.maintenance || waitingPoll(candidate, flow) === undefined) continue;
      const outcome = await checkNode(ctx, candidate.uuid, state, flow);
      if (outcome === undefined) continue;
      run.checked++;
      if (outcome === 'done') run.resumed++;
      if (outcome === 'failed') run.failed++;
    }
  });
  if (continuedAt !== undefined) run.continuedAt = continuedAt;
  return run;
}

/** Poll one node under its lock; undefined when it was taken, moved on, or its poll could not finish. */
async function checkNode(ctx: ConductorContext, uuid: string, state: string, flow: FlowName): Promise<StepProgress['state'] | undefined> {
  let node: Node;
  try {
    node = await ctx.nodes.reserve(uuid, lockOwner(ctx, `periodic:${newUuid()}`));
  } catch (err) {
    if (err instanceof NodeLocked) return undefined;
    throw err;
  }
  const token = node.driver_internal_info.steps_task_token;
  // Checked again on the node as locked: the page may be a moment old.
  const poll = waitingPoll(node, flow);
  if (node.provision_state !== state || node.maintenance || typeof token !== 'string' || poll === undefined) {
    await ctx.nodes.release(node);
    return undefined;
  }
  guarded(ctx, node, 'The poll of a waiting step');
  const task = stepTask(ctx, node);
  let progress: StepProgress;
  try {
    progress = await poll(task);
  } catch (err) {
    // Not the step's verdict (the BMC away, out of time, a store hiccup): the next run looks again.
    ctx.log.warn('Poll of a waiting step did not finish; will try again', { node: node.uuid, error: String(err) });
    if (!(err instanceof ActionRefused && err.reason === 'fenced')) await ctx.nodes.save(node, { release: true }).catch(() => undefined);
    return undefined;
  }
  return settleWaitingStep(ctx, node, flow, token, progress);
}

/**
 * Act on a waiting step's verdict, the node locked by the caller (this poll, or the ramdisk's
 * heartbeat making the step's second call): keep waiting, fail, or resume the flow. The token
 * leaves the node in the conditional write that moves the flow on, so of a poll and a heartbeat
 * that race, the one that takes the lock second finds nothing left to do.
 */
export async function settleWaitingStep(
  ctx: ConductorContext,
  node: Node,
  flow: FlowName,
  token: string,
  progress: StepProgress,
): Promise<StepProgress['state']> {
  if (progress.state === 'waiting') {
    await ctx.nodes.save(node, { release: true });
    if (!(await ctx.steps.heartbeat(token))) ctx.log.warn('The waiting task is gone', { node: node.uuid, flow });
    return 'waiting';
  }
  if (progress.state === 'failed') {
    takeToken(node);
    ctx.log.warn('Waiting step failed', { node: node.uuid, flow, error: progress.message });
    await ctx.nodes.save(node, { release: true });
    await ctx.steps.fail(token, AGENT_STEP_FAILED, progress.message);
    return 'failed';
  }
  ctx.log.info('Waiting step finished; resuming', { node: node.uuid, flow });
  if (await abortAfterStep(ctx, node, flow)) return 'done';
  takeToken(node);
  await resumeWithNextStep(ctx, node, flow, token, () => nextStep(ctx, node, flow, { lockFor: executionOwner(ctx, node) }));
  return 'done';
}
