/**
 * Redfish firmware (Ironic's `redfish/firmware.py`): the versions the BMC reports, and updates
 * through its UpdateService.
 *
 * - cache_firmware_components: the system's `BiosVersion` as component `bios`, its manager's
 *   `FirmwareVersion` as `bmc`, and, as Ironic master, each NIC controller's
 *   `FirmwarePackageVersion` from its first chassis' NetworkAdapters as `nic:<adapter's
 *   SerialNumber, else its Id>` (with the adapter's Manufacturer, Model and SerialNumber); a BMC
 *   that reports none of them has no supported components (UnsupportedDriverExtension).
 * - update(settings): a clean, deploy and service step (priority 0). For each `{component, url}`
 *   in turn: `UpdateService.SimpleUpdate` with the image's URL (naming the node's system as the
 *   target when the BMC has several systems, as Ironic does), then the BMC's Task is polled until
 *   it ends; a Task that ends other than Completed with status OK or Warning fails the step with
 *   Ironic's message, naming the Task's messages. After a `bios` or `nic:` update the node is
 *   rebooted (into the ramdisk when the flow booted it) so the new firmware runs; a BMC update
 *   needs no host reboot. A `wait` (seconds) is waited after the component. When all are done the
 *   components are cached again, so `last_version_flashed` shows the new versions.
 *   NOTE: Ironic returns CLEANWAIT and its periodic task polls the Task; here the step waits
 *   inside, as the redfish BIOS steps do, within the conductor invocation's deadline.
 */
import { DriverOperationError, InvalidParameterValue, RedfishError, UnsupportedDriverExtension } from '#common/errors';
import type { FirmwareComponentReading } from '#objects/firmware-component';
import { beforeAction } from '../guard';
import type { BootInterface, FirmwareInterface, PowerInterface, StepDefinition, Task } from '../base';
import { type FirmwareUpdate, NIC_COMPONENT_PREFIX, UPDATE_ARGSINFO, firmwareComponentsOf, parseFirmwareUpdates } from '../firmware';
import type { Resource } from './client';
import type { RedfishConfig } from './config';
import { parseDriverInfo } from './driver-info';
import { rebootToFinishStep } from './finish-step';
import { type RedfishSystem, getSystem, isRedfishFailure } from './system';

const done = { wait: false } as const;
/** How long a BMC's update Task may run before the step gives up (Ironic's periodic polls without end). */
export const DEFAULT_FIRMWARE_TASK_TIMEOUT_MS = 30 * 60_000;
/** Task states in which the Task has ended (Redfish TaskState). */
const ENDED = new Set(['Completed', 'Exception', 'Killed', 'Cancelled', 'Interrupted']);

const odataId = (value: unknown): string | undefined => {
  const id = (value as { '@odata.id'?: unknown } | undefined)?.['@odata.id'];
  return typeof id === 'string' ? id : undefined;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How the interface reaches the BMC (tests give a system over a mocked client). */
export interface FirmwareDeps {
  readonly getSystem: (task: Task, config: RedfishConfig) => Promise<RedfishSystem>;
  /** Longest wait for one update's Task; default 30 minutes. */
  readonly taskTimeoutMs?: number;
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

/** The Task's messages, as Ironic joins them into its failure. */
function taskMessages(task: Resource): string[] {
  const messages = Array.isArray(task.Messages) ? (task.Messages as Resource[]) : [];
  return messages.map((m) => (typeof m.Message === 'string' ? m.Message : String(m.MessageId ?? ''))).filter((m) => m !== '');
}

export function createRedfishFirmware(
  config: RedfishConfig,
  power: PowerInterface,
  boot: BootInterface,
  deps: FirmwareDeps = { getSystem },
): FirmwareInterface {
  const taskTimeoutMs = deps.taskTimeoutMs ?? DEFAULT_FIRMWARE_TASK_TIMEOUT_MS;

  async function cache(task: Task, system?: RedfishSystem): Promise<void> {
    const sys = system ?? (await deps.getSystem(task, config));
    const readings = await readFirmwareComponents(task, sys);
    if (readings.length === 0) {
      task.log.error(`Cannot retrieve firmware for node ${task.node.uuid}: no supported components`);
      throw new UnsupportedDriverExtension(task.node.driver, 'firmware');
    }
    await firmwareComponentsOf(task).record(readings);
  }

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

  /** Post one update and poll its Task until it ends; RedfishError with Ironic's message when it failed. */
  async function flash(task: Task, system: RedfishSystem, target: string, update: FirmwareUpdate): Promise<void> {
    const node = task.node.uuid;
    const targets = await targetsFor(system);
    task.log.debug('Applying new firmware', { node, component: update.component, url: update.url });
    let accepted: Resource;
    try {
      accepted = await system.client.post(target, { ImageURI: update.url, ...(targets ? { Targets: targets } : {}) });
    } catch (err) {
      if (!isRedfishFailure(err)) throw err;
      throw new RedfishError(`Firmware update failed for node ${node}, firmware ${update.url}. Error: ${err.message}`);
    }
    const taskPath = odataId(accepted);
    if (taskPath === undefined) {
      // The BMC answered without a Task to follow: as Ironic when the Task is gone, assume it worked.
      task.log.warn('Firmware update accepted without a task; assuming it succeeded', { node, url: update.url });
      return;
    }
    const deadline = Date.now() + taskTimeoutMs;
    for (;;) {
      const state = await system.client.get(taskPath);
      if (typeof state.TaskState === 'string' && ENDED.has(state.TaskState)) {
        const messages = taskMessages(state);
        if (state.TaskState === 'Completed' && (state.TaskStatus === 'OK' || state.TaskStatus === 'Warning')) {
          task.log.info('Firmware update succeeded', { node, url: update.url, messages: messages.join(', ') });
          return;
        }
        // Ironic's periodic check hands this message to the cleaning error handler as it is (no RedfishError around it).
        throw new DriverOperationError(`Firmware update failed for node ${node}, firmware ${update.url}. Error: ${messages.join(',  ')}`);
      }
      if (Date.now() >= deadline) {
        throw new DriverOperationError(
          `Firmware update failed for node ${node}, firmware ${update.url}. Error: the BMC's task did not end within ${taskTimeoutMs / 1000} s`,
        );
      }
      await sleep(config.powerPollIntervalMs);
    }
  }

  async function update(task: Task, args: Record<string, unknown>) {
    const updates = parseFirmwareUpdates(args.settings);
    // The step runs within one conductor invocation: waits that cannot fit in it are refused before any flashing.
    const waitMs = updates.reduce((sum, u) => sum + (u.wait ?? 0) * 1000, 0);
    const budgetMs = await beforeAction(task.node);
    if (waitMs >= budgetMs) {
      throw new InvalidParameterValue(
        `The firmware update's waits (${waitMs / 1000} s in all) do not fit in the ${Math.floor(budgetMs / 1000)} s the step may still run.`,
      );
    }
    const system = await deps.getSystem(task, config);
    const target = await simpleUpdateTarget(task, system);
    task.log.debug('Updating firmware', { node: task.node.uuid, settings: updates.length });
    for (const item of updates) {
      await flash(task, system, target, item);
      // The host runs new BIOS or NIC firmware only after a reset; a BMC restarts by itself.
      if (item.component === 'bios' || item.component.startsWith(NIC_COMPONENT_PREFIX)) await rebootToFinishStep(task, power, boot);
      if (item.wait !== undefined) await sleep(item.wait * 1000);
    }
    task.log.info('Firmware updates completed', { node: task.node.uuid });
    await system.refresh();
    await cache(task, system);
    return done;
  }

  const updateStep = { step: 'update', priority: 0, argsinfo: UPDATE_ARGSINFO, abortable: false, execute: update } as const;
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
