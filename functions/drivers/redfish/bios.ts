/**
 * Redfish BIOS (Ironic's `redfish/bios.py`): the system's Bios resource, its attribute registry,
 * and its `@Redfish.Settings` object, whose pending values the firmware applies at the next reset.
 *
 * - cache_bios_settings: the Bios resource's Attributes become the node's settings, with the
 *   registry's fields (type, allowable values, bounds, lengths, read-only, reset-required,
 *   unique) for those the registry describes; a registry that cannot be read leaves them null.
 * - apply_configuration(settings) and factory_reset: clean, deploy and service steps (priority 0).
 *   The pending values are PATCHed to the settings object (apply time OnReset when the BMC offers
 *   it), or the ResetBios action is posted; the node is rebooted (into the ramdisk again when the
 *   flow booted it, with a new agent token), then the values are checked and the settings cached.
 *   NOTE: Ironic reboots and returns (CLEANWAIT), and checks on the step's second call after the
 *   agent is back; here the step reboots through the power interface, which waits until the BMC
 *   reports the node on, and checks at once: the firmware applied the values at that reset.
 */
import { RedfishError, UnsupportedDriverExtension } from '#common/errors';
import { pyRepr } from '#common/pyrepr';
import type { BiosSettingValues } from '#objects/bios-setting';
import type { BiosInterface, BootInterface, PowerInterface, StepDefinition, Task } from '../base';
import { APPLY_CONFIGURATION_ARGSINFO, biosSettingsOf, parseBiosSettings, settingValue } from '../bios';
import type { Resource } from './client';
import type { RedfishConfig } from './config';
import { parseDriverInfo } from './driver-info';
import { rebootToFinishStep } from './finish-step';
import { type RedfishSystem, getSystem, isRedfishFailure } from './system';

const done = { wait: false } as const;

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

export function createRedfishBios(config: RedfishConfig, power: PowerInterface, boot: BootInterface): BiosInterface {
  /** Read the attributes (and registry) and store them as the node's settings. */
  async function cache(task: Task, system?: RedfishSystem): Promise<void> {
    const sys = system ?? (await getSystem(task, config));
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
    const system = await getSystem(task, config);
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
    await rebootToFinish(task);
    const current = ((await system.client.get(bios.path)).Attributes ?? {}) as Resource;
    const notUpdated = Object.fromEntries(Object.entries(requested).filter(([name, value]) => current[name] !== value));
    if (Object.keys(notUpdated).length > 0) {
      throw new RedfishError(`Redfish BIOS apply_configuration step failed. Attributes ${pyRepr(notUpdated)} are not updated.`);
    }
    await cache(task, system);
    return done;
  }

  async function factoryReset(task: Task) {
    const system = await getSystem(task, config);
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
    await rebootToFinish(task);
    await cache(task, system);
    return done;
  }

  const steps: StepDefinition[] = [
    { step: 'apply_configuration', priority: 0, argsinfo: APPLY_CONFIGURATION_ARGSINFO, execute: applyConfiguration },
    { step: 'factory_reset', priority: 0, execute: factoryReset },
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
