/**
 * The parts of the redfish inspection inventory Ironic master reads beyond memory, CPUs and NICs
 * (`redfish/inspect.py`): `disks`, `storage_controllers`, `pci_devices`, `system_vendor` and the
 * CPU's model and frequency. Each is built in the ramdisk's shape, so inspection rules and anything
 * reading `GET /v1/nodes/{node}/inventory` see the same keys as after in-band inspection.
 *
 * A BMC without one of these resources (no link on the System) leaves its key out, as in Ironic.
 * A linked resource the BMC cannot serve (an HTTP error answer) is logged and left out too (disks
 * then come from SimpleStorage when Storage fails); Ironic lets sushy's error end the inspection
 * there. An unreachable BMC still fails the inspection.
 */
import type { Task } from '../base';
import { RedfishRequestError, type Resource } from './client';
import type { RedfishSystem } from './system';

/** Redfish InstructionSet → the inventory's cpu architecture (Ironic master's map; OEM is unknown). */
const INSTRUCTION_SET_ARCH: Readonly<Record<string, string>> = {
  'ARM-A32': 'arm',
  'ARM-A64': 'aarch64',
  'IA-64': 'ia64',
  MIPS32: 'mips',
  MIPS64: 'mips64',
  x86: 'i686',
  'x86-64': 'x86_64',
};

type Doc = Record<string, unknown>;

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const orNull = (value: unknown): unknown => (value === undefined ? null : value);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const linkOf = (value: unknown): string | undefined => str((value as Doc | undefined)?.['@odata.id']);

/**
 * Read one optional part of the inventory: an HTTP error answer (a 404 for a dangling link, a 5xx
 * after the client's retries) is logged and gives `undefined`; anything else (the BMC unreachable) is thrown.
 */
async function optional<T>(task: Task, what: string, read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    if (!(err instanceof RedfishRequestError) || err.kind === 'connection') throw err;
    task.log.warn(`Could not read the ${what} of the system; it is left out of the inventory`, {
      node: task.node.uuid,
      error: err.message,
    });
    return undefined;
  }
}

/** Status as Ironic writes it: health, state and health_rollup when the BMC gives them, else null. */
function statusOf(value: unknown): Doc | null {
  if (!value || typeof value !== 'object') return null;
  const status = value as Doc;
  const out: Doc = {};
  if (status.Health !== undefined && status.Health !== null) out.health = status.Health;
  if (status.State !== undefined && status.State !== null) out.state = status.State;
  if (status.HealthRollup !== undefined && status.HealthRollup !== null) out.health_rollup = status.HealthRollup;
  return Object.keys(out).length > 0 ? out : null;
}

/** The Drive resources a Storage resource links, skipping (and logging) one the BMC cannot serve. */
async function drivesOf(task: Task, system: RedfishSystem, storage: Resource): Promise<Resource[]> {
  const out: Resource[] = [];
  for (const ref of list(storage.Drives)) {
    const path = linkOf(ref);
    if (path === undefined) continue;
    const drive = await optional(task, `drive ${path}`, () => system.client.get(path));
    if (drive !== undefined) out.push(drive);
  }
  return out;
}

/** A Storage resource with its drives, read once for both `disks` and `storage_controllers`. */
interface StorageRead {
  readonly storage: Resource;
  readonly drives: readonly Resource[];
}

/** The storage part of the inventory: `disks` and, from Storage resources, `storage_controllers`. */
export async function storageInventory(task: Task, system: RedfishSystem): Promise<Doc> {
  const out: Doc = {};
  // Ironic lists the disks of Storage when the system links it, else those of SimpleStorage (also
  // here when Storage cannot be read).
  if (linkOf(system.doc.Storage) !== undefined) {
    const read = await optional(task, 'storage', async () => {
      const reads: StorageRead[] = [];
      for (const storage of await system.members('Storage')) reads.push({ storage, drives: await drivesOf(task, system, storage) });
      return reads;
    });
    if (read !== undefined) {
      out.disks = read.flatMap(({ drives }) => drives.map((d) => ({ name: orNull(d.Name), size: orNull(d.CapacityBytes) })));
      const controllers = read.map(({ storage, drives }) => storageController(storage, drives));
      if (controllers.length > 0) out.storage_controllers = controllers;
      return out;
    }
  }
  if (linkOf(system.doc.SimpleStorage) !== undefined) {
    const simple = await optional(task, 'simple storage', () => system.members('SimpleStorage'));
    if (simple !== undefined) {
      out.disks = simple.flatMap((s) => list(s.Devices) as Doc[]).map((d) => ({ name: orNull(d.Name), size: orNull(d.CapacityBytes) }));
    }
  }
  return out;
}

function storageController(storage: Resource, drives: readonly Resource[]): Doc {
  const controllers = (list(storage.StorageControllers) as Doc[]).map((sc) => ({
    member_id: orNull(sc.MemberId),
    name: orNull(sc.Name),
    raid_types: list(sc.SupportedRAIDTypes),
    speed_gbps: orNull(sc.SpeedGbps),
    controller_protocols: list(sc.SupportedControllerProtocols),
    device_protocols: list(sc.SupportedDeviceProtocols),
    ...(sc.Status !== undefined ? { status: statusOf(sc.Status) } : {}),
  }));
  return {
    id: str(storage.Id) ?? '',
    name: orNull(storage.Name),
    storage_controllers: controllers,
    drives: drives.map((d) => ({
      name: orNull(d.Name),
      size: orNull(d.CapacityBytes),
      id: orNull(d.Id),
      media_type: orNull(d.MediaType),
      serial_number: orNull(d.SerialNumber),
      manufacturer: orNull(d.Manufacturer),
      model: orNull(d.Model),
      revision: orNull(d.Revision),
      ...(d.Protocol !== undefined && d.Protocol !== null ? { protocol: d.Protocol } : {}),
      ...(d.Status !== undefined ? { status: statusOf(d.Status) } : {}),
    })),
  };
}

/** A PCIe function as the ramdisk reports a PCI device (IPA's names; a BMC knows no bus or NUMA node). */
function pciFunction(fn: Resource): Doc {
  const fields: [string, string][] = [
    ['class', 'DeviceClass'],
    ['product_id', 'DeviceId'],
    ['vendor_id', 'VendorId'],
    ['subsystem_id', 'SubsystemId'],
    ['subsystem_vendor_id', 'SubsystemVendorId'],
    ['revision', 'RevisionId'],
  ];
  const out: Doc = {};
  for (const [key, field] of fields) {
    const value = fn[field];
    if (value !== undefined && value !== null) out[key] = key === 'class' ? String(value) : value;
  }
  return out;
}

/** `pci_devices`: every function of every PCIe device of the system; [] when it reports none. */
export async function pciDevices(task: Task, system: RedfishSystem): Promise<Doc[]> {
  const devicesField = system.doc.PCIeDevices;
  const devices = await optional(task, 'PCIe devices', async () => {
    if (linkOf(devicesField) !== undefined) return system.members('PCIeDevices');
    // Older BMCs list the devices on the System itself.
    const out: Resource[] = [];
    for (const ref of list(devicesField)) {
      const path = linkOf(ref);
      if (path !== undefined) out.push(await system.client.get(path));
    }
    return out;
  });
  const found: Doc[] = [];
  for (const device of devices ?? []) {
    if (linkOf(device.PCIeFunctions) === undefined) continue;
    const functions = await optional(task, `PCIe functions of ${str(device['@odata.id']) ?? 'a device'}`, () =>
      system.members('PCIeFunctions', device),
    );
    for (const fn of functions ?? []) {
      const info = pciFunction(fn);
      if (Object.keys(info).length > 0) found.push(info);
    }
  }
  return found;
}

/** `system_vendor`: the System's Model, SerialNumber, Manufacturer and UUID, those it reports. */
export function systemVendor(doc: Resource): Doc {
  const out: Doc = {};
  const fields: [string, string][] = [
    ['product_name', 'Model'],
    ['serial_number', 'SerialNumber'],
    ['manufacturer', 'Manufacturer'],
    ['system_uuid', 'UUID'],
  ];
  for (const [key, field] of fields) {
    const value = doc[field];
    if (value !== undefined && value !== null && value !== '') out[key] = String(value);
  }
  return out;
}

/** `cpu`: count (all processors' threads), the first processor's architecture, model and frequency. */
export function cpuInventory(processors: readonly Resource[]): Doc {
  const cpu: Doc = { count: 0, architecture: '' };
  const first = processors[0];
  if (first === undefined) return cpu;
  cpu.count = processors.reduce((n, p) => n + (typeof p.TotalThreads === 'number' ? p.TotalThreads : 0), 0);
  if (first.Model !== undefined && first.Model !== null) cpu.model_name = String(first.Model);
  if (first.MaxSpeedMHz !== undefined && first.MaxSpeedMHz !== null) cpu.frequency = first.MaxSpeedMHz;
  cpu.architecture = INSTRUCTION_SET_ARCH[str(first.InstructionSet) ?? ''] ?? '';
  return cpu;
}
