/**
 * The periodic task `check_firmware_updates` (Ironic's redfish `_query_update_status`, every
 * `[redfish]firmware_update_status_interval`): a firmware `update` step that started its updates
 * left its node in `clean wait` (`service wait`, `deploy wait`) with the steps machine's task token
 * on it, as an agent step does. Each run walks those wait states a page at a time
 * (`periodic-pages.ts`), and for each node whose current step is such an update, takes its lock and
 * lets the firmware interface look at the BMC's Task once:
 *
 * - still running: the node is let go and the waiting task kept alive (SendTaskHeartbeat), as an
 *   agent heartbeat does (the agent's own heartbeats leave such a step alone, `heartbeat.ts`);
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
import type { Driver, FirmwareUpdateProgress, Step } from '#drivers/base';
import { ActionRefused } from '#drivers/guard';
import { loadDriver } from '#drivers/registry';
import type { Node } from '#objects/node';
import type { ConductorContext, FlowName } from '../context';
import { guarded } from '../attempt';
import { firmwareComponentsPort } from '../firmware';
import { lockOwner } from '../lock';
import { abortAfterStep } from './abort';
import { executionOwner, resumeWithNextStep, takeToken } from './async-steps';
import { type PageWalk, walkNodesInStates } from './periodic-pages';
import { AGENT_STEP_FAILED, nextStep } from './run-steps';
import { storedSteps } from './steps';

const WAIT_FLOWS: Readonly<Record<string, FlowName>> = { [CLEANWAIT]: 'clean', [SERVICEWAIT]: 'service', [DEPLOYWAIT]: 'deploy' };

/**
 * Nodes one invocation checks at most: each check may reboot a node (seconds of power polling),
 * so a page is small and the rest is handed on.
 */
export const FIRMWARE_CHECK_PAGE_SIZE = 10;

/** Whether `step` is a firmware update its interface follows itself (not the agent's heartbeats). */
export function isPolledFirmwareStep(driver: Driver, step: Step | null | undefined): boolean {
  return step?.interface === 'firmware' && step.step === 'update' && step.async === true && driver.firmware.checkUpdates !== undefined;
}

/** The node's current step, if it is a polled firmware update of the flow it waits in. */
function waitingUpdate(node: Node, flow: FlowName): boolean {
  const { steps, index } = storedSteps(node, flow);
  try {
    return isPolledFirmwareStep(loadDriver(node), steps[index]);
  } catch {
    return false; // a driver this conductor cannot load: not its to follow
  }
}

export interface FirmwareCheckRun {
  checked: number;
  resumed: number;
  failed: number;
  /** Where another invocation goes on, if the walk was handed on. */
  continuedAt?: string;
}

/** Check the waiting firmware updates of one page of the wait states (all of them without `continueAt`). */
export async function checkFirmwareUpdates(ctx: ConductorContext, walk: PageWalk = {}): Promise<FirmwareCheckRun> {
  const run: FirmwareCheckRun = { checked: 0, resumed: 0, failed: 0 };
  const continuedAt = await walkNodesInStates(
    ctx,
    Object.keys(WAIT_FLOWS),
    { pageSize: FIRMWARE_CHECK_PAGE_SIZE, ...walk },
    async (state, nodes) => {
      const flow = WAIT_FLOWS[state]!;
      for (const candidate of nodes) {
        if (candidate.maintenance || !waitingUpdate(candidate, flow)) continue;
        const outcome = await checkNode(ctx, candidate.uuid, state, flow);
        if (outcome === undefined) continue;
        run.checked++;
        if (outcome === 'done') run.resumed++;
        if (outcome === 'failed') run.failed++;
      }
    },
  );
  if (continuedAt !== undefined) run.continuedAt = continuedAt;
  return run;
}

/** Check one node under its lock; undefined when it was taken, moved on, or its check could not finish. */
async function checkNode(
  ctx: ConductorContext,
  uuid: string,
  state: string,
  flow: FlowName,
): Promise<FirmwareUpdateProgress['state'] | undefined> {
  let node: Node;
  try {
    node = await ctx.nodes.reserve(uuid, lockOwner(ctx, `periodic:${newUuid()}`));
  } catch (err) {
    if (err instanceof NodeLocked) return undefined;
    throw err;
  }
  const token = node.driver_internal_info.steps_task_token;
  // Checked again on the node as locked: the page may be a moment old.
  if (node.provision_state !== state || node.maintenance || typeof token !== 'string' || !waitingUpdate(node, flow)) {
    await ctx.nodes.release(node);
    return undefined;
  }
  guarded(ctx, node, 'The firmware update check');
  const task = {
    node,
    log: ctx.log,
    firmwareComponents: firmwareComponentsPort(ctx, node.uuid),
    persist: async () => void (await ctx.nodes.save(node)),
  };
  let progress: FirmwareUpdateProgress;
  try {
    progress = await loadDriver(node).firmware.checkUpdates!(task);
  } catch (err) {
    // Not the update's verdict (the BMC away, out of time, a store hiccup): the next run looks again.
    ctx.log.warn('Firmware update check did not finish; will try again', { node: node.uuid, error: String(err) });
    if (!(err instanceof ActionRefused && err.reason === 'fenced')) await ctx.nodes.save(node, { release: true }).catch(() => undefined);
    return undefined;
  }
  if (progress.state === 'waiting') {
    await ctx.nodes.save(node, { release: true });
    if (!(await ctx.steps.heartbeat(token))) ctx.log.warn('The waiting task is gone', { node: node.uuid, flow });
    return 'waiting';
  }
  if (progress.state === 'failed') {
    takeToken(node);
    ctx.log.warn('Firmware update failed', { node: node.uuid, flow, error: progress.message });
    await ctx.nodes.save(node, { release: true });
    await ctx.steps.fail(token, AGENT_STEP_FAILED, progress.message);
    return 'failed';
  }
  ctx.log.info('Firmware update finished; resuming', { node: node.uuid, flow });
  if (await abortAfterStep(ctx, node, flow)) return 'done';
  takeToken(node);
  await resumeWithNextStep(ctx, node, flow, token, () => nextStep(ctx, node, flow, { lockFor: executionOwner(ctx, node) }));
  return 'done';
}
