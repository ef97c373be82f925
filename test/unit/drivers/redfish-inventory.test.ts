/**
 * The redfish inspection inventory's disks, storage controllers, PCI devices, system vendor and CPU
 * (Ironic master's `redfish/inspect.py`), from Redfish documents served by a stub client: what each
 * maps to, and what a BMC lacking a resource (no link, a 404, an unreachable BMC) gives.
 */
import { jest } from '@jest/globals';
import { Logger } from '@aws-lambda-powertools/logger';
import type { RedfishClient } from '../../../functions/drivers/redfish/client';
import { RedfishRequestError, type Resource } from '../../../functions/drivers/redfish/client';
import { cpuInventory, pciDevices, storageInventory, systemVendor } from '../../../functions/drivers/redfish/inventory';
import { RedfishSystem } from '../../../functions/drivers/redfish/system';
import { makeNode } from '../helpers/builders';

const S = '/redfish/v1/Systems/1';
const ref = (path: string) => ({ '@odata.id': path });
const members = (...paths: string[]) => ({ Members: paths.map(ref) });
const GIB = 1024 ** 3;
/** `docs` without the document at `path` (which then answers 404). */
const without = (docs: Record<string, Resource>, path: string) => Object.fromEntries(Object.entries(docs).filter(([p]) => p !== path));

/** A system over `docs` (path → document); a path not in it answers 404, one in `down` cannot be reached. */
function systemOver(doc: Resource, docs: Record<string, Resource>, down: string[] = []) {
  const reads: string[] = [];
  const client = {
    async get(path: string) {
      reads.push(path);
      if (down.includes(path)) throw new RedfishRequestError(`GET ${path}: connection refused`, 'connection', 'GET', path, true);
      const found = docs[path];
      if (found === undefined) throw new RedfishRequestError(`HTTP GET ${path} returned code 404.`, 'http', 'GET', path, false, 404);
      return found;
    },
  } as unknown as RedfishClient;
  const warnings: string[] = [];
  const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
  jest.spyOn(log, 'warn').mockImplementation((...args: unknown[]) => void warnings.push(String(args[0])));
  return { system: new RedfishSystem(client, S, { '@odata.id': S, ...doc }), task: { node: makeNode(), log }, reads, warnings };
}

const drive = (id: string, extra: Resource = {}) => ({
  '@odata.id': `${S}/Storage/1/Drives/${id}`,
  Id: id,
  Name: `Drive ${id}`,
  CapacityBytes: 10 * GIB,
  ...extra,
});

const STORAGE_DOCS: Record<string, Resource> = {
  [`${S}/Storage`]: members(`${S}/Storage/1`),
  [`${S}/Storage/1`]: {
    Id: '1',
    Name: 'RAID',
    StorageControllers: [{ MemberId: '0', Name: 'PERC', SupportedRAIDTypes: ['RAID1'], SpeedGbps: 12, Status: { Health: 'OK' } }],
    Drives: [ref(`${S}/Storage/1/Drives/0`), ref(`${S}/Storage/1/Drives/1`)],
  },
  [`${S}/Storage/1/Drives/0`]: drive('0', {
    MediaType: 'HDD',
    Protocol: 'SAS',
    SerialNumber: 'S0',
    Manufacturer: 'M',
    Model: 'X',
    Revision: 'r1',
    Status: { State: 'Enabled', Health: 'OK', HealthRollup: 'OK' },
  }),
  [`${S}/Storage/1/Drives/1`]: drive('1', { CapacityBytes: undefined, Status: {} }),
  [`${S}/SimpleStorage`]: members(`${S}/SimpleStorage/1`),
  [`${S}/SimpleStorage/1`]: { Devices: [{ Name: 'sda', CapacityBytes: 5 * GIB }, { Name: 'cd' }] },
};
const BOTH = { Storage: ref(`${S}/Storage`), SimpleStorage: ref(`${S}/SimpleStorage`) };

describe('storage: disks and storage_controllers', () => {
  it("lists Storage's drives when the system links Storage, with each controller as Ironic writes it", async () => {
    const { system, task } = systemOver(BOTH, STORAGE_DOCS);
    expect(await storageInventory(task, system)).toEqual({
      disks: [
        { name: 'Drive 0', size: 10 * GIB },
        { name: 'Drive 1', size: null },
      ],
      storage_controllers: [
        {
          id: '1',
          name: 'RAID',
          storage_controllers: [
            {
              member_id: '0',
              name: 'PERC',
              raid_types: ['RAID1'],
              speed_gbps: 12,
              controller_protocols: [],
              device_protocols: [],
              status: { health: 'OK' },
            },
          ],
          drives: [
            {
              name: 'Drive 0',
              size: 10 * GIB,
              id: '0',
              media_type: 'HDD',
              serial_number: 'S0',
              manufacturer: 'M',
              model: 'X',
              revision: 'r1',
              protocol: 'SAS',
              status: { health: 'OK', state: 'Enabled', health_rollup: 'OK' },
            },
            {
              name: 'Drive 1',
              size: null,
              id: '1',
              media_type: null,
              serial_number: null,
              manufacturer: null,
              model: null,
              revision: null,
              status: null,
            },
          ],
        },
      ],
    });
  });

  it("lists SimpleStorage's devices (all of them) without Storage, and nothing without either", async () => {
    const simple = systemOver({ SimpleStorage: ref(`${S}/SimpleStorage`) }, STORAGE_DOCS);
    expect(await storageInventory(simple.task, simple.system)).toEqual({
      disks: [
        { name: 'sda', size: 5 * GIB },
        { name: 'cd', size: null },
      ],
    });
    const none = systemOver({}, STORAGE_DOCS);
    expect(await storageInventory(none.task, none.system)).toEqual({});
    expect(none.reads).toEqual([]);
  });

  it('falls back to SimpleStorage when Storage answers 404, and skips a drive it cannot read', async () => {
    const broken = systemOver(BOTH, without(STORAGE_DOCS, `${S}/Storage`));
    expect(await storageInventory(broken.task, broken.system)).toEqual({
      disks: [
        { name: 'sda', size: 5 * GIB },
        { name: 'cd', size: null },
      ],
    });
    expect(broken.warnings).toEqual(['Could not read the storage of the system; it is left out of the inventory']);

    const oneDrive = systemOver(BOTH, without(STORAGE_DOCS, `${S}/Storage/1/Drives/1`));
    const found = await storageInventory(oneDrive.task, oneDrive.system);
    expect(found.disks).toEqual([{ name: 'Drive 0', size: 10 * GIB }]);
    expect(oneDrive.warnings).toEqual([`Could not read the drive ${S}/Storage/1/Drives/1 of the system; it is left out of the inventory`]);

    const neither = systemOver(BOTH, {});
    expect(await storageInventory(neither.task, neither.system)).toEqual({});
    expect(neither.warnings).toHaveLength(2);
  });

  it('fails when the BMC cannot be reached', async () => {
    const { system, task } = systemOver(BOTH, STORAGE_DOCS, [`${S}/Storage`]);
    await expect(storageInventory(task, system)).rejects.toThrow('connection refused');
  });
});

describe('pci_devices', () => {
  const nic = {
    DeviceClass: 'NetworkController',
    DeviceId: '0x16d7',
    VendorId: '0x14e4',
    SubsystemId: '0x1402',
    SubsystemVendorId: '0x14e4',
    RevisionId: '0x01',
  };
  const docs: Record<string, Resource> = {
    [`${S}/PCIeDevices`]: members(`${S}/PCIeDevices/0`, `${S}/PCIeDevices/1`, `${S}/PCIeDevices/2`),
    [`${S}/PCIeDevices/0`]: { Id: '0', PCIeFunctions: ref(`${S}/PCIeDevices/0/PCIeFunctions`) },
    [`${S}/PCIeDevices/0/PCIeFunctions`]: members(`${S}/PCIeDevices/0/PCIeFunctions/0`, `${S}/PCIeDevices/0/PCIeFunctions/1`),
    [`${S}/PCIeDevices/0/PCIeFunctions/0`]: { Id: '0', ...nic },
    // A function reporting none of the fields is left out.
    [`${S}/PCIeDevices/0/PCIeFunctions/1`]: { Id: '1', Name: 'empty' },
    // A device without functions contributes nothing.
    [`${S}/PCIeDevices/1`]: { Id: '1' },
    [`${S}/PCIeDevices/2`]: { Id: '2', PCIeFunctions: ref(`${S}/PCIeDevices/2/PCIeFunctions`) },
    [`${S}/PCIeDevices/2/PCIeFunctions`]: members(`${S}/PCIeDevices/2/PCIeFunctions/0`),
    [`${S}/PCIeDevices/2/PCIeFunctions/0`]: {
      Id: '0',
      DeviceClass: 'MassStorageController',
      DeviceId: '0x1234',
      VendorId: '0x1000',
      RevisionId: '0x02',
      SubsystemId: null,
    },
  };

  it('lists every function of every device in IPA names, only the fields the BMC reports', async () => {
    const { system, task } = systemOver({ PCIeDevices: ref(`${S}/PCIeDevices`) }, docs);
    expect(await pciDevices(task, system)).toEqual([
      {
        class: 'NetworkController',
        product_id: '0x16d7',
        vendor_id: '0x14e4',
        subsystem_id: '0x1402',
        subsystem_vendor_id: '0x14e4',
        revision: '0x01',
      },
      { class: 'MassStorageController', product_id: '0x1234', vendor_id: '0x1000', revision: '0x02' },
    ]);
  });

  it('reads devices listed on the System itself (older BMCs)', async () => {
    const { system, task } = systemOver({ PCIeDevices: [ref(`${S}/PCIeDevices/0`)] }, docs);
    expect(await pciDevices(task, system)).toEqual([expect.objectContaining({ class: 'NetworkController' })]);
  });

  it('gives none without the link, and none (logged) when the collection or a device answers 404', async () => {
    const missing = systemOver({}, docs);
    expect(await pciDevices(missing.task, missing.system)).toEqual([]);
    expect(missing.warnings).toEqual([]);
    const broken = systemOver({ PCIeDevices: ref(`${S}/PCIeDevices`) }, {});
    expect(await pciDevices(broken.task, broken.system)).toEqual([]);
    expect(broken.warnings).toEqual(['Could not read the PCIe devices of the system; it is left out of the inventory']);
    const noFunctions = systemOver({ PCIeDevices: ref(`${S}/PCIeDevices`) }, without(docs, `${S}/PCIeDevices/0/PCIeFunctions`));
    expect(await pciDevices(noFunctions.task, noFunctions.system)).toEqual([expect.objectContaining({ class: 'MassStorageController' })]);
    expect(noFunctions.warnings).toHaveLength(1);
  });
});

describe('system_vendor and cpu', () => {
  it("takes the System's Model, SerialNumber, Manufacturer and UUID (not its SKU), only those it reports", () => {
    expect(systemVendor({ Model: 'R640', SerialNumber: 'ABC', Manufacturer: 'Dell Inc.', UUID: 'u-1', SKU: 'S' })).toEqual({
      product_name: 'R640',
      serial_number: 'ABC',
      manufacturer: 'Dell Inc.',
      system_uuid: 'u-1',
    });
    expect(systemVendor({ Model: 'R640', SerialNumber: null, Manufacturer: '' })).toEqual({ product_name: 'R640' });
    expect(systemVendor({})).toEqual({});
  });

  it("counts threads, and takes the first processor's instruction set, model and speed", () => {
    const p = (extra: Resource) => ({ TotalThreads: 8, ...extra });
    expect(cpuInventory([p({ InstructionSet: 'x86-64', Model: 'Xeon', MaxSpeedMHz: 3000 }), p({ InstructionSet: 'ARM-A64' })])).toEqual({
      count: 16,
      architecture: 'x86_64',
      model_name: 'Xeon',
      frequency: 3000,
    });
    expect(cpuInventory([p({ InstructionSet: 'ARM-A64' })])).toEqual({ count: 8, architecture: 'aarch64' });
    expect(cpuInventory([p({ InstructionSet: 'OEM' }), { InstructionSet: 'x86' }])).toEqual({ count: 8, architecture: '' });
    expect(cpuInventory([])).toEqual({ count: 0, architecture: '' });
  });
});
