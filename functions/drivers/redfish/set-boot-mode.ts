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
 *   `[redfish]boot_mode_config_timeout` (0: no wait), then the node is put back in its power state
 *   (`wait-applied.ts`, shared with the secure boot state's wait).
 */
import { RedfishError, UnsupportedDriverExtension } from '#common/errors';
import type { Task } from '../base';
import { type RedfishSystem, isRedfishFailure, reachFailure } from './system';
import { type WaitDeps, waitForSettingApplied } from './wait-applied';

/** Ironic master's VENDORS_REQUIRING_FULL_BOOT_REQUEST: matched as parts of the node's `properties.vendor`. */
const VENDORS_REQUIRING_FULL_BOOT_REQUEST = ['american megatrends international', 'ami', 'asrockrack', 'redfish_compatible'];

/** Whether the node's vendor wants the whole boot override in every PATCH. */
export function requiresFullBootRequest(task: Task): boolean {
  const vendor = task.node.properties.vendor;
  if (typeof vendor !== 'string' || vendor === '') return false;
  const lower = vendor.toLowerCase();
  return VENDORS_REQUIRING_FULL_BOOT_REQUEST.some((id) => lower.includes(id));
}

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
  deps: WaitDeps,
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
async function waitForBootMode(task: Task, system: RedfishSystem, redfishMode: string, deps: WaitDeps): Promise<void> {
  await waitForSettingApplied(
    task,
    {
      what: 'boot mode',
      wanted: redfishMode,
      read: async () => {
        await refresh(task, system);
        return system.boot.mode;
      },
    },
    deps,
  );
}
