/**
 * Redfish firmware (Ironic's `redfish/firmware.py`): the versions the BMC reports, and updates
 * through its UpdateService.
 *
 * - cache_firmware_components: the system's `BiosVersion` as component `bios`, its manager's
 *   `FirmwareVersion` as `bmc`, and, as Ironic master, each NIC controller's
 *   `FirmwarePackageVersion` from its first chassis' NetworkAdapters as `nic:<adapter's
 *   SerialNumber, else its Id>` (with the adapter's Manufacturer, Model and SerialNumber); a BMC
 *   that reports none of them has no supported components (UnsupportedDriverExtension).
 * - update(settings): a clean, deploy and service step (priority 0), asynchronous as Ironic's: it
 *   posts `UpdateService.SimpleUpdate` for the first `{component, url}` (naming the node's system
 *   as the target when the BMC has several systems, as Ironic does), records the updates in
 *   `driver_internal_info.redfish_fw_updates` and leaves the node in its wait state; the periodic
 *   task `poll_waiting_steps` follows the BMC's Task as Ironic master does for each kind of
 *   component (`[redfish]firmware_update_*`), reboots, posts the next update and at the end
 *   resumes the flow or fails it with Ironic's message (`firmware-updates.ts`).
 */
import { UnsupportedDriverExtension } from '#common/errors';
import type { FirmwareComponentReading } from '#objects/firmware-component';
import type { BootInterface, FirmwareInterface, PowerInterface, StepDefinition, Task } from '../base';
import { NIC_COMPONENT_PREFIX, UPDATE_ARGSINFO, firmwareComponentsOf, parseFirmwareUpdates } from '../firmware';
import type { Resource } from './client';
import { DEFAULT_FIRMWARE_UPDATE_CONFIG, type RedfishConfig } from './config';
import { parseDriverInfo } from './driver-info';
import { rebootForFirmware } from './finish-step';
import {
  FW_UPDATE_START_KEY,
  type PendingUpdate,
  type UpdatePorts,
  checkFirmwareUpdates,
  clearUpdates,
  submitFirst,
} from './firmware-updates';
import { type RedfishSystem, getSystem, isRedfishFailure } from './system';

const waiting = { wait: true } as const;

const odataId = (value: unknown): string | undefined => {
  const id = (value as { '@odata.id'?: unknown } | undefined)?.['@odata.id'];
  return typeof id === 'string' ? id : undefined;
};

/** How the interface reaches the BMC (tests give a system over a mocked client). */
export interface FirmwareDeps {
  readonly getSystem: (task: Task, config: RedfishConfig) => Promise<RedfishSystem>;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/**
 * The NICs' firmware (Ironic master's retrieve_nic_components): for each controller of each
 * NetworkAdapter of the system's first chassis that reports a FirmwarePackageVersion, a `nic:`
 * component named by the adapter's SerialNumber, else its Id. No chassis or no NetworkAdapters: none.
 */
async function readNicComponents(system: RedfishSystem): Promise<FirmwareComponentReading[]> {
  const links = ((system.doc.Links ?? {}) as Resource).Chassis;
  const chassisPath = odataId(Array.isArray(links) ? links[0] : undefined);
  if (chassisPath === undefined) return [];
  const chassis = await system.client.get(chassisPath);
  const out: FirmwareComponentReading[] = [];
  for (const adapter of await system.members('NetworkAdapters', chassis)) {
    const serial = text(adapter.SerialNumber);
    const id = serial ?? text(adapter.Id);
    const controllers = Array.isArray(adapter.Controllers) ? (adapter.Controllers as Resource[]) : [];
    for (const controller of controllers) {
      const version = text(controller.FirmwarePackageVersion);
      if (version === null || id === null) continue;
      out.push({
        component: `${NIC_COMPONENT_PREFIX}${id}`,
        current_version: version,
        vendor: text(adapter.Manufacturer),
        model: text(adapter.Model),
        serial_number: serial,
      });
    }
  }
  return out;
}

/**
 * The versions the BMC reports: the system's BIOS, its first manager's firmware and its NICs'. As
 * Ironic's, the BMC's identity is its manager's Model (vendor and serial number unknown); the BIOS
 * has none. NICs that cannot be read are left out with a warning, as Ironic leaves them out when
 * the BMC refuses their NetworkAdapters (NOTE: whatever the BMC's failure; Ironic fails the whole
 * caching on other errors than a 400).
 */
export async function readFirmwareComponents(task: Task, system: RedfishSystem): Promise<FirmwareComponentReading[]> {
  const out: FirmwareComponentReading[] = [];
  const bios = system.doc.BiosVersion;
  if (typeof bios === 'string' && bios !== '') out.push({ component: 'bios', current_version: bios });
  const [manager] = await system.managers();
  const bmc = manager?.FirmwareVersion;
  const model = typeof manager?.Model === 'string' ? manager.Model : null;
  if (typeof bmc === 'string' && bmc !== '') out.push({ component: 'bmc', current_version: bmc, model });
  try {
    const nics = await readNicComponents(system);
    if (nics.length === 0) task.log.debug('Could not retrieve Firmware Package Version from NetworkAdapters', { node: task.node.uuid });
    out.push(...nics);
  } catch (err) {
    if (!isRedfishFailure(err)) throw err;
    task.log.warn('Unable to access NetworkAdapters', { node: task.node.uuid, error: err.message });
  }
  return out;
}

export function createRedfishFirmware(
  config: RedfishConfig,
  power: PowerInterface,
  boot: BootInterface,
  deps: FirmwareDeps = { getSystem },
): FirmwareInterface {
  async function cache(task: Task, system?: RedfishSystem): Promise<void> {
    const sys = system ?? (await deps.getSystem(task, config));
    const readings = await readFirmwareComponents(task, sys);
    if (readings.length === 0) {
      task.log.error(`Cannot retrieve firmware for node ${task.node.uuid}: no supported components`);
      throw new UnsupportedDriverExtension(task.node.driver, 'firmware');
    }
    await firmwareComponentsOf(task).record(readings);
  }

  const updateConfig = config.firmwareUpdate ?? DEFAULT_FIRMWARE_UPDATE_CONFIG;
  const ports: UpdatePorts = {
    system: (task) => deps.getSystem(task, config),
    reboot: (task, timeoutSeconds) => rebootForFirmware(task, power, boot, timeoutSeconds),
    cache: (task, system) => cache(task, system),
  };

  /** Start the updates and wait (Ironic returns CLEANWAIT / SERVICEWAIT / DEPLOYWAIT); `poll_waiting_steps` follows them. */
  async function update(task: Task, args: Record<string, unknown>) {
    const updates: PendingUpdate[] = parseFirmwareUpdates(args.settings).map((u) => ({ ...u }));
    const system = await deps.getSystem(task, config);
    task.log.debug('Updating firmware', { node: task.node.uuid, settings: updates.length });
    // What an earlier update left (a failed deploy keeps it) must not steer this one.
    clearUpdates(task);
    await submitFirst(task, system, updates, updateConfig);
    task.node.driver_internal_info = { ...task.node.driver_internal_info, [FW_UPDATE_START_KEY]: new Date().toISOString() };
    return waiting;
  }

  const updateStep = {
    step: 'update',
    priority: 0,
    argsinfo: UPDATE_ARGSINFO,
    abortable: false,
    async: true,
    execute: update,
    poll: (task: Task) => checkFirmwareUpdates(task, ports, updateConfig),
  } as const;
  return {
    name: 'redfish',
    async validate(task) {
      parseDriverInfo(task.node, config.policy);
    },
    cacheFirmwareComponents: (task) => cache(task),
    cleanSteps: [updateStep] satisfies StepDefinition[],
    deploySteps: [updateStep] satisfies StepDefinition[],
    serviceSteps: [{ ...updateStep, requiresRamdisk: false }] satisfies StepDefinition[],
  };
}
