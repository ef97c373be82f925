/**
 * What the firmware interfaces share (Ironic's `drivers/base.py` FirmwareInterface, FakeFirmware
 * and the `update` step's argument schema in `redfish/firmware_utils.py`): the `settings` argument
 * of `update`, the task's components port, and fake-hardware's `fake` firmware interface.
 */
import { InvalidParameterValue } from '#common/errors';
import { pyRepr } from '#common/pyrepr';
import type { FirmwareInterface, StepDefinition, Task } from './base';

const done = { wait: false } as const;

/** The components an `update` may name (Ironic's FIRMWARE_COMPONENTS), besides `nic:<id>` ones. */
export const FIRMWARE_COMPONENTS = ['bios', 'bmc'] as const;
export const NIC_COMPONENT_PREFIX = 'nic:';

/** One item of `update`'s settings: the component to flash and the image's URL (`wait`: seconds to wait after it). */
export interface FirmwareUpdate {
  readonly component: string;
  readonly url: string;
  readonly wait?: number;
}

const ALLOWED_KEYS = new Set(['component', 'url', 'wait']);

/** Why one item does not fit Ironic's schema (jsonschema's wording), or undefined when it does. */
function itemError(item: unknown): string | undefined {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return `${pyRepr(item)} is not of type 'object'`;
  const fields = item as Record<string, unknown>;
  for (const key of ['component', 'url']) if (!(key in fields)) return `'${key}' is a required property`;
  const extra = Object.keys(fields).filter((k) => !ALLOWED_KEYS.has(k));
  if (extra.length > 0)
    return `Additional properties are not allowed (${extra.map((k) => `'${k}'`).join(', ')} ${extra.length > 1 ? 'were' : 'was'} unexpected)`;
  const { component, url, wait } = fields;
  if (typeof component !== 'string') return `${pyRepr(component)} is not of type 'string'`;
  if (!(FIRMWARE_COMPONENTS as readonly string[]).includes(component) && !component.startsWith(NIC_COMPONENT_PREFIX)) {
    return `${pyRepr(component)} is not valid under any of the given schemas`;
  }
  if (typeof url !== 'string') return `${pyRepr(url)} is not of type 'string'`;
  if (url === '') return `'' is too short`;
  if (wait !== undefined && !(typeof wait === 'number' && Number.isInteger(wait))) return `${pyRepr(wait)} is not of type 'integer'`;
  if (wait !== undefined && (wait as number) < 1) return `${String(wait)} is less than the minimum of 1`;
  return undefined;
}

/**
 * Check `update`'s settings as Ironic's validate_firmware_interface_update_args: a non-empty list
 * of `{component, url[, wait]}`, the component `bios`, `bmc` or `nic:<id>`; InvalidParameterValue
 * ("Invalid firmware update …. Errors: …") otherwise.
 */
export function parseFirmwareUpdates(settings: unknown): FirmwareUpdate[] {
  let error: string | undefined;
  if (!Array.isArray(settings)) error = `${pyRepr(settings)} is not of type 'array'`;
  else if (settings.length === 0) error = '[] is too short';
  else error = settings.map(itemError).find((e) => e !== undefined);
  if (error !== undefined) throw new InvalidParameterValue(`Invalid firmware update ${pyRepr(settings)}. Errors: ${error}`);
  return (settings as Record<string, unknown>[]).map((s) => ({
    component: s.component as string,
    url: s.url as string,
    ...(s.wait === undefined ? {} : { wait: s.wait as number }),
  }));
}

/** The task's components port; the conductor gives one wherever firmware work runs. */
export function firmwareComponentsOf(task: Task) {
  if (task.firmwareComponents === undefined) throw new Error(`BUG: no firmware components store given for node ${task.node.uuid}`);
  return task.firmwareComponents;
}

export const UPDATE_ARGSINFO = {
  settings: { description: 'A list of dicts with firmware components to be updated', required: true },
} as const;

/**
 * Ironic's FakeFirmware: an `update` clean step (priority 0, so run only when asked for by manual
 * cleaning) that touches nothing and records nothing, and a cache that reads nothing, so a
 * fake-hardware node has no firmware components.
 */
export const fakeFirmware: FirmwareInterface = {
  name: 'fake',
  async validate() {},
  async cacheFirmwareComponents() {},
  cleanSteps: [
    {
      step: 'update',
      priority: 0,
      argsinfo: {
        settings: {
          description: 'List of Firmware components, each item needs to contain a dictionary with name/value pairs',
          required: true,
        },
      },
      async execute(task, args) {
        task.log.debug('fake firmware update', { node: task.node.uuid, settings: args.settings });
        return done;
      },
    },
  ] satisfies StepDefinition[],
};
