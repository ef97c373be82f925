/**
 * The boot mode a deploy uses and the node capabilities it is read from, after Ironic's
 * `boot_mode_utils.get_boot_mode` and `utils.parse_instance_info_capabilities`: secure boot asks
 * for UEFI; otherwise `instance_info.capabilities.boot_mode`, the deprecated
 * `instance_info.deploy_boot_mode`, `properties.capabilities` (`"boot_mode:bios,…"`) and
 * `driver_internal_info.deploy_boot_mode`, in that order; `uefi` (Ironic's
 * `[deploy]default_boot_mode`) when none says. A boot mode other than the one the node's
 * properties allow is refused, as Ironic refuses it.
 */
import { InvalidParameterValue } from '#common/errors';
import { boolFromString } from '#common/strutils';
import type { Node } from '#objects/node';

/** Ironic `[deploy]default_boot_mode`. */
export const DEFAULT_BOOT_MODE = 'uefi';

/** `instance_info.capabilities`, a dict or its JSON; Ironic's error for anything else. */
export function instanceCapabilities(node: Node): Record<string, unknown> {
  let value = node.instance_info.capabilities;
  if (value === undefined || value === null) return {};
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      throw new InvalidParameterValue(
        `Error parsing capabilities from Node ${node.uuid} instance_info field. A dictionary or a "jsonified" dictionary is expected.`,
      );
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidParameterValue(
      `Error parsing capabilities from Node ${node.uuid} instance_info field. A dictionary or a "jsonified" dictionary is expected.`,
    );
  }
  return value as Record<string, unknown>;
}

/** One of `properties.capabilities` ("key:value,key:value"), if set. */
export function nodeCapability(node: Node, name: string): string | undefined {
  const value = node.properties.capabilities;
  if (typeof value !== 'string') return undefined;
  for (const pair of value.split(',')) {
    const [key, ...rest] = pair.split(':');
    if (key?.trim() === name && rest.length > 0) return rest.join(':').trim();
  }
  return undefined;
}

/** Ironic's is_secure_boot_requested: the instance's capabilities ask for secure boot. */
export function secureBootRequested(node: Node): boolean {
  const requested = instanceCapabilities(node).secure_boot;
  return requested !== undefined && boolFromString(String(requested)) === true;
}

/**
 * Ironic's `get_boot_mode_for_deploy`: the boot mode the node asks for, or undefined when nothing
 * on it says (the boot mode sync then records the BMC's).
 */
export function requestedBootMode(node: Node): string | undefined {
  if (secureBootRequested(node)) return 'uefi';
  const fromCapabilities = nodeCapability(node, 'boot_mode')?.toLowerCase();
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const chosen =
    text(instanceCapabilities(node).boot_mode) ??
    text(node.instance_info.deploy_boot_mode) ??
    fromCapabilities ??
    text(node.driver_internal_info.deploy_boot_mode);
  if (chosen === undefined) return undefined;
  const mode = chosen.toLowerCase();
  if (fromCapabilities !== undefined && fromCapabilities !== mode) {
    throw new InvalidParameterValue(`Node ${node.uuid} boot mode ${mode} violates node properties/capabilities ${fromCapabilities}`);
  }
  return mode;
}

/** Ironic's `get_boot_mode`: the boot mode of this deploy, `[deploy]default_boot_mode` when none is asked for. */
export function bootModeOf(node: Node): string {
  return requestedBootMode(node) ?? DEFAULT_BOOT_MODE;
}

/** Ironic's `get_disk_label`: the requested partition table, GPT by default in UEFI mode. */
export function diskLabelOf(node: Node): string | undefined {
  const label = instanceCapabilities(node).disk_label;
  if (typeof label === 'string' && label !== '') return label;
  return bootModeOf(node) === 'uefi' ? 'gpt' : undefined;
}
