/**
 * Out-of-band inspection over Redfish (Ironic master's `redfish/inspect.py`): memory_mb, local_gb
 * and the boot_mode capability from the system, and the inventory Ironic master builds (memory,
 * cpu, disks, storage_controllers, interfaces, pci_devices, system_vendor, boot; see
 * `inventory.ts`) with, as plugin data, the LLDP the BMC reports for its NetworkAdapters' ports
 * (`parsed_lldp`, see `lldp.ts`). Then, as master, the `[redfish]inspection_hooks` run over that
 * inventory — by default validate-interfaces, ports (a port per NIC) and architecture (cpu_arch) —
 * and the essential properties are checked. memory_mb and local_gb are numbers, as master's (Ironic
 * 21.4 wrote strings). The conductor stores the inventory and plugin data as the hooks left them.
 */
import { HardwareInspectionFailure } from '#common/errors';
import { BOOT_MODES, type InspectInterface, type InspectedInterface, type Task } from '../base';
import { runInspectionHooks, validateInspectionHooks } from '../inspector/hooks';
import type { Resource } from './client';
import { type RedfishConfig, redfishInspectionConfig } from './config';
import { parseDriverInfo } from './driver-info';
import { cpuInventory, pciDevices, storageInventory, systemVendor } from './inventory';
import { collectLldp } from './lldp';
import { type RedfishSystem, getSystem, reachFailure } from './system';

const GIB = 1024 ** 3;
/** Disks smaller than this are not where an image goes (Ironic's 4 GiB floor). */
const MIN_DISK_BYTES = 4 * GIB;

const BOOT_MODE_MAP: Readonly<Record<string, string>> = { UEFI: BOOT_MODES.UEFI, Legacy: BOOT_MODES.LEGACY_BIOS };
/** Ironic master's (21.4 also required cpus, which master no longer sets; the `cpus` hook does when listed). */
const ESSENTIAL_PROPERTIES = ['memory_mb', 'local_gb', 'cpu_arch'] as const;

function enabled(resource: Resource): boolean {
  const state = ((resource.Status ?? {}) as Resource).State;
  return state === undefined || state === 'Enabled';
}

/** A size as a list of zero or one, to flatMap over members that may not report one. */
function bytes(value: unknown): number[] {
  return typeof value === 'number' && value > 0 ? [value] : [];
}

/** The smallest size of at least 4 GiB, 0 when there is none (sushy sorts, Ironic takes the first). */
function smallestUsable(sizes: number[]): number {
  return [...sizes].sort((a, b) => a - b).find((size) => size >= MIN_DISK_BYTES) ?? 0;
}

/** Capabilities as Ironic keeps them: "key:value,key:value" (a dict is accepted too). */
export function parseCapabilities(value: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (typeof value === 'string') {
    for (const pair of value.split(',')) {
      const [key, ...rest] = pair.split(':');
      if (key && rest.length > 0) out.set(key.trim(), rest.join(':').trim());
    }
  } else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) out.set(key, String(v));
  }
  return out;
}

/** The size of the local disk in bytes, from SimpleStorage and Storage (drives or volumes), as Ironic picks it. */
async function localDiskBytes(task: Task, system: RedfishSystem): Promise<number> {
  let simple = 0;
  let storage = 0;
  try {
    const devices = (await system.members('SimpleStorage')).flatMap((s) => (Array.isArray(s.Devices) ? (s.Devices as Resource[]) : []));
    simple = smallestUsable(devices.filter(enabled).flatMap((d) => bytes(d.CapacityBytes)));
  } catch (err) {
    task.log.debug('No simple storage information', { node: task.node.uuid, error: String(err) });
  }
  try {
    const controllers = await system.members('Storage');
    const volumes: number[] = [];
    const drives: number[] = [];
    for (const controller of controllers) {
      for (const volume of await system.members('Volumes', controller)) volumes.push(...bytes(volume.CapacityBytes));
      for (const ref of Array.isArray(controller.Drives) ? (controller.Drives as Resource[]) : []) {
        if (typeof ref['@odata.id'] !== 'string') continue;
        const drive = await system.client.get(ref['@odata.id']);
        if (enabled(drive)) drives.push(...bytes(drive.CapacityBytes));
      }
    }
    storage = smallestUsable(volumes) || smallestUsable(drives);
  } catch (err) {
    task.log.debug('No storage information', { node: task.node.uuid, error: String(err) });
  }
  return simple && storage ? Math.min(simple, storage) : Math.max(simple, storage);
}

export function createRedfishInspect(config: RedfishConfig): InspectInterface {
  const inspection = config.inspection ?? redfishInspectionConfig();
  return {
    name: 'redfish',
    async validate(task) {
      parseDriverInfo(task.node, config.policy);
    },

    async inspectHardware(task) {
      const node = task.node;
      // As Ironic loads them with the interface: hooks that cannot run fail before the BMC is asked.
      const hooks = validateInspectionHooks(inspection.hooks);
      const system = await getSystem(task, config);
      const original = node.properties;
      const properties: Record<string, unknown> = { ...node.properties };
      try {
        const memoryGib = ((system.doc.MemorySummary ?? {}) as Resource).TotalSystemMemoryGiB;
        if (typeof memoryGib === 'number' && memoryGib > 0) properties.memory_mb = Math.round(memoryGib * 1024);
        const processors = await system.members('Processors');

        // Ironic reports one GiB less than the disk holds, whole GiB.
        const diskBytes = await localDiskBytes(task, system);
        properties.local_gb = Math.max(0, Math.floor(diskBytes / GIB - 1));
        if (!diskBytes) task.log.warn('No usable disk found; assuming a disk-less node', { node: node.uuid });

        const bootMode = BOOT_MODE_MAP[system.boot.mode ?? ''];
        const capabilities = parseCapabilities(properties.capabilities);
        if (bootMode && !capabilities.has('boot_mode')) {
          capabilities.set('boot_mode', bootMode);
          properties.capabilities = [...capabilities].map(([k, v]) => `${k}:${v}`).join(',');
        }

        const interfaces: InspectedInterface[] = [];
        for (const nic of await system.members('EthernetInterfaces')) {
          const mac = typeof nic.MACAddress === 'string' ? nic.MACAddress.toLowerCase() : '';
          if (!mac) {
            task.log.warn('Ignoring a NIC without a MAC address', { node: node.uuid, nic: nic.Id });
            continue;
          }
          const speed = typeof nic.SpeedMbps === 'number' ? { speed_mbps: nic.SpeedMbps } : {};
          interfaces.push({
            name: String(nic.Id ?? nic.Name ?? mac),
            mac_address: mac,
            enabled: ((nic.Status ?? {}) as Resource).State === 'Enabled',
            ...speed,
          });
        }

        // The inventory Ironic master builds, in the ramdisk's shape and key order.
        const memory = typeof memoryGib === 'number' && memoryGib > 0 ? { memory: { physical_mb: Math.round(memoryGib * 1024) } } : {};
        const pci = await pciDevices(task, system);
        const vendor = systemVendor(system.doc);
        const inventory: Record<string, unknown> = {
          ...memory,
          cpu: cpuInventory(processors),
          ...(await storageInventory(task, system)),
          interfaces: interfaces.map(({ name, mac_address, speed_mbps }) => ({
            mac_address,
            name,
            ...(speed_mbps !== undefined ? { speed_mbps } : {}),
          })),
          ...(pci.length > 0 ? { pci_devices: pci } : {}),
          ...(Object.keys(vendor).length > 0 ? { system_vendor: vendor } : {}),
          ...(bootMode ? { boot: { current_boot_mode: bootMode } } : {}),
        };
        const lldp = await collectLldp(task, system);
        const pluginData: Record<string, unknown> = Object.keys(lldp).length > 0 ? { parsed_lldp: lldp } : {};

        // The hooks work on the node itself, as Ironic's: cpu_arch (architecture), ports (ports).
        node.properties = properties;
        await runInspectionHooks(task, inventory, pluginData, hooks, inspection.inspector);
        const missing = ESSENTIAL_PROPERTIES.filter((key) => node.properties[key] === undefined);
        if (missing.length > 0) {
          throw new HardwareInspectionFailure(`Failed to discover the following properties: ${missing.join(', ')} on node ${node.uuid}`);
        }
        // The hooks created the ports: none are left for the conductor to create.
        return { properties: node.properties, interfaces, macs: [], inventory, pluginData };
      } catch (err) {
        // A failed inspection leaves the properties as they were (ports the hooks made stay, as in Ironic).
        node.properties = original;
        if (err instanceof HardwareInspectionFailure) throw err;
        reachFailure(node.uuid, err);
      }
    },
  };
}
