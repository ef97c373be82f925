/**
 * Ironic's inspection hooks on an IPA inventory: the properties they set (cpu_arch, memory_mb,
 * cpus, local_gb from the root disk chosen by the hints, the boot_mode capability), the ports they
 * create and keep, the order and dependencies they are validated in, and the failures they report.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { type InspectorConfig, loadInspectorConfig, parseHookList } from '../../../functions/common/config';
import { DatabaseUnavailable, HardwareInspectionFailure } from '../../../functions/common/errors';
import type { InspectionTask } from '../../../functions/drivers/base';
import { runInspectionHooks, validateInspectionHooks } from '../../../functions/drivers/inspector/hooks';
import { updatedCapabilities } from '../../../functions/drivers/inspector/hooks-basic';
import { Port } from '../../../functions/objects/port';
import { makeNode } from '../helpers/builders';

const GIB = 1024 ** 3;
const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
const CONFIG: InspectorConfig = loadInspectorConfig({});

function inventory(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    interfaces: [
      { name: 'eth0', mac_address: '52:54:00:AA:00:01', ipv4_address: '10.0.0.5', ipv6_address: null },
      { name: 'eth1', mac_address: '52:54:00:aa:00:02', ipv4_address: null, ipv6_address: 'fd00::5%eth1' },
      { name: 'lo', mac_address: '00:00:00:00:00:00', ipv4_address: '127.0.0.1' },
      { name: 'ib0', mac_address: 'not-a-mac' },
    ],
    cpu: { model_name: 'x', count: 16, architecture: 'x86_64', flags: [] },
    memory: { total: 17_000_000_000, physical_mb: 16384 },
    disks: [
      { name: '/dev/sda', size: 2 * GIB, model: 'tiny', rotational: false },
      { name: '/dev/sdb', size: 500 * GIB, model: 'Big Disk', rotational: true, serial: 'S1' },
      { name: '/dev/sdc', size: 100 * GIB, model: 'Fast Disk', rotational: false, serial: 'S2' },
    ],
    boot: { current_boot_mode: 'uefi', pxe_interface: null },
    ...overrides,
  };
}

/** A task whose ports live in memory: `ports` are the node's, `taken` addresses belong to other nodes. */
function taskFor(nodeOverrides: Parameters<typeof makeNode>[0] = {}, existing: Partial<Port>[] = [], taken: string[] = []) {
  const node = makeNode(nodeOverrides);
  const ports = existing.map((p, i) => new Port({ uuid: `00000000-0000-4000-8000-00000000000${i}`, node_uuid: node.uuid, ...p }));
  const destroyed: string[] = [];
  const task: InspectionTask = {
    node,
    log,
    ports: {
      list: async () => [...ports],
      create: async (p) => {
        if (taken.includes(p.address) || ports.some((q) => q.address === p.address)) return false;
        ports.push(new Port({ uuid: `10000000-0000-4000-8000-00000000000${ports.length}`, node_uuid: node.uuid, ...p }));
        return true;
      },
      save: async () => {},
      destroy: async (port) => {
        destroyed.push(port.address ?? '');
        ports.splice(ports.indexOf(port), 1);
      },
    },
  };
  return { task, node, ports, destroyed };
}

const DEFAULT_HOOKS = validateInspectionHooks(CONFIG.hooks);
/** What an operator lists to have the basic properties set too (not run by default, as in Ironic). */
const PROPERTY_HOOKS = validateInspectionHooks(parseHookList('$default_hooks,memory,cpus,root-device,boot-mode'));

describe('the default hooks', () => {
  it("are Ironic's $default_hooks: cpu_arch and ports, and neither memory_mb, cpus, local_gb nor the boot mode", async () => {
    expect(CONFIG.hooks).toEqual(['ramdisk-error', 'validate-interfaces', 'ports', 'architecture']);
    const { task, node, ports } = taskFor({ properties: { capabilities: 'boot_mode:bios,foo:bar', vendor: 'x' } });
    const data: Record<string, unknown> = { root_disk: { name: '/dev/sdc', size: 100 * GIB } };
    await runInspectionHooks(task, inventory(), data, DEFAULT_HOOKS, CONFIG);
    expect(node.properties).toEqual({ vendor: 'x', capabilities: 'boot_mode:bios,foo:bar', cpu_arch: 'x86_64' });
    expect(data).not.toHaveProperty('local_gb');
    expect(ports.map((p) => p.address)).toEqual(['52:54:00:aa:00:01', '52:54:00:aa:00:02']);
  });
});

describe('the property hooks, when listed', () => {
  it('set cpu_arch, memory_mb, cpus, local_gb and the boot_mode capability', async () => {
    const { task, node } = taskFor({ properties: { capabilities: 'boot_mode:bios,foo:bar', vendor: 'x' } });
    const data: Record<string, unknown> = { root_disk: { name: '/dev/sdc', size: 100 * GIB } };
    await runInspectionHooks(task, inventory(), data, PROPERTY_HOOKS, CONFIG);
    expect(node.properties).toEqual({
      vendor: 'x',
      cpu_arch: 'x86_64',
      memory_mb: 16384,
      cpus: 16,
      // 100 GiB, one left for partitioning (Ironic's disk_partitioning_spacing).
      local_gb: 99,
      capabilities: 'boot_mode:uefi,foo:bar',
    });
    expect(data.local_gb).toBe(99);
  });

  it('find the root disk by the hints, over the one the ramdisk guessed', async () => {
    const { task, node } = taskFor({ properties: { root_device: { model: 'big disk' } } });
    const data: Record<string, unknown> = { root_disk: { name: '/dev/sdc', size: 100 * GIB } };
    await runInspectionHooks(task, inventory(), data, PROPERTY_HOOKS, CONFIG);
    expect(node.properties.local_gb).toBe(499);
    expect((data.root_disk as { name: string }).name).toBe('/dev/sdb');
  });

  it('record a diskless node as local_gb 0', async () => {
    const { task, node } = taskFor();
    await runInspectionHooks(task, inventory(), {}, PROPERTY_HOOKS, CONFIG);
    expect(node.properties.local_gb).toBe(0);
  });
});

describe('the ports hook', () => {
  it('passes an unreachable port store on as it is, for the conductor to retry the delivery', async () => {
    const { task } = taskFor();
    const unavailable = new DatabaseUnavailable('throttled', false);
    task.ports.create = () => Promise.reject(unavailable);
    await expect(runInspectionHooks(task, inventory(), {}, DEFAULT_HOOKS, CONFIG)).rejects.toBe(unavailable);
  });

  it('adds a port per valid NIC (not loopback, a valid MAC), pxe_enabled as the inventory says, and records the MACs', async () => {
    const { task, ports } = taskFor({}, [], ['52:54:00:aa:00:02']);
    const data: Record<string, unknown> = {};
    await runInspectionHooks(task, inventory(), data, DEFAULT_HOOKS, CONFIG);
    // Without a PXE interface in the inventory every NIC qualifies, none of them PXE-booted;
    // eth1's address belongs to another node: not added.
    expect(ports.map((p) => [p.address, p.pxe_enabled])).toEqual([['52:54:00:aa:00:01', false]]);
    expect(data.macs).toEqual(['52:54:00:aa:00:01', '52:54:00:aa:00:02']);
    expect(Object.keys(data.all_interfaces as object)).toEqual(['eth0', 'eth1', 'lo']);
    expect((data.all_interfaces as Record<string, { ipv6_address: string }>).eth1?.ipv6_address).toBe('fd00::5');
  });

  it('with a PXE interface (add_ports pxe) adds only that one, and sets pxe_enabled on the ports to match', async () => {
    const { task, ports } = taskFor({}, [{ address: '52:54:00:aa:00:02', pxe_enabled: true }]);
    await runInspectionHooks(task, inventory({ boot: { pxe_interface: '01-52-54-00-aa-00-01' } }), {}, DEFAULT_HOOKS, CONFIG);
    expect(ports.map((p) => [p.address, p.pxe_enabled]).sort()).toEqual([
      ['52:54:00:aa:00:01', true],
      ['52:54:00:aa:00:02', false],
    ]);
  });

  it('keep_ports present deletes ports whose MAC the inventory does not have; all keeps them', async () => {
    const stray = { address: '52:54:00:ff:ff:ff' };
    const kept = taskFor({}, [stray]);
    await runInspectionHooks(kept.task, inventory(), {}, DEFAULT_HOOKS, CONFIG);
    expect(kept.destroyed).toEqual([]);
    const present = taskFor({}, [stray]);
    await runInspectionHooks(present.task, inventory(), {}, DEFAULT_HOOKS, { ...CONFIG, keepPorts: 'present' });
    expect(present.destroyed).toEqual(['52:54:00:ff:ff:ff']);
  });

  it('add_ports disabled adds none; active only NICs with an address', async () => {
    const disabled = taskFor();
    await runInspectionHooks(disabled.task, inventory(), {}, DEFAULT_HOOKS, { ...CONFIG, addPorts: 'disabled' });
    expect(disabled.ports).toEqual([]);
    const active = taskFor();
    const data: Record<string, unknown> = {};
    await runInspectionHooks(active.task, inventory(), data, DEFAULT_HOOKS, { ...CONFIG, addPorts: 'active' });
    expect(data.macs).toEqual(['52:54:00:aa:00:01', '52:54:00:aa:00:02']);
  });
});

describe('failures', () => {
  it('report every preprocess failure together: the ramdisk error and invalid interfaces', async () => {
    const { task, node } = taskFor();
    const run = runInspectionHooks(
      task,
      inventory({ interfaces: [{ name: 'lo', mac_address: '00:00:00:00:00:00', ipv4_address: '127.0.0.1' }] }),
      { error: 'disk on fire' },
      DEFAULT_HOOKS,
      CONFIG,
    );
    await expect(run).rejects.toThrow(HardwareInspectionFailure);
    await expect(run).rejects.toThrow(
      `Failed to inspect hardware. Reason: The following failures happened while running preprocess hooks for node ${node.uuid}:\n` +
        'Error in preprocess hook ramdisk-error: Failed to inspect hardware. Reason: Ramdisk reported error: disk on fire\n' +
        `Unexpected exception InvalidNodeInventory during preprocess hook validate-interfaces: Inventory for node ${node.uuid} is invalid: no network interfaces match the configuration (add_ports set to "pxe")`,
    );
    expect(node.properties).toEqual({});
  });

  it('wrap an unexpected failure of a main part, and let HardwareInspectionFailure through', async () => {
    const { task, node } = taskFor();
    await expect(runInspectionHooks(task, inventory({ cpu: { count: 2 } }), {}, DEFAULT_HOOKS, CONFIG)).rejects.toThrow(
      `Failed to inspect hardware. Reason: Unexpected exception InvalidNodeInventory during processing for node: ${node.uuid}. Error: Inventory for node ${node.uuid} is invalid: Inventory has malformed or missing CPU architecture information: {'count': 2} for node ${node.uuid}.`,
    );
    const hinted = taskFor({ properties: { root_device: { serial: 'nope' } } });
    await expect(runInspectionHooks(hinted.task, inventory(), {}, PROPERTY_HOOKS, CONFIG)).rejects.toThrow(
      `Failed to inspect hardware. Reason: No disks satisfied root device hints for node ${hinted.node.uuid}`,
    );
    const invalid = taskFor({ properties: { root_device: { colour: 'red' } } });
    await expect(runInspectionHooks(invalid.task, inventory(), {}, PROPERTY_HOOKS, CONFIG)).rejects.toThrow(
      'because they failed to validate. Error: The hints "colour" are invalid.',
    );
  });
});

describe('validateInspectionHooks', () => {
  it('expands $default_hooks and keeps the configured order', () => {
    expect(parseHookList('cpus, $default_hooks ,memory').map((h) => h)).toEqual([
      'cpus',
      'ramdisk-error',
      'validate-interfaces',
      'ports',
      'architecture',
      'memory',
    ]);
  });

  it("refuses unknown hooks and a hook before the one it depends on, with Ironic's messages", () => {
    expect(() => validateInspectionHooks(['ports', 'validate-interfaces'])).toThrow(
      'Some hooks failed to load due to dependency problems: Hook ports requires these missing hooks to be enabled before it: validate-interfaces',
    );
    expect(() => validateInspectionHooks(['memory', 'lldp', 'pci'])).toThrow(
      'The following hook(s) are missing or failed to load: lldp, pci',
    );
  });
});

describe('updatedCapabilities', () => {
  it('adds or replaces keys and refuses a malformed string', () => {
    expect(updatedCapabilities(undefined, { boot_mode: 'uefi' })).toBe('boot_mode:uefi');
    expect(updatedCapabilities('a:1,boot_mode:bios', { boot_mode: 'uefi' })).toBe('a:1,boot_mode:uefi');
    expect(() => updatedCapabilities('a:1,b', { boot_mode: 'uefi' })).toThrow("Invalid capabilities string 'a:1,b'.");
  });
});
