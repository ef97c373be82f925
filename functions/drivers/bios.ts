/**
 * What the bios interfaces share (Ironic's `drivers/base.py` BIOSInterface and FakeBIOS): the
 * `settings` argument of `apply_configuration`, values shown as Ironic's string field stores them,
 * and fake-hardware's `fake` bios interface.
 */
import { InvalidParameterValue } from '#common/errors';
import type { BiosSettingValues } from '#objects/bios-setting';
import { pyRepr } from '#common/pyrepr';
import type { BiosInterface, StepDefinition, Task } from './base';

const done = { wait: false } as const;

/** The settings of `apply_configuration`: a list of `{name, value}` (Ironic reads each item's name and value). */
export function parseBiosSettings(settings: unknown): { name: string; value: unknown }[] {
  if (!Array.isArray(settings))
    throw new InvalidParameterValue(`BIOS settings must be a list of name/value pairs, not ${pyRepr(settings)}`);
  return settings.map((item: unknown) => {
    const pair = item !== null && typeof item === 'object' && !Array.isArray(item) ? (item as Record<string, unknown>) : undefined;
    if (pair === undefined || typeof pair.name !== 'string' || !('value' in pair)) {
      throw new InvalidParameterValue(`Each BIOS setting needs a name and a value: ${pyRepr(item)}`);
    }
    return { name: pair.name, value: pair.value };
  });
}

/** A value as Ironic's BIOSSetting (a string field) stores it: Python's str() of what the BMC or user gave. */
export function settingValue(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return typeof value === 'number' ? String(value) : pyRepr(value);
}

/** The task's settings port; the conductor gives one wherever bios work runs. */
export function biosSettingsOf(task: Task) {
  if (task.biosSettings === undefined) throw new Error(`BUG: no BIOS settings store given for node ${task.node.uuid}`);
  return task.biosSettings;
}

export const APPLY_CONFIGURATION_ARGSINFO = {
  settings: { description: 'A list of BIOS settings to be applied', required: true },
} as const;

/**
 * Ironic's FakeBIOS: clean steps (priority 0, so run only when asked for by manual cleaning)
 * that touch no hardware but keep the node's cached settings as a BIOS would: apply_configuration
 * makes them exactly the settings given, factory_reset deletes them, cache_bios_settings leaves them.
 * As in Ironic they need the ramdisk booted (`requires_ramdisk` is the decorator's default), so
 * `disable_ramdisk` refuses them.
 */
export const fakeBios: BiosInterface = {
  name: 'fake',
  async validate() {},
  async cacheBiosSettings() {},
  cleanSteps: [
    {
      step: 'apply_configuration',
      priority: 0,
      argsinfo: {
        settings: { description: 'List of BIOS settings, each item needs to contain a dictionary with name/value pairs', required: true },
      },
      async execute(task, args) {
        const settings: BiosSettingValues[] = parseBiosSettings(args.settings).map((s) => ({ name: s.name, value: settingValue(s.value) }));
        await biosSettingsOf(task).replace(settings);
        task.log.info('fake BIOS apply_configuration', { node: task.node.uuid, settings: settings.length });
        return done;
      },
    },
    {
      step: 'factory_reset',
      priority: 0,
      async execute(task) {
        await biosSettingsOf(task).replace([]);
        return done;
      },
    },
    {
      step: 'cache_bios_settings',
      priority: 0,
      async execute() {
        return done;
      },
    },
  ] satisfies StepDefinition[],
};
