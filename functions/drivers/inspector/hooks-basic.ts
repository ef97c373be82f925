/**
 * The inspection hooks that set a node's basic properties from the inventory, after Ironic's
 * `ramdisk_error`, `architecture`, `memory`, `cpus`, `root_device` and `boot_mode` hooks.
 * Values keep Ironic's types: memory_mb, cpus and local_gb are numbers, cpu_arch a string, the
 * boot mode a "boot_mode:<mode>" capability.
 */
import { HardwareInspectionFailure, InvalidNodeInventory } from '#common/errors';
import { pyRepr } from '#common/pyrepr';
import type { InspectionTask } from '../base';
import type { InspectionHook, Inventory, PluginData } from './hook-types';
import { findDevicesByHints, matchRootDeviceHints } from './root-device-hints';

const GIB = 1024 ** 3;

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function setProperty(task: InspectionTask, name: string, value: unknown): void {
  task.node.properties = { ...task.node.properties, [name]: value };
}

/** Ironic's `get_updated_capabilities`: "k:v,k:v" with `updates` added or replaced. */
export function updatedCapabilities(current: unknown, updates: Readonly<Record<string, string>>): string {
  const caps = new Map<string, string>();
  if (typeof current === 'string' && current !== '') {
    for (const pair of current.split(',')) {
      const at = pair.indexOf(':');
      if (at < 0) throw new Error(`Invalid capabilities string '${current}'.`);
      caps.set(pair.slice(0, at), pair.slice(at + 1));
    }
  }
  for (const [key, value] of Object.entries(updates)) caps.set(key, value);
  return [...caps].map(([k, v]) => `${k}:${v}`).join(',');
}

/** Fails inspection when the ramdisk reported an error (`error` in what it posted). */
export const ramdiskError: InspectionHook = {
  name: 'ramdisk-error',
  preprocess(_task, _inventory, pluginData) {
    const error = pluginData.error;
    if (error !== undefined && error !== null && error !== '' && error !== false) {
      throw new HardwareInspectionFailure(`Ramdisk reported error: ${String(error)}`);
    }
  },
};

export const architecture: InspectionHook = {
  name: 'architecture',
  run(task, inventory) {
    const arch = record(inventory.cpu)?.architecture;
    if (typeof arch !== 'string') {
      const message = `Inventory has malformed or missing CPU architecture information: ${pyRepr(inventory.cpu ?? null)} for node ${task.node.uuid}.`;
      throw new InvalidNodeInventory(task.node.uuid, message);
    }
    task.log.info(`Discovered CPU architecture: ${arch} for node: ${task.node.uuid}`);
    setProperty(task, 'cpu_arch', arch);
  },
};

export const memory: InspectionHook = {
  name: 'memory',
  run(task, inventory) {
    const mb = record(inventory.memory)?.physical_mb;
    if (mb === undefined || mb === null) {
      throw new InvalidNodeInventory(
        task.node.uuid,
        `Inventory has missing memory information: ${pyRepr(inventory.memory ?? null)} for node ${task.node.uuid}.`,
      );
    }
    task.log.info(`Discovered memory: ${String(mb)} for node ${task.node.uuid}`);
    setProperty(task, 'memory_mb', mb);
  },
};

/** `cpus`: the number of logical CPUs; none reported only warns. */
export const cpus: InspectionHook = {
  name: 'cpus',
  run(task, inventory) {
    const count = Math.trunc(Number(record(inventory.cpu)?.count ?? 0));
    if (!count) {
      task.log.warn(`No CPU count available for node ${task.node.uuid}.`);
      return;
    }
    setProperty(task, 'cpus', count);
  },
};

/** Disks the node's `skip_block_devices` hints exclude (Ironic's `_get_skip_list_for_node`). */
function skipped(task: InspectionTask, disks: readonly Record<string, unknown>[]): Set<string> {
  const hints = task.node.properties.skip_block_devices;
  const out = new Set<string>();
  if (!Array.isArray(hints)) return out;
  for (const hint of hints) {
    for (const disk of findDevicesByHints(disks, (record(hint) ?? {}) as Record<string, unknown>)) out.add(String(disk.name));
  }
  if (out.size > 0) task.log.warn(`Using hints ${pyRepr(hints)} skipping devices: ${[...out].join(',')}`);
  return out;
}

/** The root disk by the node's root device hints, into `pluginData.root_disk` (Ironic's `_process_root_device_hints`). */
function applyRootDeviceHints(task: InspectionTask, inventory: Inventory, pluginData: PluginData): void {
  const hints = record(task.node.properties.root_device);
  if (hints === undefined || Object.keys(hints).length === 0) return;
  const all = (Array.isArray(inventory.disks) ? inventory.disks : []).filter((d): d is Record<string, unknown> => record(d) !== undefined);
  let root: Record<string, unknown> | undefined;
  try {
    const skip = skipped(task, all);
    root = matchRootDeviceHints(
      all.filter((d) => !skip.has(String(d.name))),
      hints,
    );
  } catch (err) {
    throw new HardwareInspectionFailure(
      `No disks could be found using root device hints ${pyRepr(hints)} for node ${task.node.uuid} because they failed to validate. Error: ${(err as Error).message}`,
    );
  }
  if (root === undefined) throw new HardwareInspectionFailure(`No disks satisfied root device hints for node ${task.node.uuid}`);
  pluginData.root_disk = root;
}

/**
 * `local_gb` from the root disk: the one the hints choose, else the one the ramdisk guessed
 * (`root_disk`); whole GiB, one less to leave room for partitioning (Ironic's
 * `[inspector]disk_partitioning_spacing`, on). No root disk: 0, a diskless node.
 */
export const rootDevice: InspectionHook = {
  name: 'root-device',
  run(task, inventory, pluginData) {
    applyRootDeviceHints(task, inventory, pluginData);
    const root = record(pluginData.root_disk);
    let localGb = 0;
    if (root !== undefined) {
      localGb = Math.floor(Number(root.size ?? 0) / GIB) || 0;
      if (!localGb) {
        task.log.warn(
          `The requested root disk is too small (smaller than 1 GiB) or its size cannot be detected. Root disk: ${pyRepr(root)}, Node: ${task.node.uuid}`,
        );
      } else {
        localGb -= 1;
      }
    } else {
      task.log.info(`No root device found for node ${task.node.uuid}. Assuming node is diskless.`);
    }
    pluginData.local_gb = localGb;
    setProperty(task, 'local_gb', localGb);
  },
};

export const bootMode: InspectionHook = {
  name: 'boot-mode',
  run(task, inventory) {
    const mode = record(inventory.boot)?.current_boot_mode;
    if (mode === undefined || mode === null) {
      task.log.warn(`No boot mode information available for node ${task.node.uuid}`);
      return;
    }
    task.log.info(`Boot mode is ${String(mode)} for node ${task.node.uuid}`);
    setProperty(task, 'capabilities', updatedCapabilities(task.node.properties.capabilities, { boot_mode: String(mode) }));
  },
};
