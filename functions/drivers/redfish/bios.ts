/**
 * Redfish BIOS (Ironic's `redfish/bios.py`): the system's Bios resource, its attribute registry,
 * and its `@Redfish.Settings` object, whose pending values the firmware applies at the next reset.
 *
 * - cache_bios_settings: the Bios resource's Attributes become the node's settings, with the
 *   registry's fields (type, allowable values, bounds, lengths, read-only, reset-required,
 *   unique) for those the registry describes; a registry that cannot be read leaves them null.
 * - apply_configuration(settings) and factory_reset: clean, deploy and service steps (priority 0),
 *   asynchronous as Ironic master's. The pending values are PATCHed to the settings object (apply
 *   time OnReset when the BMC offers it), or the ResetBios action is posted; Ironic's
 *   `redfish_bios_state` (`reboot_requested`, `requested_bios_attrs`) is recorded, the node is
 *   rebooted (into the ramdisk again when the flow booted it, with a new agent token) and the step
 *   waits in `clean wait` (`service wait`, `deploy wait`). The periodic task `poll_waiting_steps`
 *   then calls the step's `poll` (Ironic's `_query_bios_apply_status` with the step's second
 *   call): while the BMC's BootProgress shows the host still on its way to the OS it waits;
 *   otherwise the requested values are checked (a value not taken fails the flow with Ironic's
 *   message), the state cleared, the settings cached, and the flow resumes.
 *   NOTE: the reboot is made through the power interface, which waits until the BMC reports the
 *   node on, so the firmware has applied the values by the first poll; Ironic master, without
 *   BootProgress, keeps polling until they show (or its ramdisk's heartbeat resumes the step).
 */
import { RedfishError, UnsupportedDriverExtension } from '#common/errors';
import { pyRepr } from '#common/pyrepr';
import type { BiosSettingValues } from '#objects/bios-setting';
import type { BiosInterface, BootInterface, PowerInterface, StepDefinition, StepProgress, Task } from '../base';
import { APPLY_CONFIGURATION_ARGSINFO, biosSettingsOf, parseBiosSettings, settingValue } from '../bios';
import type { Resource } from './client';
import type { RedfishConfig } from './config';
import { parseDriverInfo } from './driver-info';
import { rebootToFinishStep } from './finish-step';
import { type RedfishSystem, getSystem, isRedfishFailure } from './system';

const waiting = { wait: true } as const;

/** Ironic's bookkeeping of a BIOS step waiting for its reboot (`redfish/bios.py` `_DII_STATE`). */
export const BIOS_STATE_KEY = 'redfish_bios_state';
/** BootProgress states that mean the host is past the firmware (Ironic's BIOS_REBOOT_STATES). */
const BIOS_REBOOT_STATES = new Set(['OSBootStarted', 'OSRunning']);

interface BiosState {
  readonly reboot_requested: true;
  readonly requested_bios_attrs?: Record<string, unknown>;
}

function setRebootRequested(task: Task, attributes?: Record<string, unknown>): void {
  const state: BiosState = { reboot_requested: true, ...(attributes ? { requested_bios_attrs: attributes } : {}) };
  task.node.driver_internal_info = { ...task.node.driver_internal_info, [BIOS_STATE_KEY]: state };
}

function clearRebootRequested(task: Task): void {
  const info = { ...task.node.driver_internal_info };
  delete info[BIOS_STATE_KEY];
  task.node.driver_internal_info = info;
}

const odataId = (value: unknown): string | undefined => {
  const id = (value as { '@odata.id'?: unknown } | undefined)?.['@odata.id'];
  return typeof id === 'string' ? id : undefined;
};

/** The system's Bios resource, or undefined when the system has none (sushy's MissingAttributeError). */
async function readBios(system: RedfishSystem): Promise<{ path: string; doc: Resource } | undefined> {
  const path = odataId(system.doc.Bios);
  if (path === undefined) return undefined;
  return { path, doc: await system.client.get(path) };
}

/** A registry entry's fields as Ironic's BIOSSetting names them (sushy's AttributeRegistryEntryField). */
function registryFields(entry: Resource): Partial<BiosSettingValues> {
  const int = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? v : null);
  const bool = (v: unknown) => (typeof v === 'boolean' ? v : null);
  const values = Array.isArray(entry.Value)
    ? (entry.Value as Resource[])
        .map((v) => (typeof v.ValueName === 'string' && v.ValueName !== '' ? v.ValueName : v.ValueDisplayName))
        .filter((v): v is string => typeof v === 'string' && v !== '')
    : null;
  return {
    attribute_type: typeof entry.Type === 'string' ? entry.Type : null,
    allowable_values: values,
    lower_bound: int(entry.LowerBound),
    max_length: int(entry.MaxLength),
    min_length: int(entry.MinLength),
    read_only: bool(entry.ReadOnly),
    reset_required: bool(entry.ResetRequired),
    unique: bool(entry.IsSystemUniqueProperty),
    upper_bound: int(entry.UpperBound),
  };
}

/**
 * The attribute registry the Bios resource names, found as sushy finds it: among the service
 * root's Registries, the file whose Id is the registry's, at its English location.
 */
async function readRegistry(system: RedfishSystem, bios: Resource): Promise<Map<string, Resource>> {
  const id = bios.AttributeRegistry;
  if (typeof id !== 'string') return new Map();
  const root = await system.client.get(system.client.root);
  const files = odataId(root.Registries) === undefined ? [] : await system.collection(odataId(root.Registries) as string);
  const file = files.find((f) => f.Id === id);
  const locations = Array.isArray(file?.Location) ? (file.Location as Resource[]) : [];
  const location = locations.find((l) => l.Language === 'en') ?? locations[0];
  const uri = typeof location?.Uri === 'string' ? location.Uri : undefined;
  if (uri === undefined) throw new Error(`No location of attribute registry ${id}`);
  const registry = await system.client.get(uri);
  const attributes = ((registry.RegistryEntries ?? {}) as Resource).Attributes;
  const entries = new Map<string, Resource>();
  for (const entry of Array.isArray(attributes) ? (attributes as Resource[]) : []) {
    if (typeof entry.AttributeName === 'string') entries.set(entry.AttributeName, entry);
  }
  return entries;
}

/** How the interface reaches the BMC (tests give a system over a mocked client). */
export interface BiosDeps {
  readonly getSystem: (task: Task, config: RedfishConfig) => Promise<RedfishSystem>;
}

export function createRedfishBios(
  config: RedfishConfig,
  power: PowerInterface,
  boot: BootInterface,
  deps: BiosDeps = { getSystem },
): BiosInterface {
  /** Read the attributes (and registry) and store them as the node's settings. */
  async function cache(task: Task, system?: RedfishSystem): Promise<void> {
    const sys = system ?? (await deps.getSystem(task, config));
    const bios = await readBios(sys);
    if (bios === undefined) {
      task.log.error(`Cannot fetch BIOS attributes for node ${task.node.uuid}, BIOS settings are not supported.`);
      throw new UnsupportedDriverExtension(task.node.driver, 'bios');
    }
    const attributes = (bios.doc.Attributes ?? {}) as Resource;
    let registry = new Map<string, Resource>();
    try {
      registry = await readRegistry(sys, bios.doc);
    } catch (err) {
      task.log.info('Cannot get BIOS Registry attributes for node', { node: task.node.uuid, error: String(err) });
    }
    const settings = Object.entries(attributes).map(([name, value]): BiosSettingValues => {
      const entry = registry.get(name);
      return { name, value: settingValue(value), ...(entry ? registryFields(entry) : {}) };
    });
    await biosSettingsOf(task).replace(settings);
  }

  /** Ironic's reboot_to_finish_step: back into the ramdisk when the flow booted it, else a plain reboot. */
  const rebootToFinish = (task: Task) => rebootToFinishStep(task, power, boot);

  async function biosOrFail(task: Task, system: RedfishSystem): Promise<{ path: string; doc: Resource }> {
    const bios = await readBios(system);
    if (bios === undefined) {
      // Ironic's message, for both steps.
      throw new RedfishError(`Redfish BIOS factory reset failed for node ${task.node.uuid}, because BIOS settings are not supported.`);
    }
    return bios;
  }

  async function applyConfiguration(task: Task, args: Record<string, unknown>) {
    const requested = Object.fromEntries(parseBiosSettings(args.settings).map((s) => [s.name, s.value]));
    const system = await deps.getSystem(task, config);
    const bios = await biosOrFail(task, system);
    const settings = (bios.doc['@Redfish.Settings'] ?? {}) as Resource;
    const target = odataId(settings.SettingsObject) ?? bios.path;
    const applyTimes = Array.isArray(settings.SupportedApplyTimes) ? settings.SupportedApplyTimes : [];
    task.log.debug('Apply BIOS configuration', { node: task.node.uuid, settings: requested });
    try {
      await system.client.patch(target, {
        Attributes: requested,
        ...(applyTimes.includes('OnReset') ? { '@Redfish.SettingsApplyTime': { ApplyTime: 'OnReset' } } : {}),
      });
    } catch (err) {
      if (!isRedfishFailure(err)) throw err;
      throw new RedfishError(`Redfish BIOS apply configuration failed for node ${task.node.uuid}. Error: ${err.message}`);
    }
    setRebootRequested(task, requested);
    await task.persist?.();
    await rebootToFinish(task);
    return waiting;
  }

  /**
   * After the reboot (Ironic's periodic check and the step's second call): wait while BootProgress
   * shows the host short of its OS; then check the requested values, clear the state, cache.
   */
  async function pollAfterReboot(task: Task): Promise<StepProgress> {
    const state = task.node.driver_internal_info[BIOS_STATE_KEY] as BiosState | undefined;
    const system = await deps.getSystem(task, config);
    const progress = ((system.doc.BootProgress ?? {}) as Resource).LastState;
    if (state !== undefined && typeof progress === 'string' && progress !== '' && !BIOS_REBOOT_STATES.has(progress)) {
      task.log.debug('Waiting for boot progress to reach OS started', { node: task.node.uuid, state: progress });
      return { state: 'waiting' };
    }
    clearRebootRequested(task);
    const requested = state?.requested_bios_attrs;
    if (requested !== undefined) {
      const bios = await biosOrFail(task, system);
      const current = (bios.doc.Attributes ?? {}) as Resource;
      const notUpdated = Object.fromEntries(Object.entries(requested).filter(([name, value]) => current[name] !== value));
      if (Object.keys(notUpdated).length > 0) {
        return {
          state: 'failed',
          message: `Redfish BIOS apply_configuration step failed. Attributes ${pyRepr(notUpdated)} are not updated.`,
        };
      }
    }
    await cache(task, system);
    return { state: 'done' };
  }

  async function factoryReset(task: Task) {
    const system = await deps.getSystem(task, config);
    const bios = await biosOrFail(task, system);
    const action = ((bios.doc.Actions ?? {}) as Resource)['#Bios.ResetBios'] as Resource | undefined;
    const target = typeof action?.target === 'string' ? action.target : `${bios.path}/Actions/Bios.ResetBios`;
    task.log.debug('Factory reset BIOS configuration', { node: task.node.uuid });
    try {
      await system.client.post(target, {});
    } catch (err) {
      if (!isRedfishFailure(err)) throw err;
      throw new RedfishError(`Redfish BIOS factory reset failed for node ${task.node.uuid}. Error: ${err.message}`);
    }
    setRebootRequested(task);
    await task.persist?.();
    await rebootToFinish(task);
    return waiting;
  }

  const steps: StepDefinition[] = [
    {
      step: 'apply_configuration',
      priority: 0,
      argsinfo: APPLY_CONFIGURATION_ARGSINFO,
      async: true,
      execute: applyConfiguration,
      poll: pollAfterReboot,
    },
    { step: 'factory_reset', priority: 0, async: true, execute: factoryReset, poll: pollAfterReboot },
  ];
  return {
    name: 'redfish',
    async validate(task) {
      parseDriverInfo(task.node, config.policy);
    },
    cacheBiosSettings: (task) => cache(task),
    cleanSteps: steps,
    deploySteps: steps,
    serviceSteps: steps,
  };
}
