/**
 * Out-of-band redfish inspection's inventory on the local stack: `inspect` of a redfish node reads
 * its virtual BMC, and `GET /v1/nodes/{node}/inventory` (1.81) then shows what Ironic master's
 * redfish inspection stores — memory, cpu, disks, storage controllers, interfaces, PCI devices,
 * system vendor, boot — with the plugin data its hooks leave (LLDP, the interfaces validate-interfaces
 * records), the ports hook's ports and the architecture hook's cpu_arch; inspection rules read the same inventory. A BMC
 * lacking storage and PCIe resources still inspects, without those keys and with local_gb 0.
 */
import { jest } from '@jest/globals';
import type { VirtualMachine } from '../../local/fleet/machine';
import type { LocalStack } from '../../local/stack';
import { ApiClient, type Json, startStack } from './helpers/stack';

// Real services on a loaded machine: jest's project-level testTimeout is not applied (see jest.config.js).
jest.setTimeout(60_000);

const GIB = 1024 ** 3;

let stack: LocalStack;
let api: ApiClient;

beforeAll(async () => {
  stack = await startStack({ fleet: { count: 1, prefix: 'rinv' } });
  api = new ApiClient(stack.url, '1.96');
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** A manageable redfish node (out-of-band inspection) on a new machine of the given shape. */
async function manageableNode(shape: Partial<VirtualMachine['spec']> = {}): Promise<{ uuid: string; machine: VirtualMachine }> {
  const fleet = stack.fleet!;
  const machine = fleet.add(shape);
  const body = { driver: 'redfish', driver_info: fleet.driverInfo(machine), inspect_interface: 'redfish' };
  const reply = await api.request('POST', '/v1/nodes', body);
  if (reply.status !== 201) throw new Error(reply.text);
  const uuid = reply.body.uuid as string;
  await api.provision(uuid, 'manage');
  await api.waitFor(uuid, 'manageable', 30_000);
  return { uuid, machine };
}

async function inspect(uuid: string): Promise<Json> {
  await api.provision(uuid, 'inspect');
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const node = (await api.get(`/v1/nodes/${uuid}`)).body;
    if (node.provision_state !== 'inspecting' && node.reservation === null) return node;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`node ${uuid} still inspecting`);
}

describe('redfish inspection stores the inventory', () => {
  it('GET /v1/nodes/{node}/inventory shows what the BMC reports, field by field', async () => {
    const { uuid, machine } = await manageableNode({
      processors: [{ model: 'Ironless Virtual CPU', arch: 'x86', cores: 4, threads: 8 }],
      memoryGiB: 32,
      disks: [
        { name: 'sda', sizeBytes: 2 * GIB },
        { name: 'sdb', sizeBytes: 200 * GIB },
      ],
    });
    // Not inspected yet: Ironic's 404.
    expect((await api.get(`/v1/nodes/${uuid}/inventory`)).status).toBe(404);
    const node = await inspect(uuid);
    expect([node.provision_state, node.last_error]).toEqual(['manageable', null]);
    // local_gb from the smallest disk of at least 4 GiB, one GiB less; numbers, as Ironic master's
    // (21.4 wrote strings); cpu_arch from the architecture hook; cpus only when its hook is listed.
    expect(node.properties).toMatchObject({ cpu_arch: 'x86_64', memory_mb: 32768, local_gb: 199 });
    expect(node.properties).not.toHaveProperty('cpus');
    // The ports hook: a port per NIC, none marked PXE-booting (the BMC cannot tell).
    const ports = (await api.get(`/v1/ports?node=${uuid}&detail=true`)).body.ports as Json[];
    expect(ports.map((p) => [p.address, p.pxe_enabled]).sort()).toEqual(machine.spec.nics.map((n) => [n.mac, false]).sort());

    const reply = await api.get(`/v1/nodes/${uuid}/inventory`);
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body)).toEqual(['inventory', 'plugin_data']);
    // The LLDP each NIC's switch port sends, as the BMC reports it on its NetworkAdapters' Ports.
    const lldp = Object.fromEntries(
      machine.spec.nics.map((nic) => [
        nic.id,
        {
          switch_chassis_id: expect.stringMatching(/^52:54:00:ff:[0-9a-f]{2}:01$/),
          switch_port_id: expect.stringMatching(/^Ethernet1\/\d+$/),
          switch_system_name: expect.stringMatching(/^tor-/),
          switch_system_description: 'Ironless virtual switch',
          switch_vlan_id: 100,
        },
      ]),
    );
    // With what validate-interfaces records: every NIC qualifies (no PXE NIC known, add_ports pxe).
    const nics = Object.fromEntries(
      machine.spec.nics.map((n) => [
        n.id,
        { mac_address: n.mac, name: n.id, speed_mbps: n.speedMbps, pxe_enabled: false, ipv6_address: null },
      ]),
    );
    expect(reply.body.plugin_data).toEqual({
      parsed_lldp: lldp,
      all_interfaces: nics,
      valid_interfaces: nics,
      macs: machine.spec.nics.map((n) => n.mac),
    });
    const inventory = reply.body.inventory as Json;
    // (DynamoDB keeps no key order: compared sorted.)
    expect(Object.keys(inventory).sort()).toEqual([
      'boot',
      'cpu',
      'disks',
      'interfaces',
      'memory',
      'pci_devices',
      'storage_controllers',
      'system_vendor',
    ]);
    expect(inventory.memory).toEqual({ physical_mb: 32768 });
    expect(inventory.cpu).toEqual({ count: 8, architecture: 'x86_64', model_name: 'Ironless Virtual CPU', frequency: 2400 });
    expect(inventory.disks).toEqual([
      { name: 'sda', size: 2 * GIB },
      { name: 'sdb', size: 200 * GIB },
    ]);
    expect(inventory.storage_controllers).toHaveLength(1);
    expect(inventory.storage_controllers[0]).toMatchObject({ id: '1', name: 'Storage Controller' });
    expect(inventory.storage_controllers[0].drives.map((d: Json) => [d.name, d.size, d.model])).toEqual([
      ['sda', 2 * GIB, 'Virtual SSD'],
      ['sdb', 200 * GIB, 'Virtual SSD'],
    ]);
    expect(inventory.interfaces).toEqual(machine.spec.nics.map((n) => ({ mac_address: n.mac, name: n.id, speed_mbps: n.speedMbps })));
    expect(inventory.pci_devices).toHaveLength(machine.spec.nics.length + 1);
    expect(inventory.pci_devices[0]).toEqual({
      class: 'NetworkController',
      product_id: '0x1041',
      vendor_id: '0x1af4',
      subsystem_id: '0x1100',
      subsystem_vendor_id: '0x1af4',
      revision: '0x01',
    });
    expect(inventory.pci_devices.at(-1)).toMatchObject({ class: 'MassStorageController', product_id: '0x1048' });
    expect(inventory.system_vendor).toEqual({
      product_name: 'Virtual Machine',
      serial_number: machine.uuid.slice(0, 8).toUpperCase(),
      manufacturer: 'Ironless',
      system_uuid: machine.uuid,
    });
    expect(inventory.boot).toEqual({ current_boot_mode: 'uefi' });

    // Below 1.81 the path does not exist.
    expect((await new ApiClient(stack.url, '1.80').get(`/v1/nodes/${uuid}/inventory`)).status).toBe(404);
  });

  it('inspection rules read the new keys, and a BMC without storage or PCIe still inspects', async () => {
    const rule = {
      description: 'vendor and disks',
      priority: 10,
      conditions: [
        { op: 'eq', args: { values: ['{inventory[system_vendor][manufacturer]}', 'Ironless'] } },
        { op: 'contains', args: { value: '{inventory[pci_devices]}', regex: 'MassStorageController' } },
      ],
      actions: [
        { op: 'add-trait', args: { name: 'CUSTOM_IRONLESS_VENDOR' } },
        { op: 'set-attribute', args: { path: '/properties/product', value: '{inventory[system_vendor][product_name]}' } },
      ],
    };
    const created = await api.request('POST', '/v1/inspection_rules', rule);
    expect(created.status).toBe(201);
    try {
      const { uuid } = await manageableNode();
      const node = await inspect(uuid);
      expect(node.properties.product).toBe('Virtual Machine');
      expect((await api.get(`/v1/nodes/${uuid}/traits`)).body.traits).toEqual(['CUSTOM_IRONLESS_VENDOR']);

      // Without storage or PCIe resources: those keys are left out, the node is disk-less, the rule does not match.
      const bare = await manageableNode();
      bare.machine.setFaults({ missingResources: ['Storage', 'SimpleStorage', 'PCIeDevices'] });
      const inspected = await inspect(bare.uuid);
      expect([inspected.provision_state, inspected.last_error, inspected.properties.local_gb]).toEqual(['manageable', null, 0]);
      const inventory = (await api.get(`/v1/nodes/${bare.uuid}/inventory`)).body.inventory as Json;
      expect(Object.keys(inventory).sort()).toEqual(['boot', 'cpu', 'interfaces', 'memory', 'system_vendor']);
      expect((await api.get(`/v1/nodes/${bare.uuid}/traits`)).body.traits).toEqual([]);

      // A later inspection replaces the stored inventory.
      bare.machine.clearFaults();
      await inspect(bare.uuid);
      const again = (await api.get(`/v1/nodes/${bare.uuid}/inventory`)).body.inventory as Json;
      expect(again.disks).toEqual([{ name: 'sda', size: 100 * GIB }]);
    } finally {
      await api.request('DELETE', `/v1/inspection_rules/${created.body.uuid as string}`);
    }
  });
});
