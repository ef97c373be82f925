/**
 * Redfish BIOS (Ironic's `redfish/bios.py`): the system's Bios resource, its attribute registry,
 * and its `@Redfish.Settings` object, whose pending values the firmware applies at the next reset.
 *
 * - cache_bios_settings: the Bios resource's Attributes become the node's settings, with the
 *   registry's fields (type, allowable values, bounds, lengths, read-only, reset-required,
 *   unique) for those the registry describes; a registry that cannot be read leaves them null.
 * - apply_configuration(settings) and factory_reset: clean, deploy and service steps (priority 0),
 *   asynchronous as Ironic master's. A request whose values all stand already, with none pending
 *   otherwise, is done at once (no PATCH, no reboot). Else the pending values are PATCHed to the
 *   settings object (apply time OnReset when the BMC offers it), or the ResetBios action is
 *   posted; Ironic's `redfish_bios_state` (`reboot_requested`, `requested_bios_attrs`) is
 *   recorded, the node is rebooted (into the ramdisk, with a new agent token, in a deploy and in a
 *   clean or service that booted it; under fast track powered off first) and the step waits in
 *   `clean wait` (`service wait`, `wait call-back`).
 * - Two ways out of that wait, as in Ironic master:
 *   - `poll` (the periodic task `poll_waiting_steps`, Ironic's `_query_bios_apply_status`): while
 *     the BMC's BootProgress shows the host short of its OS, or a requested value is not there
 *     yet (or still pending), it keeps waiting; then it makes the step's second call;
 *   - `resume` (the step's second call, Ironic's `reboot_requested` branch): when the reboot booted
 *     the ramdisk, its first heartbeat makes it (`heartbeat.ts`); the state is cleared, a value
 *     not taken fails the flow with Ironic's message, the settings are cached.
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
const waitingProgress = { state: 'waiting' } as const;

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

/** The values waiting in the settings object (sushy's `pending_attributes`); none when it cannot be read. */
async function readPending(system: RedfishSystem, bios: { path: string; doc: Resource }): Promise<Resource> {
  const path = odataId(((bios.doc['@Redfish.Settings'] ?? {}) as Resource).SettingsObject);
  if (path === undefined || path === bios.path) return {};
  try {
    const attributes = (await system.client.get(path)).Attributes;
    return attributes !== null && typeof attributes === 'object' && !Array.isArray(attributes) ? (attributes as Resource) : {};
  } catch (err) {
    if (!isRedfishFailure(err)) throw err;
    return {};
  }
}

const sameValue = (a: unknown, b: unknown): boolean => a === b || (typeof a === 'object' && JSON.stringify(a) === JSON.stringify(b));

/**
 * The requested values not in effect (Ironic's `_get_unapplied_bios_attrs`): not the current
 * value, or still pending on a BMC whose pending area holds only what was changed (it must be
 * empty before the change counts as made; BMCs that list every writable value there hold more).
 */
function unapplied(requested: Record<string, unknown>, current: Resource, pending: Resource): Record<string, unknown> {
  const purgesPending = Object.keys(pending).length <= Object.keys(requested).length;
  return Object.fromEntries(
    Object.entries(requested).filter(([name, value]) => !sameValue(current[name], value) || (purgesPending && name in pending)),
  );
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

  /** Ironic's reboot_to_finish_step: into the ramdisk (a deploy's, or a clean's or service's that booted it), else a plain reboot. */
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
    const current = (bios.doc.Attributes ?? {}) as Resource;
    const pending = await readPending(system, bios);
    const stands = ([name, value]: [string, unknown]) =>
      sameValue(current[name], value) && (!(name in pending) || sameValue(pending[name], value));
    if (Object.entries(requested).every(stands)) {
      task.log.info('All requested BIOS settings already match the current values, skipping apply and reboot', { node: task.node.uuid });
      await cache(task, system);
      return { wait: false } as const;
    }
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
   * The step's second call (Ironic's `reboot_requested` branch): clear the state, check the
   * requested values, cache the settings (Ironic's `cache_bios_settings` decorator, also after a
   * failure).
   */
  async function afterReboot(task: Task, system?: RedfishSystem): Promise<Exclude<StepProgress, typeof waitingProgress>> {
    const state = task.node.driver_internal_info[BIOS_STATE_KEY] as BiosState | undefined;
    const sys = system ?? (await deps.getSystem(task, config));
    clearRebootRequested(task);
    const requested = state?.requested_bios_attrs;
    let notUpdated: Record<string, unknown> = {};
    if (requested !== undefined) {
      const bios = await biosOrFail(task, sys);
      notUpdated = unapplied(requested, (bios.doc.Attributes ?? {}) as Resource, await readPending(sys, bios));
    }
    await cache(task, sys);
    if (Object.keys(notUpdated).length > 0) {
      return {
        state: 'failed',
        message: `Redfish BIOS apply_configuration step failed. Attributes ${pyRepr(notUpdated)} are not updated.`,
      };
    }
    return { state: 'done' };
  }

  /**
   * The periodic look (Ironic's `_check_node_redfish_bios_apply`): wait while BootProgress shows
   * the host short of its OS or a requested value is not in effect yet; then the second call.
   * NOTE: as in Ironic master, a value the firmware never takes is not failed here: the ramdisk's
   * heartbeat (`resume`) fails it when the reboot booted one (always in a deploy), else the wait
   * state's timeout ends it (a clean or service with `disable_ramdisk`).
   */
  async function pollAfterReboot(task: Task): Promise<StepProgress> {
    const state = task.node.driver_internal_info[BIOS_STATE_KEY] as BiosState | undefined;
    const system = await deps.getSystem(task, config);
    const progress = ((system.doc.BootProgress ?? {}) as Resource).LastState;
    if (state !== undefined && typeof progress === 'string' && progress !== '' && !BIOS_REBOOT_STATES.has(progress)) {
      task.log.debug('Waiting for boot progress to reach OS started', { node: task.node.uuid, state: progress });
      return waitingProgress;
    }
    const requested = state?.requested_bios_attrs;
    if (requested !== undefined) {
      const bios = await biosOrFail(task, system);
      const notYet = unapplied(requested, (bios.doc.Attributes ?? {}) as Resource, await readPending(system, bios));
      if (Object.keys(notYet).length > 0) {
        task.log.debug('BIOS settings not yet applied; continue polling', { node: task.node.uuid, settings: notYet });
        return waitingProgress;
      }
    }
    task.log.info('Detected post-BIOS reboot completion, resuming the current step', { node: task.node.uuid });
    return afterReboot(task, system);
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
      // Ironic master's `requires_ramdisk=False`: a clean with `disable_ramdisk` or a service may run it without one.
      requiresRamdisk: false,
      execute: applyConfiguration,
      poll: pollAfterReboot,
      resume: (task) => afterReboot(task),
    },
    {
      step: 'factory_reset',
      priority: 0,
      async: true,
      requiresRamdisk: false,
      execute: factoryReset,
      poll: pollAfterReboot,
      resume: (task) => afterReboot(task),
    },
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
