/**
 * Redfish management (Ironic's `redfish/management.py`): the boot source override (target,
 * once/continuous, UEFI/Legacy), secure boot and NMI, with Ironic's messages.
 */
import { InvalidParameterValue, RedfishError, UnsupportedDriverExtension } from '#common/errors';
import { BOOT_DEVICES, BOOT_MODES, type ManagementInterface, type PowerInterface, type Task } from '../base';
import { syncBootMode } from '../boot-mode-sync';
import { RedfishRequestError, type Resource } from './client';
import type { RedfishConfig } from './config';
import { parseDriverInfo } from './driver-info';
import { retryDuringPost } from './post-retry';
import { requiresFullBootRequest, setRedfishBootMode } from './set-boot-mode';
import { type RedfishSystem, getSystem, isRedfishFailure, reachFailure, redfishFailure } from './system';
import { type WaitDeps, waitForSettingApplied } from './wait-applied';

/** BootSourceOverrideTarget ↔ Ironic boot device. */
const BOOT_DEVICE_MAP: Readonly<Record<string, string>> = {
  Pxe: BOOT_DEVICES.PXE,
  Hdd: BOOT_DEVICES.DISK,
  Cd: BOOT_DEVICES.CDROM,
  BiosSetup: BOOT_DEVICES.BIOS,
};
const BOOT_DEVICE_MAP_REV: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(BOOT_DEVICE_MAP).map(([k, v]) => [v, k]));
/** Older Ironic stored Redfish names in `redfish_boot_device`; they are still understood. */
const BOOT_DEVICE_MAP_REV_COMPAT: Readonly<Record<string, string>> = {
  ...BOOT_DEVICE_MAP_REV,
  pxe: 'Pxe',
  hdd: 'Hdd',
  cd: 'Cd',
  'bios setup': 'BiosSetup',
};

/** BootSourceOverrideMode ↔ Ironic boot mode. */
const BOOT_MODE_MAP: Readonly<Record<string, string>> = { UEFI: BOOT_MODES.UEFI, Legacy: BOOT_MODES.LEGACY_BIOS };
const BOOT_MODE_MAP_REV: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(BOOT_MODE_MAP).map(([k, v]) => [v, k]));

const CONTINUOUS = 'Continuous';
const ONCE = 'Once';
const PERSISTENT_MAP: Readonly<Record<string, boolean>> = { [CONTINUOUS]: true, [ONCE]: false };

function setInternal(task: Task, key: string, value: unknown): void {
  const info = { ...task.node.driver_internal_info };
  if (value === undefined) delete info[key];
  else info[key] = value;
  task.node.driver_internal_info = info;
}

function isSupermicro(task: Task): boolean {
  const vendor = task.node.properties.vendor;
  return typeof vendor === 'string' && vendor.toLowerCase() === 'supermicro';
}

/**
 * Set the override target. BMCs differ on BootSourceOverrideEnabled: most want it left out when it
 * does not change, Supermicro wants it always, and the vendors of `requiresFullBootRequest` want
 * the whole override (the current mode, else UEFI, with it). A BMC that refuses Continuous gets a
 * one-time boot instead, remembered in `redfish_boot_device` and set again before every power on
 * (as Ironic does).
 */
async function setBootDeviceOn(
  task: Task,
  system: RedfishSystem,
  config: RedfishConfig,
  device: string,
  persistent = false,
): Promise<void> {
  const desired = persistent ? CONTINUOUS : ONCE;
  const enabled = isSupermicro(task) ? desired : desired !== system.boot.enabled ? desired : undefined;
  try {
    // A BMC in POST (HPE's) refuses it for a while: tried again (`post-retry.ts`), then as any refusal.
    await retryDuringPost(task, config, async () => {
      if (requiresFullBootRequest(task)) {
        await system.setBootOptions({ target: device, enabled: desired, mode: system.boot.mode ?? 'UEFI' });
      } else {
        await system.setBootOptions({ target: device, enabled });
      }
    });
  } catch (err) {
    if (enabled !== CONTINUOUS || !isRedfishFailure(err)) throw err;
    task.log.warn('Could not set a persistent boot device, using a one-time boot device instead', {
      node: task.node.uuid,
      device,
      error: err.message,
    });
    await system.setBootOptions({ target: device, enabled: ONCE });
    setInternal(task, 'redfish_boot_device', BOOT_DEVICE_MAP[device]);
  }
}

/**
 * Set again the boot device a BMC could not keep persistently (see above). Called by the Redfish
 * power interface before powering on; a failure only warns, the BMC's boot order then decides.
 */
export async function restoreBootDevice(task: Task, system: RedfishSystem, config: RedfishConfig): Promise<void> {
  const device = task.node.driver_internal_info.redfish_boot_device;
  if (typeof device !== 'string' || device === '') return;
  const redfishDevice = BOOT_DEVICE_MAP_REV_COMPAT[device.toLowerCase()];
  if (redfishDevice === undefined)
    throw new InvalidParameterValue(`BUG: unexpected redfish_boot_device ${device} for node ${task.node.uuid}`);
  try {
    await setBootDeviceOn(task, system, config, redfishDevice);
  } catch (err) {
    if (!isRedfishFailure(err)) throw err;
    task.log.warn('Unable to recover the boot device, relying on the pre-configured boot order', {
      node: task.node.uuid,
      device,
      error: err.message,
    });
  }
}

/**
 * Set the boot device on a system already read (the boot interface uses this too, as Ironic's goes
 * through the management interface). Some Supermicro BMCs put the boot mode back to their default
 * when the device changes, so there the boot mode is synced again after it (as Ironic does; other
 * vendors' BMCs fail that, so only there).
 */
export async function setBootDevice(
  task: Task,
  system: RedfishSystem,
  device: string,
  persistent: boolean,
  management: ManagementInterface,
  config: RedfishConfig,
): Promise<void> {
  const redfishDevice = BOOT_DEVICE_MAP_REV[device];
  if (redfishDevice === undefined) throw new InvalidParameterValue(`Invalid boot device ${device} specified.`);
  setInternal(task, 'redfish_boot_device', undefined);
  try {
    await setBootDeviceOn(task, system, config, redfishDevice, persistent);
  } catch (err) {
    redfishFailure(err, `Redfish set boot device failed for node ${task.node.uuid}.`);
  }
  if (isSupermicro(task)) await syncBootMode(task, management);
}

function pyBool(value: boolean): string {
  return value ? 'True' : 'False';
}

/**
 * Master's `_wait_for_secure_boot`: a BMC that applies the new state through a BIOS job (Dell's)
 * reports it only after a reboot (`wait-applied.ts`). A read answered with a 5xx counts as not
 * read: the state last known (the one before the PATCH) stands.
 */
async function waitForSecureBoot(task: Task, system: RedfishSystem, state: boolean, deps: WaitDeps): Promise<void> {
  const uuid = task.node.uuid;
  let known = !state;
  const read = async () => {
    try {
      const secureBoot = await system.secureBoot();
      if (secureBoot !== undefined) known = secureBoot.SecureBootEnable === true;
    } catch (err) {
      if (!(err instanceof RedfishRequestError && (err.status ?? 0) >= 500)) reachFailure(uuid, err);
      task.log.warn('Could not read the secure boot state', { node: uuid, error: err.message });
    }
    return pyBool(known);
  };
  await waitForSettingApplied(task, { what: 'secure boot state', wanted: pyBool(state), read }, deps);
}

/**
 * Master's `set_secure_boot_state` on a system already read: PATCH the SecureBoot resource, then
 * make sure the BMC reports the new state, rebooting for it when needed (`waitForSecureBoot`).
 */
export async function setSecureBootState(task: Task, system: RedfishSystem, state: boolean, deps: WaitDeps): Promise<void> {
  let secureBoot;
  try {
    secureBoot = await system.secureBoot();
  } catch (err) {
    redfishFailure(err, `Reading the secure boot state of node ${task.node.uuid} failed.`);
  }
  if (secureBoot === undefined) {
    task.log.error('Secure boot was requested but the BMC has no SecureBoot resource', { node: task.node.uuid });
    throw new UnsupportedDriverExtension(task.node.driver, 'set_secure_boot_state');
  }
  if (secureBoot.SecureBootEnable === state) {
    task.log.info(`Secure boot state for node ${task.node.uuid} is already ${pyBool(state)}`, { node: task.node.uuid });
    return;
  }
  if (system.boot.mode === 'Legacy') throw new RedfishError(`Configuring secure boot requires UEFI for node ${task.node.uuid}`);
  try {
    await system.setSecureBoot(state);
  } catch (err) {
    if (!isRedfishFailure(err)) throw err;
    throw new RedfishError(`Failed to set secure boot state on node ${task.node.uuid} to ${pyBool(state)}: ${err.message}`);
  }
  await waitForSecureBoot(task, system, state, deps);
  task.log.info(`Secure boot state for node ${task.node.uuid} has been set to ${pyBool(state)}`, { node: task.node.uuid });
}

/** The management interface; `power` reboots a node whose BMC applies a new boot mode or secure boot state at its next boot. */
export function createRedfishManagement(config: RedfishConfig, power: PowerInterface): ManagementInterface {
  const management: ManagementInterface = {
    name: 'redfish',
    async validate(task) {
      parseDriverInfo(task.node, config.policy);
    },

    async getSupportedBootDevices() {
      return Object.keys(BOOT_DEVICE_MAP_REV);
    },

    async setBootDevice(task, device, persistent = false) {
      if (BOOT_DEVICE_MAP_REV[device] === undefined) throw new InvalidParameterValue(`Invalid boot device ${device} specified.`);
      await setBootDevice(task, await getSystem(task, config), device, persistent, management, config);
    },

    async getBootDevice(task) {
      const { target, enabled } = (await getSystem(task, config)).boot;
      return { boot_device: BOOT_DEVICE_MAP[target ?? ''] ?? null, persistent: PERSISTENT_MAP[enabled ?? ''] ?? null };
    },

    async getSupportedBootModes() {
      return Object.keys(BOOT_MODE_MAP_REV);
    },

    async setBootMode(task, mode) {
      const redfishMode = BOOT_MODE_MAP_REV[mode];
      if (redfishMode === undefined) throw new InvalidParameterValue(`Invalid boot mode ${mode} specified.`);
      await setRedfishBootMode(task, await getSystem(task, config), mode, redfishMode, { power, config });
    },

    async getBootMode(task) {
      return BOOT_MODE_MAP[(await getSystem(task, config)).boot.mode ?? ''] ?? null;
    },

    async getSecureBootState(task) {
      const system = await getSystem(task, config);
      let secureBoot;
      try {
        secureBoot = await system.secureBoot();
      } catch (err) {
        redfishFailure(err, `Reading the secure boot state of node ${task.node.uuid} failed.`);
      }
      if (secureBoot === undefined) throw new UnsupportedDriverExtension(task.node.driver, 'get_secure_boot_state');
      return secureBoot.SecureBootEnable === true;
    },

    async setSecureBootState(task, state) {
      await setSecureBootState(task, await getSystem(task, config), state, { power, config });
    },

    async detectVendor(task) {
      const manufacturer = (await getSystem(task, config)).doc.Manufacturer;
      return typeof manufacturer === 'string' && manufacturer !== '' ? manufacturer : null;
    },

    async getNodeHealth(task) {
      // The system's Status.Health; any other value (or none) is no health Ironic knows.
      const health = ((await getSystem(task, config)).doc.Status as { Health?: unknown } | undefined)?.Health;
      return typeof health === 'string' && HEALTH_STATES.includes(health) ? health : null;
    },

    async injectNmi(task) {
      const system = await getSystem(task, config);
      try {
        await system.reset('Nmi');
      } catch (err) {
        redfishFailure(err, `Redfish inject NMI failed for node ${task.node.uuid}.`);
      }
    },

    // Ironic's get_mac_addresses (get_enabled_macs): the MACs of the system's enabled NICs.
    async getMacAddresses(task) {
      const system = await getSystem(task, config);
      let nics: Resource[];
      try {
        nics = await system.members('EthernetInterfaces');
      } catch (err) {
        redfishFailure(err, `Failed to get network interface information on node ${task.node.uuid}.`);
      }
      const macs: string[] = [];
      for (const nic of nics) {
        if (((nic.Status ?? {}) as Resource).State !== 'Enabled') continue;
        if (typeof nic.MACAddress !== 'string' || nic.MACAddress === '') {
          task.log.warn(`Ignoring device for ${task.node.uuid} as no MAC reported`);
          continue;
        }
        macs.push(nic.MACAddress.toLowerCase());
      }
      return macs;
    },
  };
  return management;
}

/** Health values a node shows (Ironic's `health_states`), as Redfish words them. */
const HEALTH_STATES: readonly string[] = ['OK', 'Warning', 'Critical'];
