import { Logger } from '@aws-lambda-powertools/logger';
import { defaultInterfaces, getHardwareType, hardwareTypes, loadDriver } from '../../../functions/drivers/registry';
import type { InspectionTask } from '../../../functions/drivers/base';
import { makeNode } from '../helpers/builders';

/** A node with no ports, which inspection may not change. */
const noPorts: InspectionTask['ports'] = {
  list: async () => [],
  create: async () => {
    throw new Error('no port is to be created');
  },
  save: async () => {},
  destroy: async () => {},
};

const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });

describe('the redfish hardware type', () => {
  it("offers Ironic's interface names that Ironless implements, defaults first", () => {
    expect(hardwareTypes().map((t) => t.name)).toEqual(['fake-hardware', 'redfish']);
    expect(getHardwareType('redfish').supported).toEqual({
      bios: ['redfish', 'no-bios'],
      boot: ['redfish-virtual-media'],
      console: ['no-console', 'redfish-graphical'],
      deploy: ['direct', 'fake'],
      firmware: ['no-firmware', 'redfish'],
      inspect: ['redfish', 'agent', 'no-inspect'],
      management: ['redfish'],
      network: ['noop', 'flat'],
      power: ['redfish'],
      raid: ['no-raid', 'agent'],
      rescue: ['no-rescue'],
      storage: ['noop'],
      vendor: ['no-vendor'],
    });
    expect(defaultInterfaces('redfish', {})).toMatchObject({
      power: 'redfish',
      management: 'redfish',
      boot: 'redfish-virtual-media',
      inspect: 'redfish',
    });
    expect(defaultInterfaces('redfish', { inspect: 'no-inspect' }).inspect).toBe('no-inspect');
    expect(() => defaultInterfaces('redfish', { boot: 'pxe' })).toThrow(
      "Could not find the following interface in the 'ironic.hardware.interfaces.boot' entrypoint: pxe. Valid interfaces are redfish-virtual-media.",
    );
  });

  it('loads the Redfish implementations for a redfish node', () => {
    const node = makeNode({
      driver: 'redfish',
      ...defaultInterfacesAsFields('redfish'),
    });
    const driver = loadDriver(node);
    expect([driver.power.name, driver.management.name, driver.boot.name, driver.inspect.name, driver.deploy.name]).toEqual([
      'redfish',
      'redfish',
      'redfish-virtual-media',
      'redfish',
      'direct',
    ]);
    // A fake-hardware interface name is not a redfish one.
    node.power_interface = 'fake';
    expect(() => loadDriver(node)).toThrow(`Node ${node.uuid}: power interface "fake" is not supported by hardware type redfish`);
  });
});

function defaultInterfacesAsFields(driver: string) {
  return Object.fromEntries(Object.entries(defaultInterfaces(driver, {})).map(([k, v]) => [`${k}_interface`, v]));
}

describe('fake-hardware', () => {
  it("has Ironic's fake management: PXE only, no boot modes, secure boot or NMI", async () => {
    const node = makeNode();
    const task = { node, log, ports: noPorts };
    const { management, boot, inspect } = loadDriver(node);
    expect(await management.getSupportedBootDevices(task)).toEqual(['pxe']);
    await management.setBootDevice(task, 'pxe', true);
    await expect(management.setBootDevice(task, 'disk')).rejects.toThrow('Invalid boot device disk specified.');
    expect(await management.getBootDevice(task)).toEqual({ boot_device: 'pxe', persistent: false });
    await expect(management.getBootMode(task)).rejects.toThrow(
      'Driver fake-hardware does not support get_boot_mode (disabled or not implemented).',
    );
    await expect(management.injectNmi(task)).rejects.toThrow(
      'Driver fake-hardware does not support inject_nmi (disabled or not implemented).',
    );
    await expect(management.setSecureBootState(task, true)).rejects.toMatchObject({ name: 'UnsupportedDriverExtension', code: 400 });
    await boot.prepareRamdisk(task, {});
    node.properties = { cpus: 4 };
    expect(await inspect.inspectHardware(task)).toEqual({ properties: { cpus: 4 }, interfaces: [], macs: [] });
  });

  it('has no-* interfaces that fail validation and actions, as Ironic’s noop ones', async () => {
    const node = makeNode({ inspect_interface: 'no-inspect', bios_interface: 'no-bios' });
    const task = { node, log, ports: noPorts };
    const driver = loadDriver(node);
    await expect(driver.inspect.inspectHardware(task)).rejects.toThrow(
      'Driver fake-hardware does not support inspect (disabled or not implemented).',
    );
    await expect(driver.interfaces.bios.validate(task)).rejects.toThrow(
      'Driver fake-hardware does not support bios (disabled or not implemented).',
    );
    await expect(driver.interfaces.network.validate(task)).resolves.toBeUndefined();
  });
});
