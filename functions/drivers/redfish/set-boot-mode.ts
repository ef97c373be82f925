/**
 * Setting a Redfish system's boot mode as Ironic master's `RedfishManagement.set_boot_mode` and
 * `_wait_for_boot_mode` do:
 *
 * - the PATCH names only `BootSourceOverrideMode`, except for vendors whose BMCs want the whole
 *   override every time (AMI-based ones, ASRock Rack, `redfish_compatible`), which get the current
 *   target and enabled with it;
 * - a BMC that reported no mode before the PATCH and accepts it is trusted (as master: no reboot);
 * - otherwise the system is read again; a BMC that does not report the new mode yet applies it
 *   through a BIOS job (Dell's), so the node is rebooted and the mode polled for, until
 *   `[redfish]boot_mode_config_timeout` (0: no wait), then the node is put back in its power state.
 *
 * NOTE: master polls every 15 s for up to 900 s; a conductor invocation lasts minutes at most, so
 * the wait also ends before the invocation's deadline (`../guard.ts`), with master's timeout error.
 */
import { RedfishError, UnsupportedDriverExtension } from '#common/errors';
import { POWER_OFF, POWER_ON } from '#common/states';
import type { PowerInterface, Task } from '../base';
import { guardOf } from '../guard';
import { DEFAULT_BOOT_MODE_CONFIG_INTERVAL_MS, DEFAULT_BOOT_MODE_CONFIG_TIMEOUT_SECONDS, type RedfishConfig } from './config';
import { type RedfishSystem, isRedfishFailure, reachFailure } from './system';

/** Ironic master's VENDORS_REQUIRING_FULL_BOOT_REQUEST: matched as parts of the node's `properties.vendor`. */
const VENDORS_REQUIRING_FULL_BOOT_REQUEST = ['american megatrends international', 'ami', 'asrockrack', 'redfish_compatible'];

/** Time left, when the wait ends at the invocation's deadline, for putting the node back in its power state. */
const POWER_RESTORE_RESERVE_MS = 10_000;

/** Whether the node's vendor wants the whole boot override in every PATCH. */
export function requiresFullBootRequest(task: Task): boolean {
  const vendor = task.node.properties.vendor;
  if (typeof vendor !== 'string' || vendor === '') return false;
  const lower = vendor.toLowerCase();
  return VENDORS_REQUIRING_FULL_BOOT_REQUEST.some((id) => lower.includes(id));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

async function refresh(task: Task, system: RedfishSystem): Promise<void> {
  try {
    await system.refresh();
  } catch (err) {
    reachFailure(task.node.uuid, err);
  }
}

/**
 * Set `redfishMode` (UEFI, Legacy) on the system; `mode` is Ironic's name of it (uefi, bios), for
 * the messages. Throws UnsupportedDriverExtension when a BMC that reports no mode refuses it.
 */
export async function setRedfishBootMode(
  task: Task,
  system: RedfishSystem,
  mode: string,
  redfishMode: string,
  deps: { readonly power: PowerInterface; readonly config: RedfishConfig },
): Promise<void> {
  const uuid = task.node.uuid;
  // Read before the PATCH: a BMC may report no mode for a while after it.
  const modeUnsupported = system.boot.mode === undefined;
  try {
    if (requiresFullBootRequest(task)) {
      const enabled = system.boot.enabled ?? 'Once';
      const target = system.boot.target ?? 'Pxe';
      task.log.debug('The vendor requires the whole boot override', { node: uuid, mode: redfishMode, enabled, target });
      await system.setBootOptions({ mode: redfishMode, enabled, target });
    } else {
      await system.setBootOptions({ mode: redfishMode });
    }
  } catch (err) {
    if (!isRedfishFailure(err)) throw err;
    task.log.error('Setting the boot mode failed', { node: uuid, mode, error: err.message });
    // A BMC that does not report a mode cannot set one either (e.g. HPE Gen9): not an error of the node.
    if (modeUnsupported) throw new UnsupportedDriverExtension(task.node.driver, 'set_boot_mode');
    throw new RedfishError(`Setting boot mode to ${mode} failed for node ${uuid}. Error: ${err.message}`);
  }
  if (modeUnsupported) {
    task.log.warn(
      `The request to set boot mode for node ${uuid} to ${mode} has succeeded, but the current mode is not known. Skipping reboot and assuming the operation has succeeded.`,
      { node: uuid },
    );
    return;
  }
  await waitForBootMode(task, system, redfishMode, deps);
  task.log.info(`Boot mode for node ${uuid} has been set to ${mode}`, { node: uuid });
}

/** Master's `_wait_for_boot_mode`: reboot to apply a mode the BMC does not report yet, and wait for it. */
async function waitForBootMode(
  task: Task,
  system: RedfishSystem,
  redfishMode: string,
  deps: { readonly power: PowerInterface; readonly config: RedfishConfig },
): Promise<void> {
  const uuid = task.node.uuid;
  await refresh(task, system);
  if (system.boot.mode === redfishMode) {
    task.log.debug(`Node ${uuid} is already configured with requested boot mode ${redfishMode}.`, { node: uuid });
    return;
  }
  task.log.info(`Rebooting node ${uuid} to change boot mode from ${system.boot.mode} to ${redfishMode}`, { node: uuid });
  const oldPowerState = await deps.power.getPowerState(task);
  await deps.power.reboot(task);

  const timeoutSeconds = deps.config.bootModeConfigTimeoutSeconds ?? DEFAULT_BOOT_MODE_CONFIG_TIMEOUT_SECONDS;
  if (timeoutSeconds > 0) {
    const interval = deps.config.bootModeConfigIntervalMs ?? DEFAULT_BOOT_MODE_CONFIG_INTERVAL_MS;
    const remaining = guardOf(task.node)?.remainingMs() ?? Number.POSITIVE_INFINITY;
    const threshold = Date.now() + Math.min(timeoutSeconds * 1000, remaining - POWER_RESTORE_RESERVE_MS);
    await refresh(task, system);
    while (Date.now() < threshold && system.boot.mode !== redfishMode) {
      task.log.debug(`Still waiting for boot mode of node ${uuid} to become ${redfishMode}, current is ${system.boot.mode}`, {
        node: uuid,
      });
      await sleep(Math.min(interval, threshold - Date.now()));
      await refresh(task, system);
    }
    if (system.boot.mode !== redfishMode) {
      const message = `Timeout reached while waiting for boot mode of node ${uuid} to become ${redfishMode}, current is ${system.boot.mode}`;
      task.log.error(message, { node: uuid });
      throw new RedfishError(message);
    }
  }
  // Back to the power state it had (master's node_power_action, which does nothing when it is already there).
  if (oldPowerState !== POWER_ON && oldPowerState !== POWER_OFF) return;
  if ((await deps.power.getPowerState(task)) !== oldPowerState) await deps.power.setPowerState(task, oldPowerState);
}
