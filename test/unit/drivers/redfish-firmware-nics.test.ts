/**
 * The NICs' firmware components of the redfish firmware interface (Ironic master's
 * retrieve_nic_components), over a stub client: one `nic:<id>` per controller of each of the first
 * chassis' NetworkAdapters that reports a FirmwarePackageVersion, named by the adapter's
 * SerialNumber, else its Id; none without a chassis or NetworkAdapters; NetworkAdapters the BMC
 * refuses are left out with a warning while the BIOS and BMC are still cached.
 */
import { jest } from '@jest/globals';
import { Logger } from '@aws-lambda-powertools/logger';
import type { BootInterface, PowerInterface, Task } from '../../../functions/drivers/base';
import { RedfishRequestError, type RedfishClient, type Resource } from '../../../functions/drivers/redfish/client';
import { DEFAULT_REDFISH_CONFIG } from '../../../functions/drivers/redfish/config';
import { createRedfishFirmware } from '../../../functions/drivers/redfish/firmware';
import { PERMISSIVE_FETCH_POLICY } from '../../../functions/drivers/hosts';
import { RedfishSystem } from '../../../functions/drivers/redfish/system';
import { makeNode } from '../helpers/builders';
import { MemoryFirmwareComponentStore } from '../helpers/memory-stores';

const SYSTEM = '/redfish/v1/Systems/1';
const MANAGER = '/redfish/v1/Managers/1';
const CHASSIS = '/redfish/v1/Chassis/1';
const ADAPTERS = `${CHASSIS}/NetworkAdapters`;
const ref = (path: string) => ({ '@odata.id': path });

function bmcDocs(): Record<string, Resource> {
  return {
    [SYSTEM]: { BiosVersion: '1.0', Links: { ManagedBy: [ref(MANAGER)], Chassis: [ref(CHASSIS), ref('/redfish/v1/Chassis/2')] } },
    [MANAGER]: { FirmwareVersion: '2.0', Model: 'iDRAC' },
    [CHASSIS]: { NetworkAdapters: ref(ADAPTERS) },
    [ADAPTERS]: { Members: [ref(`${ADAPTERS}/A`), ref(`${ADAPTERS}/B`), ref(`${ADAPTERS}/C`)] },
    // Named by its serial number; two controllers, one without a version.
    [`${ADAPTERS}/A`]: {
      Id: 'A',
      SerialNumber: 'SN-A',
      Manufacturer: 'Broadcom',
      Model: 'BCM57414',
      Controllers: [{ FirmwarePackageVersion: '22.1' }, { FirmwarePackageVersion: '' }, {}],
    },
    // No serial number: named by its Id.
    [`${ADAPTERS}/B`]: { Id: 'B', Controllers: [{ FirmwarePackageVersion: '5.0' }] },
    // No controllers: no component.
    [`${ADAPTERS}/C`]: { Id: 'C' },
  };
}

function setup(docs: Record<string, Resource>, refused: string[] = []) {
  const client = {
    async get(path: string) {
      if (refused.includes(path)) throw new RedfishRequestError(`HTTP GET ${path} returned code 400.`, 'http', 'GET', path, false, 400);
      const doc = docs[path];
      if (doc === undefined) throw new Error(`unexpected GET ${path}`);
      return doc;
    },
  } as unknown as RedfishClient;
  const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
  const warn = jest.spyOn(log, 'warn');
  const store = new MemoryFirmwareComponentStore();
  const node = makeNode({ driver: 'redfish' });
  const task: Task = { node, log, firmwareComponents: { record: async (r) => void (await store.sync(node.uuid, r)) } };
  const firmware = createRedfishFirmware(
    { ...DEFAULT_REDFISH_CONFIG, policy: PERMISSIVE_FETCH_POLICY },
    {} as PowerInterface,
    {} as BootInterface,
    {
      getSystem: async () => new RedfishSystem(client, SYSTEM, docs[SYSTEM] as Resource),
    },
  );
  const stored = async () => (await store.list(node.uuid)).map((c) => [c.component, c.current_version, c.vendor, c.model, c.serial_number]);
  return { firmware, task, stored, warn };
}

describe('redfish firmware: NIC components', () => {
  it('caches each NIC controller’s FirmwarePackageVersion from the first chassis’ NetworkAdapters', async () => {
    const { firmware, task, stored } = setup(bmcDocs());
    await firmware.cacheFirmwareComponents(task);
    expect(await stored()).toEqual([
      ['bios', '1.0', null, null, null],
      ['bmc', '2.0', null, 'iDRAC', null],
      ['nic:B', '5.0', null, null, null],
      ['nic:SN-A', '22.1', 'Broadcom', 'BCM57414', 'SN-A'],
    ]);
  });

  it('has none without a chassis or without NetworkAdapters', async () => {
    const noChassis = bmcDocs();
    noChassis[SYSTEM] = { BiosVersion: '1.0', Links: { ManagedBy: [ref(MANAGER)] } };
    const a = setup(noChassis);
    await a.firmware.cacheFirmwareComponents(a.task);
    expect((await a.stored()).map(([c]) => c)).toEqual(['bios', 'bmc']);

    const noAdapters = bmcDocs();
    noAdapters[CHASSIS] = {};
    const b = setup(noAdapters);
    await b.firmware.cacheFirmwareComponents(b.task);
    expect((await b.stored()).map(([c]) => c)).toEqual(['bios', 'bmc']);
  });

  it('leaves out NetworkAdapters the BMC refuses, with a warning, and still caches the BIOS and BMC', async () => {
    const { firmware, task, stored, warn } = setup(bmcDocs(), [ADAPTERS]);
    await firmware.cacheFirmwareComponents(task);
    expect((await stored()).map(([c]) => c)).toEqual(['bios', 'bmc']);
    expect(warn).toHaveBeenCalledWith('Unable to access NetworkAdapters', expect.objectContaining({ node: task.node.uuid }));
  });

  it('caches NICs alone when the BMC reports no BIOS or BMC version', async () => {
    const docs = bmcDocs();
    docs[SYSTEM] = { Links: { ManagedBy: [ref(MANAGER)], Chassis: [ref(CHASSIS)] } };
    docs[MANAGER] = {};
    const { firmware, task, stored } = setup(docs);
    await firmware.cacheFirmwareComponents(task);
    expect((await stored()).map(([c]) => c)).toEqual(['nic:B', 'nic:SN-A']);
  });
});
