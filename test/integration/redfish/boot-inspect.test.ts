/**
 * The redfish-virtual-media boot interface and redfish inspection against virtual BMCs over HTTP,
 * with the inspection hooks it runs (Ironic master's `[redfish]inspection_hooks`).
 */
import { randomUUID } from 'node:crypto';
import { redfishInspectionConfig } from '../../../functions/drivers/redfish/config';
import { createRedfishInterfaces } from '../../../functions/drivers/redfish/index';
import { Port } from '../../../functions/objects/port';
import { Fleet } from '../../../local/fleet/fleet';
import { TEST_CONFIG, failure, redfish, redfishNode, taskFor } from './helpers';

let fleet: Fleet;

beforeAll(async () => {
  fleet = await new Fleet({ prefix: 'bi' }).start();
});

afterAll(async () => {
  await fleet?.stop();
});

describe('redfish-virtual-media boot', () => {
  it('powers off, inserts the deploy ISO into the virtual CD and boots from it once', async () => {
    const machine = fleet.add();
    const node = redfishNode(fleet, machine, { provision_state: 'deploying' });
    const task = taskFor(node);
    await redfish.power.setPowerState(task, 'power on');
    machine.insertMedia('Cd', 'http://old.example/stale.iso');

    await redfish.boot.validate(task);
    await redfish.boot.prepareRamdisk(task, {});
    expect(machine.powerState).toBe('Off');
    expect(node.power_state).toBe('power off');
    expect(machine.media.Cd).toEqual({ inserted: true, image: node.driver_info.deploy_iso, writeProtected: true });
    expect(machine.boot).toMatchObject({ target: 'Cd', enabled: 'Once' });

    // What the machine boots when the conductor powers it on: the ISO, from the virtual CD, which
    // starts whatever the fleet runs on machines booting it (the virtual ramdisk agent, later).
    const guests: string[] = [];
    let stopped = 0;
    fleet.setGuestFactory((event) => {
      if (event.image === undefined) return undefined;
      guests.push(`${event.machine.id} ${event.image}`);
      return { stop: () => void stopped++ };
    });
    const booted = new Promise((resolve) => machine.once('powerOn', resolve));
    await redfish.power.setPowerState(task, 'power on');
    await expect(booted).resolves.toMatchObject({ device: 'Cd', image: node.driver_info.deploy_iso, override: true });
    expect(guests).toEqual([`${machine.id} ${node.driver_info.deploy_iso}`]);
    const iso = await fetch(String(node.driver_info.deploy_iso));
    expect([iso.status, await iso.text()]).toEqual([200, expect.stringContaining('Ironless virtual agent ISO')]);

    await redfish.boot.cleanUpRamdisk(task);
    expect(machine.media.Cd.inserted).toBe(false);

    await redfish.boot.prepareInstance(task);
    expect(machine.boot).toMatchObject({ target: 'Hdd', enabled: 'Continuous' });
    await redfish.power.reboot(task);
    expect(machine.boots.at(-1)).toMatchObject({ device: 'Hdd', image: undefined });
    // The reboot stopped the agent; the disk boot started nothing.
    expect([guests.length, stopped]).toEqual([1, 1]);
    fleet.setGuestFactory(undefined);

    machine.insertMedia('Cd', 'http://x.example/instance.iso');
    await redfish.boot.cleanUpInstance(task);
    expect(machine.media.Cd.inserted).toBe(false);
  });

  it('makes the ramdisk boot persistent with force_persistent_boot_device Always, and the disk boot one-time with Never', async () => {
    const always = fleet.add();
    const alwaysNode = redfishNode(fleet, always, { provision_state: 'deploying' });
    alwaysNode.driver_info = { ...alwaysNode.driver_info, force_persistent_boot_device: 'Always' };
    await redfish.boot.prepareRamdisk(taskFor(alwaysNode), {});
    expect(always.boot).toMatchObject({ target: 'Cd', enabled: 'Continuous' });

    const never = fleet.add();
    const neverNode = redfishNode(fleet, never, { provision_state: 'deploying' });
    neverNode.driver_info = { ...neverNode.driver_info, force_persistent_boot_device: 'Never' };
    await redfish.boot.prepareInstance(taskFor(neverNode));
    expect(never.boot).toMatchObject({ target: 'Hdd', enabled: 'Once' });
  });

  it('leaves the node alone outside deploy, clean, rescue and inspect (e.g. a takeover)', async () => {
    const machine = fleet.add();
    const task = taskFor(redfishNode(fleet, machine, { provision_state: 'active' }));
    await redfish.power.setPowerState(task, 'power on');
    await redfish.boot.prepareRamdisk(task, {});
    expect(machine.powerState).toBe('On');
    expect(machine.media.Cd.inserted).toBe(false);
  });

  it("validates driver_info with Ironic's messages", async () => {
    const machine = fleet.add();
    const { deploy_iso: _iso, ...withoutIso } = fleet.driverInfo(machine);
    const node = redfishNode(fleet, machine, { driver_info: withoutIso });
    const missing = await failure(() => redfish.boot.validate(taskFor(node)));
    expect(missing.error.message).toBe(
      "Error validating Redfish virtual media. Some parameters were missing in node's driver_info. Missing are: ['deploy_kernel', 'deploy_ramdisk']",
    );
    node.driver_info = { ...withoutIso, deploy_kernel: 'http://k', deploy_ramdisk: 'http://r' };
    const kernel = await failure(() => redfish.boot.validate(taskFor(node)));
    // Building the ISO needs the EFI system partition image (this config names no default and no bucket).
    expect(kernel.error.message).toContain("Missing are: ['bootloader']");
    node.driver_info = { ...withoutIso, deploy_kernel: 'http://k', deploy_ramdisk: 'http://r', bootloader: 'http://e' };
    const bucket = await failure(() => redfish.boot.validate(taskFor(node)));
    expect(bucket.error.message).toContain('this deployment has no boot ISO bucket');
    node.driver_info = { ...withoutIso, redfish_deploy_iso: 'http://legacy.example/ipa.iso' };
    await expect(redfish.boot.validate(taskFor(node))).resolves.toBeUndefined();
  });
});

describe('redfish inspection', () => {
  it('finds memory, the local disk and the boot mode, then runs the hooks: cpu_arch and a port per NIC', async () => {
    const machine = fleet.add({
      processors: [
        { model: 'A', arch: 'x86', cores: 8, threads: 16 },
        { model: 'A', arch: 'x86', cores: 8, threads: 16 },
      ],
      memoryGiB: 64,
      // Ironic takes the smallest disk of at least 4 GiB, one GiB less.
      disks: [
        { name: 'sda', sizeBytes: 2 * 1024 ** 3 },
        { name: 'sdb', sizeBytes: 480 * 1024 ** 3 },
        { name: 'sdc', sizeBytes: 960 * 1024 ** 3 },
      ],
      nics: [
        { id: 'eno1', mac: '52:54:00:AA:BB:01', enabled: true, speedMbps: 25_000 },
        { id: 'eno2', mac: '52:54:00:aa:bb:02', enabled: false, speedMbps: 1_000 },
      ],
    });
    const node = redfishNode(fleet, machine, { properties: { vendor: 'ironless', capabilities: 'foo:bar' } });
    const ports: Port[] = [];
    const result = await redfish.inspect.inspectHardware(taskFor(node, ports));
    // As Ironic master: cpus is not set (the `cpus` hook sets it when listed); cpu_arch is the
    // architecture hook's, from the inventory; memory_mb and local_gb are numbers (21.4: strings).
    const properties = { vendor: 'ironless', memory_mb: 65536, local_gb: 479, capabilities: 'foo:bar,boot_mode:uefi', cpu_arch: 'x86_64' };
    expect(result.properties).toEqual(properties);
    expect(node.properties).toEqual(properties);
    expect(result.interfaces).toEqual([
      { name: 'eno1', mac_address: '52:54:00:aa:bb:01', enabled: true, speed_mbps: 25_000 },
      { name: 'eno2', mac_address: '52:54:00:aa:bb:02', enabled: false, speed_mbps: 1_000 },
    ]);
    // The ports hook made them, one per NIC of the inventory (the BMC reports no PXE NIC, so none
    // is marked PXE-booting): none are left for the conductor to create.
    expect(ports.map((p) => [p.address, p.pxe_enabled, p.extra])).toEqual([
      ['52:54:00:aa:bb:01', false, {}],
      ['52:54:00:aa:bb:02', false, {}],
    ]);
    expect(result.macs).toEqual([]);
    expect(result.pluginData).toMatchObject({
      macs: ['52:54:00:aa:bb:01', '52:54:00:aa:bb:02'],
      valid_interfaces: { eno1: { mac_address: '52:54:00:aa:bb:01', pxe_enabled: false }, eno2: { name: 'eno2' } },
      all_interfaces: { eno1: { name: 'eno1' }, eno2: { name: 'eno2' } },
      parsed_lldp: {},
    });
    // What inspection rules read, in the ramdisk's shape (Ironic master's redfish inventory).
    const disks = [
      { name: 'sda', size: 2 * 1024 ** 3 },
      { name: 'sdb', size: 480 * 1024 ** 3 },
      { name: 'sdc', size: 960 * 1024 ** 3 },
    ];
    expect(result.inventory).toEqual({
      memory: { physical_mb: 65536 },
      cpu: { count: 32, architecture: 'x86_64', model_name: 'A', frequency: 2400 },
      // Storage's drives (Ironic prefers them to SimpleStorage's devices), and its controller.
      disks,
      storage_controllers: [
        {
          id: '1',
          name: 'Storage Controller',
          storage_controllers: [
            {
              member_id: '0',
              name: 'Virtual SATA controller',
              raid_types: [],
              speed_gbps: 6,
              controller_protocols: ['PCIe'],
              device_protocols: ['SATA'],
              status: { health: 'OK', state: 'Enabled' },
            },
          ],
          drives: disks.map((disk, i) => ({
            ...disk,
            id: String(i),
            media_type: 'SSD',
            serial_number: expect.stringMatching(new RegExp(`^VD[0-9A-F]{10}${i}$`)),
            manufacturer: 'Ironless',
            model: 'Virtual SSD',
            revision: '1.0',
            protocol: 'SATA',
            status: { health: 'OK', state: 'Enabled' },
          })),
        },
      ],
      interfaces: [
        { mac_address: '52:54:00:aa:bb:01', name: 'eno1', speed_mbps: 25_000 },
        { mac_address: '52:54:00:aa:bb:02', name: 'eno2', speed_mbps: 1_000 },
      ],
      // A virtio NIC per NIC, then the virtio SCSI controller, in IPA's names.
      pci_devices: [
        ...[1, 2].map(() => ({
          class: 'NetworkController',
          product_id: '0x1041',
          vendor_id: '0x1af4',
          subsystem_id: '0x1100',
          subsystem_vendor_id: '0x1af4',
          revision: '0x01',
        })),
        {
          class: 'MassStorageController',
          product_id: '0x1048',
          vendor_id: '0x1af4',
          subsystem_id: '0x1100',
          subsystem_vendor_id: '0x1af4',
          revision: '0x01',
        },
      ],
      system_vendor: {
        product_name: 'Virtual Machine',
        serial_number: machine.uuid.slice(0, 8).toUpperCase(),
        manufacturer: 'Ironless',
        system_uuid: machine.uuid,
      },
      boot: { current_boot_mode: 'uefi' },
    });
  });

  it('keeps a boot_mode capability already set, and fails when an essential property cannot be found', async () => {
    const machine = fleet.add({ processors: [{ model: 'P', arch: 'x86', cores: 4, threads: 4 }] });
    const node = redfishNode(fleet, machine, { properties: { capabilities: 'boot_mode:bios' } });
    // Without the architecture hook nothing sets cpu_arch (Ironic master).
    const bare = createRedfishInterfaces({ ...TEST_CONFIG, inspection: redfishInspectionConfig({ REDFISH_HOOKS: 'validate-interfaces' }) });
    const { error } = await failure(() => bare.inspect.inspectHardware(taskFor(node)));
    expect(error.name).toBe('HardwareInspectionFailure');
    expect(error.message).toBe(
      `Failed to inspect hardware. Reason: Failed to discover the following properties: cpu_arch on node ${node.uuid}`,
    );
    // The failed inspection left the properties as they were.
    expect(node.properties).toEqual({ capabilities: 'boot_mode:bios' });

    node.properties = { capabilities: 'boot_mode:bios', cpu_arch: 'ppc64le' };
    const result = await bare.inspect.inspectHardware(taskFor(node));
    expect(result.properties).toEqual({ capabilities: 'boot_mode:bios', cpu_arch: 'ppc64le', memory_mb: 16384, local_gb: 99 });
  });

  it('runs the hooks listed (cpus over the BMC inventory) with the add_ports and keep_ports options', async () => {
    const machine = fleet.add({ memoryGiB: 8 });
    const node = redfishNode(fleet, machine);
    const hooks = '$default_inspection_hooks,cpus';
    const listed = createRedfishInterfaces({
      ...TEST_CONFIG,
      inspection: redfishInspectionConfig({ REDFISH_HOOKS: hooks, INSPECTOR_ADD_PORTS: 'disabled', INSPECTOR_KEEP_PORTS: 'present' }),
    });
    const stray = new Port({
      uuid: randomUUID(),
      node_uuid: node.uuid,
      address: '52:54:00:ff:ff:ff',
      created_at: new Date().toISOString(),
    });
    const ports = [stray];
    const result = await listed.inspect.inspectHardware(taskFor(node, ports));
    // The cpus hook adds the inventory's CPU count.
    expect(result.properties).toMatchObject({ memory_mb: 8192, cpus: machine.spec.processors.reduce((n, p) => n + p.threads, 0) });
    // add_ports disabled: no port made; keep_ports present: the port of a MAC the BMC does not report is gone.
    expect(ports).toEqual([]);
  });

  it('leaves out what the BMC lacks (no link) or cannot serve (404), and still finds local_gb from the other storage', async () => {
    const machine = fleet.add();
    const node = redfishNode(fleet, machine);
    // No Storage: the disks are SimpleStorage's devices, local_gb comes from them.
    machine.setFaults({ missingResources: ['Storage', 'PCIeDevices'] });
    let result = await redfish.inspect.inspectHardware(taskFor(node));
    expect(result.inventory).toMatchObject({ disks: [{ name: 'sda', size: 100 * 1024 ** 3 }] });
    expect(result.inventory).not.toHaveProperty('storage_controllers');
    expect(result.inventory).not.toHaveProperty('pci_devices');
    expect(result.properties.local_gb).toBe(99);

    // Storage linked but answering 404: left out (logged); the disks are SimpleStorage's again.
    machine.setFaults({ brokenResources: ['Storage', 'PCIeDevices'] });
    result = await redfish.inspect.inspectHardware(taskFor(node));
    expect(result.inventory).toMatchObject({ disks: [{ name: 'sda', size: 100 * 1024 ** 3 }] });
    expect(result.inventory).not.toHaveProperty('storage_controllers');
    expect(result.inventory).not.toHaveProperty('pci_devices');
    expect(result.properties.local_gb).toBe(99);

    // No storage at all: a disk-less node (local_gb 0), no disks key; the rest is still there.
    machine.setFaults({ missingResources: ['Storage', 'SimpleStorage'] });
    result = await redfish.inspect.inspectHardware(taskFor(node));
    expect(result.inventory).not.toHaveProperty('disks');
    expect(result.properties.local_gb).toBe(0);
    expect(Object.keys(result.inventory ?? {})).toEqual(['memory', 'cpu', 'interfaces', 'pci_devices', 'system_vendor', 'boot']);
    machine.clearFaults();
  });
});
