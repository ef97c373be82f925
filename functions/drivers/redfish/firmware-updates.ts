/**
 * Following a redfish firmware update after its step has returned (Ironic master's
 * `redfish/firmware.py` `_query_update_status` and `_check_node_redfish_firmware_update`): the
 * `update` step posts the first `SimpleUpdate` and leaves the node in `clean wait` (`service
 * wait`, `deploy wait`) with the updates still to do in `driver_internal_info.redfish_fw_updates`,
 * the first carrying the BMC's Task (`task_monitor`). The conductor's periodic task
 * `poll_waiting_steps` calls the step's `poll`, `checkFirmwareUpdates`, for each such node; one
 * call looks at the BMC once and says whether the step is still waiting, done, or failed with
 * Ironic's message. As master, by component:
 *
 * - BIOS: the node is rebooted as soon as the Task has started (Starting, Running, Pending), else
 *   when it completes or disappears (`bios_reboot_triggered`), once (and, for an image posted after
 *   another, right after its post: `firmware-update-continue.ts`). A Task gone before that reboot
 *   fails the update when a Dell iDRAC's job queue has no job waiting for it (`idrac-jobs.ts`).
 *   These reboots, and the NIC's, give each power state change the update's `power_timeout`
 *   (`firmware_update_reboot_delay`).
 * - NIC: a Task still in Starting after `[redfish]firmware_update_nic_starting_wait` is rebooted
 *   for, once (`nic_reboot_triggered`); a Task seen Running, or one that completed before any
 *   look, owes a reboot once the last update is done (`firmware_reboot_requested`), forgotten
 *   when a next image is posted first.
 * - BMC: nothing is looked at during its wait; then, the Task ended (even in failure), gone, or the
 *   BMC away, its version is read every `firmware_update_bmc_version_check_interval`: changed, the updates
 *   go on (a reboot first when more follow); unchanged at `firmware_update_reboot_delay` after the
 *   post, they go on without a reboot; unreadable then, a reboot is owed. A BMC that does not
 *   answer while it restarts is asked again at the next poll.
 *
 * The whole update fails after `firmware_update_overall_timeout` (from
 * `redfish_fw_update_start_time`) with master's message. Going on after an update (its `wait`,
 * the check that the BMC's resources are stable, the next post): `firmware-update-continue.ts`.
 */
import type { StepProgress, Task } from '../base';
import { NIC_COMPONENT_PREFIX } from '../firmware';
import { DEFAULT_FIRMWARE_UPDATE_CONFIG, type FirmwareUpdateConfig } from './config';
import { type Resource, RedfishRequestError } from './client';
import { continueUpdates } from './firmware-update-continue';
import { scheduledBiosJob } from './idrac-jobs';
import {
  BMC_VERSION_BEFORE_KEY,
  FW_REBOOT_REQUESTED_KEY,
  FW_UPDATE_START_KEY,
  type Follow,
  type PendingUpdate,
  type UpdatePorts,
  WAITING,
  clearUpdates,
  failureMessage,
  nowIso,
  pendingUpdates,
  readBmcVersion,
  secondsSince,
  setInfo,
  storeAndReboot,
  storeUpdates,
} from './firmware-update-state';
import { isRedfishFailure } from './system';

export { FW_UPDATE_START_KEY, type PendingUpdate, type UpdatePorts, pendingUpdates, clearUpdates } from './firmware-update-state';
export { submitFirst } from './firmware-update-continue';

/** Task states in which the Task is still at work (master's list); any other has ended it. */
const IN_PROGRESS = new Set(['New', 'Starting', 'Running', 'Pending']);
/** Task states in which a BIOS image has started: the host may be reset to apply it. */
const BIOS_STARTED = new Set(['Starting', 'Running', 'Pending']);

type Kind = 'bios' | 'bmc' | 'nic';
const kindOf = (component: string): Kind => (component.startsWith(NIC_COMPONENT_PREFIX) ? 'nic' : (component as Kind));

/** The Task's messages, as Ironic joins them into its failure. */
function taskMessages(doc: Resource): string[] {
  const messages = Array.isArray(doc.Messages) ? (doc.Messages as Resource[]) : [];
  return messages
    .map((m) => {
      const text = typeof m.Message === 'string' ? m.Message : '';
      return text === '' || ['unknown', 'unknown error'].includes(text.toLowerCase()) ? String(m.MessageId ?? '') : text;
    })
    .filter((m) => m !== '');
}

/** The Task: gone (404), out of reach (asked again next time), still at work in a state, or ended. */
type TaskReading =
  | { readonly is: 'gone' }
  | { readonly is: 'away' }
  | { readonly is: 'working'; readonly state: string }
  | { readonly is: 'ok' }
  | { readonly is: 'failed'; readonly messages: string[] };

async function readTask(f: Follow, update: PendingUpdate): Promise<TaskReading> {
  if (update.task_monitor === undefined) return { is: 'gone' };
  let doc: Resource;
  try {
    doc = await (await f.ports.system(f.task)).client.get(update.task_monitor);
  } catch (err) {
    if (err instanceof RedfishRequestError && err.status === 404) return { is: 'gone' };
    if (!isRedfishFailure(err)) throw err;
    // A BMC that flashes itself is away for a while: the next poll asks again.
    f.task.log.warn('Unable to communicate with task monitor service; will try again on the next poll', {
      node: f.task.node.uuid,
      error: err.message,
    });
    return { is: 'away' };
  }
  const state = typeof doc.TaskState === 'string' ? doc.TaskState : 'New';
  if (IN_PROGRESS.has(state)) return { is: 'working', state };
  const messages = taskMessages(doc);
  if (state === 'Completed' && (doc.TaskStatus === 'OK' || doc.TaskStatus === 'Warning')) {
    f.task.log.info('Firmware update task completed', { node: f.task.node.uuid, url: update.url, messages: messages.join(', ') });
    return { is: 'ok' };
  }
  return { is: 'failed', messages };
}

/** Master's _check_overall_timeout: the message, or undefined while there is time. */
function overallTimeout(task: Task, config: FirmwareUpdateConfig): string | undefined {
  const start = task.node.driver_internal_info[FW_UPDATE_START_KEY];
  if (config.overallTimeout <= 0 || typeof start !== 'string') return undefined;
  const elapsed = secondsSince(start);
  if (!(elapsed >= config.overallTimeout)) return undefined;
  return `Firmware update on node ${task.node.uuid} has exceeded the overall timeout of ${config.overallTimeout} seconds. Elapsed time: ${Math.floor(elapsed)} seconds.`;
}

/**
 * One look at the node's running update (its lock held): still waiting, done (the caller resumes
 * the flow), or failed with Ironic's message (the bookkeeping removed; the caller fails the flow).
 */
export async function checkFirmwareUpdates(
  task: Task,
  ports: UpdatePorts,
  config: FirmwareUpdateConfig = DEFAULT_FIRMWARE_UPDATE_CONFIG,
): Promise<StepProgress> {
  const updates = pendingUpdates(task);
  const current = updates[0];
  if (current === undefined) return { state: 'done' };
  const timedOut = overallTimeout(task, config);
  if (timedOut !== undefined) {
    task.log.error(timedOut, { node: task.node.uuid });
    clearUpdates(task);
    return { state: 'failed', message: timedOut };
  }
  const f: Follow = { task, ports, config, updates };
  if (current.resource_validation !== undefined) return continueUpdates(f);
  if (current.bmc_update_completed === true) {
    // The BMC's new version runs and the node was rebooted for the next updates.
    delete current.bmc_update_completed;
    return continueUpdates(f);
  }
  if (current.wait_start_time !== undefined) {
    if (secondsSince(current.wait_start_time) < (current.wait ?? 0)) return WAITING;
    delete current.wait;
    delete current.wait_start_time;
    return waitEnded(f, current);
  }
  return followTask(f, current);
}

/** The update's wait is over (master's _handle_wait_completion). */
async function waitEnded(f: Follow, current: PendingUpdate): Promise<StepProgress> {
  if (current.bmc_version_checking === true) {
    delete current.bmc_version_checking;
    return checkBmcVersion(f, current);
  }
  if (current.component !== 'bmc') return continueUpdates(f);
  const reading = await readTask(f, current);
  if (reading.is === 'working') {
    f.task.log.debug('BMC firmware update wait expired but its task is still processing', { node: f.task.node.uuid });
    storeUpdates(f.task, f.updates);
    return WAITING;
  }
  // Ended (however: a failed Task too, as master, which asks here only whether it still runs), gone,
  // or the BMC away: its version tells whether the image took.
  return checkBmcVersion(f, current);
}

function failed(f: Follow, current: PendingUpdate, messages: string[]): StepProgress {
  clearUpdates(f.task);
  return { state: 'failed', message: failureMessage(f.task, current, messages.join(',  ')) };
}

/** Look at the Task once (master's _handle_firmware_update_task). */
async function followTask(f: Follow, current: PendingUpdate): Promise<StepProgress> {
  const { task } = f;
  const node = task.node.uuid;
  const kind = kindOf(current.component);
  const reading = await readTask(f, current);
  switch (reading.is) {
    case 'away':
      return WAITING;
    case 'failed':
      return failed(f, current, reading.messages);
    case 'gone':
      task.log.warn('Firmware update completed, but success of the update is unknown. Assuming update was successful.', {
        node,
        url: current.url,
      });
      if (kind === 'bios' && current.bios_reboot_triggered !== true) return biosTaskGone(f, current);
      return continueUpdates(f);
    case 'working':
      if (kind === 'bios') {
        if (current.bios_reboot_triggered !== true && BIOS_STARTED.has(reading.state)) {
          task.log.info('BIOS firmware update task has started; rebooting to apply it', { node, state: reading.state });
          return biosReboot(f, current);
        }
      } else if (kind === 'nic') {
        return nicWorking(f, current, reading.state);
      }
      task.log.debug('Firmware update in progress', { node, url: current.url, state: reading.state });
      return WAITING;
    case 'ok':
      return taskCompleted(f, current, kind);
  }
}

/**
 * A BIOS Task gone before its reboot (master's _handle_bios_task_monitor_disappeared): staged, and
 * rebooted for, unless the BMC's job queue (a Dell iDRAC's) says no job waits for it.
 */
async function biosTaskGone(f: Follow, current: PendingUpdate): Promise<StepProgress> {
  const { task } = f;
  const node = task.node.uuid;
  const scheduled = await scheduledBiosJob(task, current.task_monitor, () => f.ports.system(task));
  if (scheduled === false) {
    clearUpdates(task);
    const message = `Firmware update failed for node ${node}, firmware ${current.url}. The BMC task disappeared and no scheduled job was found, indicating the firmware download or staging failed.`;
    task.log.error(message, { node });
    return { state: 'failed', message };
  }
  task.log.info(
    scheduled === undefined
      ? 'BIOS firmware update task disappeared; the BMC scheduled job check is not supported, so assuming staging succeeded and rebooting'
      : 'BIOS firmware update task disappeared; its scheduled job is confirmed, rebooting to apply the staged firmware',
    { node },
  );
  return biosReboot(f, current);
}

async function biosReboot(f: Follow, current: PendingUpdate): Promise<StepProgress> {
  current.bios_reboot_triggered = true;
  await storeAndReboot(f, current.power_timeout);
  return WAITING;
}

/** A NIC's Task at work (master's _handle_nic_task_starting). */
async function nicWorking(f: Follow, current: PendingUpdate, state: string): Promise<StepProgress> {
  const node = f.task.node.uuid;
  if (state === 'Running') {
    delete current.nic_starting_timestamp;
    delete current.nic_reboot_triggered;
    current.nic_needs_post_completion_reboot = true;
  } else if (state === 'Starting' && current.nic_reboot_triggered !== true) {
    if (current.nic_starting_timestamp === undefined) {
      current.nic_starting_timestamp = nowIso();
    } else if (secondsSince(current.nic_starting_timestamp) >= f.config.nicStartingWait) {
      f.task.log.info('NIC firmware update task remained in Starting; the hardware needs a reboot to start it', {
        node,
        wait: f.config.nicStartingWait,
      });
      current.nic_reboot_triggered = true;
      delete current.nic_starting_timestamp;
      await storeAndReboot(f, current.power_timeout);
      return WAITING;
    }
  }
  storeUpdates(f.task, f.updates);
  return WAITING;
}

/** The Task completed well (master's _handle_task_completion). */
async function taskCompleted(f: Follow, current: PendingUpdate, kind: Kind): Promise<StepProgress> {
  const node = f.task.node.uuid;
  if (kind === 'bmc') return checkBmcVersion(f, current);
  if (kind === 'bios') {
    if (current.bios_reboot_triggered !== true) {
      // Some BMCs stage the image so fast that the Task ends before any look: reboot now, go on next time.
      f.task.log.info('BIOS firmware update task completed before its reboot; rebooting to apply the staged firmware', { node });
      return biosReboot(f, current);
    }
    delete current.bios_reboot_triggered;
    return continueUpdates(f);
  }
  if (current.nic_reboot_triggered !== true) {
    // Seen Running, or done before any look: the update needs a reboot to apply.
    setInfo(f.task, FW_REBOOT_REQUESTED_KEY, true);
  }
  delete current.nic_needs_post_completion_reboot;
  delete current.nic_starting_timestamp;
  delete current.nic_reboot_triggered;
  return continueUpdates(f);
}

/** After a BMC image: has its version changed (master's _handle_bmc_update_completion)? */
async function checkBmcVersion(f: Follow, current: PendingUpdate): Promise<StepProgress> {
  const { task } = f;
  const node = task.node.uuid;
  const version = await readBmcVersion(f);
  const before = task.node.driver_internal_info[BMC_VERSION_BEFORE_KEY];
  const known = version !== null && typeof before === 'string';
  if (known && version !== before) {
    setInfo(task, BMC_VERSION_BEFORE_KEY, undefined);
    task.log.info('BMC firmware version changed', { node, old: before, new: version });
    if (f.updates.length > 1) {
      // Some hardware applies the next (NIC) images only after the host rebooted on the new BMC firmware.
      current.bmc_update_completed = true;
      await storeAndReboot(f);
      return WAITING;
    }
    return continueUpdates(f);
  }
  const start = current.bmc_check_start_time ?? nowIso();
  if (secondsSince(start) >= f.config.rebootDelay) {
    if (known) {
      task.log.info('BMC firmware version did not change; continuing without reboot', { node, version });
    } else {
      task.log.warn('BMC firmware version check timed out; will reboot to complete the firmware update', { node });
      setInfo(task, FW_REBOOT_REQUESTED_KEY, true);
    }
    setInfo(task, BMC_VERSION_BEFORE_KEY, undefined);
    return continueUpdates(f);
  }
  current.wait = f.config.bmcVersionCheckInterval;
  current.wait_start_time = nowIso();
  current.bmc_version_checking = true;
  storeUpdates(task, f.updates);
  return WAITING;
}
