/**
 * Posting firmware updates and going on after one (Ironic master's `_execute_firmware_update`,
 * `_continue_updates` and `_validate_resources_stability`).
 *
 * Posting an update sets it up as master does by component: a BMC image is waited for
 * (`wait`, else `[redfish]firmware_update_reboot_delay`) and its version noted, so that its
 * update can later be told apart by the version the BMC reports; BIOS and NIC images are
 * followed through their Task (`firmware-updates.ts`), a BIOS image posted after another update
 * rebooted for at once. A reboot an earlier update owed is forgotten (master's _clean_temp_fields).
 *
 * After an update (and its `wait`), the BMC's System, Manager and NetworkAdapters must answer
 * `firmware_update_required_successes` times in a row before the next update is posted or, after
 * the last, the flow resumes (a reboot owed by the updates is done first, as master does).
 * NOTE: master checks in one blocking loop, sleeping `firmware_update_validation_interval`
 * between checks; a Lambda cannot hold a node that long, so here each poll makes one check (all
 * of them at once when the interval is 0), at most one per interval, and the count is kept on the
 * update. Resources still failing after `firmware_update_resource_validation_timeout` fail the
 * step with master's message.
 */
import { RedfishError } from '#common/errors';
import type { StepProgress, Task } from '../base';
import { ActionRefused } from '../guard';
import type { FirmwareUpdateConfig } from './config';
import { type Resource } from './client';
import {
  BMC_VERSION_BEFORE_KEY,
  FW_REBOOT_REQUESTED_KEY,
  type Follow,
  type PendingUpdate,
  type ResourceValidation,
  WAITING,
  clearUpdates,
  failureMessage,
  isBmcAway,
  nowIso,
  secondsSince,
  setInfo,
  storeUpdates,
} from './firmware-update-state';
import { type RedfishSystem, isRedfishFailure } from './system';

const odataId = (value: unknown): string | undefined => {
  const id = (value as { '@odata.id'?: unknown } | undefined)?.['@odata.id'];
  return typeof id === 'string' ? id : undefined;
};

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

/** A BMC image: note the running version and wait before looking (master's _setup_bmc_update_monitoring). */
async function setUpBmcUpdate(task: Task, system: RedfishSystem, update: PendingUpdate, config: FirmwareUpdateConfig): Promise<void> {
  try {
    const [manager] = await system.managers();
    const version = manager?.FirmwareVersion;
    setInfo(task, BMC_VERSION_BEFORE_KEY, typeof version === 'string' && version !== '' ? version : undefined);
  } catch (err) {
    if (!isBmcAway(err)) throw err;
    task.log.warn('Could not read BMC version before update', { node: task.node.uuid, error: String(err) });
  }
  const start = nowIso();
  update.wait ??= config.rebootDelay;
  update.wait_start_time = start;
  update.bmc_check_start_time = start;
}

/**
 * Post the first of `updates` (Ironic's _execute_firmware_update) and record them all on the node
 * with its Task. RedfishError with Ironic's message when the BMC refuses it.
 */
export async function submitFirst(
  task: Task,
  system: RedfishSystem,
  updates: PendingUpdate[],
  config: FirmwareUpdateConfig,
): Promise<void> {
  const update = updates[0];
  if (update === undefined) return;
  const target = await simpleUpdateTarget(task, system);
  const targets = await targetsFor(system);
  // Master's _submit_simple_update: the reboots for this image wait this long for each power state.
  update.power_timeout = config.rebootDelay;
  task.log.debug('Applying new firmware', { node: task.node.uuid, component: update.component, url: update.url });
  let accepted: Resource;
  try {
    accepted = await system.client.post(target, { ImageURI: update.url, ...(targets ? { Targets: targets } : {}) });
  } catch (err) {
    if (!isRedfishFailure(err)) throw err;
    throw new RedfishError(failureMessage(task, update, err.message));
  }
  const monitor = odataId(accepted);
  // Without a Task to follow, the next poll finds none and assumes the update worked (as Ironic when the Task is gone).
  if (monitor !== undefined) update.task_monitor = monitor;
  else task.log.warn('Firmware update accepted without a task', { node: task.node.uuid, url: update.url });
  // As master's set-up of each posted update: what an earlier update noted goes, a reboot it owed too.
  setInfo(task, BMC_VERSION_BEFORE_KEY, undefined);
  setInfo(task, FW_REBOOT_REQUESTED_KEY, undefined);
  if (update.component === 'bmc') await setUpBmcUpdate(task, system, update, config);
  storeUpdates(task, updates);
}

/** One round of the System, its Manager and its chassis' NetworkAdapters (none is fine). */
async function readResources(f: Follow): Promise<void> {
  const system = await f.ports.system(f.task);
  if ((await system.managers()).length === 0) throw new RedfishError(`The system of node ${f.task.node.uuid} has no manager.`);
  const links = ((system.doc.Links ?? {}) as Resource).Chassis;
  const chassisPath = odataId(Array.isArray(links) ? links[0] : undefined);
  if (chassisPath !== undefined) await system.members('NetworkAdapters', await system.client.get(chassisPath));
}

/** Check the resources as far as this poll may: stable, not yet, or failed with master's message. */
async function validateResources(f: Follow, v: ResourceValidation): Promise<'stable' | 'waiting' | { failed: string }> {
  const { requiredSuccesses, resourceValidationTimeout: timeout, validationInterval } = f.config;
  if (requiredSuccesses === 0 || timeout === 0) return 'stable';
  const node = f.task.node.uuid;
  // With no interval, master checks in rapid succession: up to the successes needed in one poll.
  for (let attempt = 0; attempt < (validationInterval === 0 ? requiredSuccesses : 1); attempt++) {
    if (v.last_check_time !== undefined && secondsSince(v.last_check_time) < validationInterval) break;
    try {
      await readResources(f);
      v.successes += 1;
      f.task.log.debug('Resource validation success', { node, count: v.successes, required: requiredSuccesses });
    } catch (err) {
      if (!isBmcAway(err)) throw err;
      f.task.log.debug('BMC resource validation failed; the BMC may still be restarting', { node, error: String(err) });
      v.successes = 0;
      v.last_error = err instanceof Error ? err.message : String(err);
    }
    v.last_check_time = nowIso();
    if (v.successes >= requiredSuccesses) return 'stable';
  }
  if (secondsSince(v.start_time) < timeout) return 'waiting';
  const last = v.last_error === undefined ? '' : `, last error: ${v.last_error}`;
  return { failed: `BMC resources failed to stabilize within ${timeout} seconds for node ${node}${last}` };
}

/**
 * The current update is done: wait its `wait`, then (after the owed reboot, for the last) check
 * the BMC's resources, then post the next or finish (master's _continue_updates).
 */
export async function continueUpdates(f: Follow): Promise<StepProgress> {
  const current = f.updates[0] as PendingUpdate;
  if (current.resource_validation === undefined && current.wait !== undefined && current.wait > 0) {
    current.wait_start_time = nowIso();
    storeUpdates(f.task, f.updates);
    f.task.log.debug('Waiting after the firmware update', { node: f.task.node.uuid, seconds: current.wait, url: current.url });
    return WAITING;
  }
  let v = current.resource_validation;
  if (v === undefined) {
    const last = f.updates.length === 1;
    if (last && f.task.node.driver_internal_info[FW_REBOOT_REQUESTED_KEY] === true) {
      // Recorded only once done: a reboot that fails is tried again at the next poll.
      f.task.log.info('Rebooting to apply firmware updates', { node: f.task.node.uuid });
      await f.ports.reboot(f.task);
      setInfo(f.task, FW_REBOOT_REQUESTED_KEY, undefined);
    }
    v = { start_time: nowIso(), successes: 0 };
    current.resource_validation = v;
  }
  const verdict = await validateResources(f, v);
  storeUpdates(f.task, f.updates);
  if (verdict === 'waiting') return WAITING;
  if (verdict !== 'stable') {
    clearUpdates(f.task);
    return { state: 'failed', message: verdict.failed };
  }
  return f.updates.length > 1 ? postNext(f) : finish(f);
}

/**
 * Post the next update. A BIOS image is rebooted for right after its post (the node written
 * first), and again as its Task starts, as master's _continue_updates does for a component whose
 * set-up asks for a reboot; BMC and NIC images are not.
 */
async function postNext(f: Follow): Promise<StepProgress> {
  const rest = f.updates.slice(1);
  try {
    await submitFirst(f.task, await f.ports.system(f.task), rest, f.config);
  } catch (err) {
    if (!(err instanceof RedfishError)) throw err;
    clearUpdates(f.task);
    return { state: 'failed', message: err.message };
  }
  if (rest[0]?.component === 'bios') {
    f.task.log.info('Rebooting to start the next firmware update', { node: f.task.node.uuid, url: rest[0].url });
    await f.task.persist?.();
    await f.ports.reboot(f.task, rest[0].power_timeout);
  }
  return WAITING;
}

/** The last update is done: remove the bookkeeping and read the new versions (a failure only logged, as Ironic). */
async function finish(f: Follow): Promise<StepProgress> {
  const { task } = f;
  clearUpdates(task);
  task.log.info('Firmware updates completed', { node: task.node.uuid });
  try {
    const system = await f.ports.system(task);
    await f.ports.cache(task, system);
  } catch (err) {
    // As Ironic, any failure here is only logged; but an attempt that must stop stops.
    if (err instanceof ActionRefused) throw err;
    task.log.warn('Failed to refresh firmware components after firmware update', { node: task.node.uuid, error: String(err) });
  }
  return { state: 'done' };
}
