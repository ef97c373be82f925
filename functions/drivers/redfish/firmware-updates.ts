/**
 * Following a redfish firmware update after its step has returned (Ironic's `redfish/firmware.py`
 * `_query_update_status` and `_check_node_redfish_firmware_update`): the `update` step posts the
 * first `SimpleUpdate` and leaves the node in `clean wait` (`service wait`, `deploy wait`) with the
 * updates still to do in `driver_internal_info.redfish_fw_updates`, the first carrying the BMC's
 * Task (`task_monitor`). The conductor's periodic task `poll_waiting_steps` then calls
 * the step's `poll`, `checkFirmwareUpdates`, for each such node, which looks at the Task once and says whether the
 * step is still waiting, done, or failed with Ironic's message.
 *
 * On a Task that completed: a BIOS image is staged by the BMC and runs after a host reset, so the
 * node is rebooted at once (Ironic master: `bios_reboot_triggered`); a NIC image asks for a reboot
 * once all updates are done (`firmware_reboot_requested`); a BMC restarts by itself. Then the
 * update's `wait` (seconds) is waited, from `wait_start_time`, across polls; then the next update
 * is posted, or, after the last, the node is rebooted if asked, the bookkeeping is removed and the
 * components are cached again (a failure of that only logged, as Ironic).
 *
 * NOTE: Ironic master also watches the BMC's version after a BMC update and reboots when it does
 * not change, reboots NICs whose Task stays in Starting, and has an overall timeout; here the
 * wait state's callback timeout (`fail_timed_out_waits`, the execution's TimeoutSeconds) bounds
 * the whole update, as it bounds `clean wait` in Ironic.
 */
import { RedfishError } from '#common/errors';
import type { StepProgress, Task } from '../base';
import { ActionRefused } from '../guard';
import { NIC_COMPONENT_PREFIX, type FirmwareUpdate } from '../firmware';
import { type Resource, RedfishRequestError } from './client';
import { type RedfishSystem, isRedfishFailure } from './system';

/** The updates still to do, the first being the one running (Ironic's key). */
export const FW_UPDATES_KEY = 'redfish_fw_updates';
/** When the step started the updates (Ironic's key). */
export const FW_UPDATE_START_KEY = 'redfish_fw_update_start_time';
/** A reboot is owed once the last update is done (Ironic master's key). */
export const FW_REBOOT_REQUESTED_KEY = 'firmware_reboot_requested';

/** One update as kept on the node: the setting, its Task once posted, when its wait began. */
export interface PendingUpdate extends FirmwareUpdate {
  task_monitor?: string;
  wait_start_time?: string;
  bios_reboot_triggered?: boolean;
}

/** Task states in which the Task has ended (Redfish TaskState). */
const ENDED = new Set(['Completed', 'Exception', 'Killed', 'Cancelled', 'Interrupted']);

const odataId = (value: unknown): string | undefined => {
  const id = (value as { '@odata.id'?: unknown } | undefined)?.['@odata.id'];
  return typeof id === 'string' ? id : undefined;
};

/** What following the updates needs from the interface: the BMC, a reboot, and a refresh of the cache. */
export interface UpdatePorts {
  readonly system: (task: Task) => Promise<RedfishSystem>;
  readonly reboot: (task: Task) => Promise<void>;
  readonly cache: (task: Task, system: RedfishSystem) => Promise<void>;
}

/** The pending updates on the node; empty when there are none. */
export function pendingUpdates(task: Task): PendingUpdate[] {
  const stored = task.node.driver_internal_info[FW_UPDATES_KEY];
  return Array.isArray(stored) ? (stored as PendingUpdate[]).map((u) => ({ ...u })) : [];
}

function storeUpdates(task: Task, updates: readonly PendingUpdate[]): void {
  task.node.driver_internal_info = { ...task.node.driver_internal_info, [FW_UPDATES_KEY]: updates };
}

/** Remove the bookkeeping (Ironic's _clear_updates). */
export function clearUpdates(task: Task): void {
  const info = { ...task.node.driver_internal_info };
  for (const key of [FW_UPDATES_KEY, FW_UPDATE_START_KEY, FW_REBOOT_REQUESTED_KEY, 'firmware_cleanup']) delete info[key];
  task.node.driver_internal_info = info;
}

const failure = (task: Task, update: FirmwareUpdate, error: string) =>
  `Firmware update failed for node ${task.node.uuid}, firmware ${update.url}. Error: ${error}`;

/** The SimpleUpdate action's target, from the service root's UpdateService. */
async function simpleUpdateTarget(task: Task, system: RedfishSystem): Promise<string> {
  const root = await system.client.get(system.client.root);
  const servicePath = odataId(root.UpdateService);
  if (servicePath === undefined) throw new RedfishError(`The BMC of node ${task.node.uuid} has no UpdateService.`);
  const service = await system.client.get(servicePath);
  const action = ((service.Actions ?? {}) as Resource)['#UpdateService.SimpleUpdate'] as Resource | undefined;
  if (typeof action?.target !== 'string') {
    throw new RedfishError(`The attribute #UpdateService.SimpleUpdate is missing on node ${task.node.uuid}.`);
  }
  return action.target;
}

/** Ironic names the system as the target only when the BMC has more than one. */
async function targetsFor(system: RedfishSystem): Promise<string[] | undefined> {
  const root = await system.client.get(system.client.root);
  const systemsPath = odataId(root.Systems);
  if (systemsPath === undefined) return undefined;
  const members = (await system.client.get(systemsPath)).Members;
  return Array.isArray(members) && members.length > 1 ? [system.path] : undefined;
}

/**
 * Post the first of `updates` (Ironic's _execute_firmware_update) and record them all on the node
 * with its Task. RedfishError with Ironic's message when the BMC refuses it.
 */
export async function submitFirst(task: Task, system: RedfishSystem, updates: PendingUpdate[]): Promise<void> {
  const update = updates[0];
  if (update === undefined) return;
  const target = await simpleUpdateTarget(task, system);
  const targets = await targetsFor(system);
  task.log.debug('Applying new firmware', { node: task.node.uuid, component: update.component, url: update.url });
  let accepted: Resource;
  try {
    accepted = await system.client.post(target, { ImageURI: update.url, ...(targets ? { Targets: targets } : {}) });
  } catch (err) {
    if (!isRedfishFailure(err)) throw err;
    throw new RedfishError(failure(task, update, err.message));
  }
  const monitor = odataId(accepted);
  // Without a Task to follow, the next poll finds none and assumes the update worked (as Ironic when the Task is gone).
  if (monitor !== undefined) update.task_monitor = monitor;
  else task.log.warn('Firmware update accepted without a task', { node: task.node.uuid, url: update.url });
  storeUpdates(task, updates);
}

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

/** Ended well, ended badly (Ironic's message), still running, or gone (404: assumed done). */
type TaskReading = { readonly ended: 'ok' } | { readonly ended: 'failed'; readonly messages: string[] } | { readonly ended: false };

async function readTask(task: Task, system: RedfishSystem, update: PendingUpdate): Promise<TaskReading> {
  if (update.task_monitor === undefined) return { ended: 'ok' };
  let doc: Resource;
  try {
    doc = await system.client.get(update.task_monitor);
  } catch (err) {
    if (err instanceof RedfishRequestError && err.status === 404) {
      task.log.warn('Firmware update completed, but success of the update is unknown. Assuming update was successful.', {
        node: task.node.uuid,
        url: update.url,
      });
      return { ended: 'ok' };
    }
    if (!isRedfishFailure(err)) throw err;
    // A BMC that flashes itself is away for a while: the next poll asks again.
    task.log.warn('Unable to communicate with task monitor service; will try again on the next poll', {
      node: task.node.uuid,
      error: err.message,
    });
    return { ended: false };
  }
  if (typeof doc.TaskState !== 'string' || !ENDED.has(doc.TaskState)) return { ended: false };
  const messages = taskMessages(doc);
  if (doc.TaskState === 'Completed' && (doc.TaskStatus === 'OK' || doc.TaskStatus === 'Warning')) {
    task.log.info('Firmware update succeeded', { node: task.node.uuid, url: update.url, messages: messages.join(', ') });
    return { ended: 'ok' };
  }
  return { ended: 'failed', messages };
}

const WAITING: StepProgress = { state: 'waiting' };

/**
 * One look at the node's running update (its lock held): still waiting, done (the caller resumes
 * the flow), or failed with Ironic's message (the bookkeeping removed; the caller fails the flow).
 */
export async function checkFirmwareUpdates(task: Task, ports: UpdatePorts): Promise<StepProgress> {
  const updates = pendingUpdates(task);
  const current = updates[0];
  if (current === undefined) return { state: 'done' };
  const node = task.node.uuid;
  if (current.wait_start_time !== undefined) {
    const waited = Date.now() - Date.parse(current.wait_start_time);
    if (waited < (current.wait ?? 0) * 1000) return WAITING;
    return advance(task, ports, updates);
  }
  const system = await ports.system(task);
  const reading = await readTask(task, system, current);
  if (reading.ended === false) {
    task.log.debug('Firmware update in progress', { node, url: current.url });
    return WAITING;
  }
  if (reading.ended === 'failed') {
    clearUpdates(task);
    return { state: 'failed', message: failure(task, current, reading.messages.join(',  ')) };
  }
  if (current.component === 'bios' && current.bios_reboot_triggered !== true) {
    // The BMC has staged the image: the host runs it from its next reset.
    task.log.info('BIOS firmware update task completed; rebooting to apply the staged firmware', { node });
    current.bios_reboot_triggered = true;
    storeUpdates(task, updates);
    await task.persist?.();
    await ports.reboot(task);
  } else if (current.component.startsWith(NIC_COMPONENT_PREFIX)) {
    task.node.driver_internal_info = { ...task.node.driver_internal_info, [FW_REBOOT_REQUESTED_KEY]: true };
  }
  if (current.wait !== undefined && current.wait > 0) {
    current.wait_start_time = new Date().toISOString();
    storeUpdates(task, updates);
    task.log.debug('Waiting after the firmware update', { node, seconds: current.wait, url: current.url });
    return WAITING;
  }
  return advance(task, ports, updates);
}

/** The current update is done (and waited for): post the next, or finish (Ironic's _continue_updates). */
async function advance(task: Task, ports: UpdatePorts, updates: PendingUpdate[]): Promise<StepProgress> {
  const system = await ports.system(task);
  if (updates.length > 1) {
    const rest = updates.slice(1);
    try {
      await submitFirst(task, system, rest);
    } catch (err) {
      if (!(err instanceof RedfishError)) throw err;
      clearUpdates(task);
      return { state: 'failed', message: err.message };
    }
    return WAITING;
  }
  const rebootOwed = task.node.driver_internal_info[FW_REBOOT_REQUESTED_KEY] === true;
  clearUpdates(task);
  task.log.info('Firmware updates completed', { node: task.node.uuid });
  if (rebootOwed) {
    task.log.info('Rebooting to apply firmware updates', { node: task.node.uuid });
    await task.persist?.();
    await ports.reboot(task);
  }
  try {
    await system.refresh();
    await ports.cache(task, system);
  } catch (err) {
    // As Ironic, any failure here is only logged; but an attempt that must stop stops.
    if (err instanceof ActionRefused) throw err;
    task.log.warn('Failed to refresh firmware components after firmware update', { node: task.node.uuid, error: String(err) });
  }
  return { state: 'done' };
}
