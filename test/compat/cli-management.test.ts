/**
 * The real `openstack baremetal` client against a local stack for node management and VIFs:
 * boot device show/set (+supported), boot mode and secure boot, inject NMI, the target RAID
 * configuration and the logical disk properties, and vif attach/list/detach, as an operator types
 * them. Needs the client installed (`.ci/run`).
 */
import type { LocalStack } from '../../local/stack';
import { startStack } from '../integration/helpers/stack';
import { BaremetalError, baremetalClient } from './helpers/openstack';

let stack: LocalStack;
const baremetal = baremetalClient(() => stack.url);

/** Run a command expected to fail; its error output. */
async function refused(...args: string[]): Promise<string> {
  try {
    await baremetal(...args);
  } catch (err) {
    if (err instanceof BaremetalError) return err.stderr;
    throw err;
  }
  throw new Error(`openstack baremetal ${args.join(' ')} succeeded`);
}

beforeAll(async () => {
  stack = await startStack();
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

it('boot device, boot mode, secure boot and NMI through the client', async () => {
  await baremetal('node', 'create', '--driver', 'fake-hardware', '--name', 'cli-m');
  expect(JSON.parse(await baremetal('node', 'boot', 'device', 'show', 'cli-m', '-f', 'json'))).toEqual({
    boot_device: 'pxe',
    persistent: false,
  });
  // The client joins the list into a string for display.
  expect(JSON.parse(await baremetal('node', 'boot', 'device', 'show', '--supported', 'cli-m', '-f', 'json'))).toEqual({
    supported_boot_devices: 'pxe',
  });
  await baremetal('node', 'boot', 'device', 'set', 'cli-m', 'pxe', '--persistent');
  expect(await refused('node', 'boot', 'device', 'set', 'cli-m', 'disk')).toContain('Invalid boot device disk specified.');

  expect(await refused('node', 'inject', 'nmi', 'cli-m')).toContain(
    'Driver fake-hardware does not support inject_nmi (disabled or not implemented).',
  );

  await baremetal('node', 'boot', 'mode', 'set', 'cli-m', 'uefi');
  let lastError = '';
  for (let i = 0; i < 100 && lastError === ''; i++) {
    lastError = await baremetal('node', 'show', 'cli-m', '-f', 'value', '-c', 'last_error');
    if (lastError === 'None') lastError = '';
    if (lastError === '') await new Promise((r) => setTimeout(r, 100));
  }
  expect(lastError).toBe(
    "Failed to change boot mode to 'uefi: Driver fake-hardware does not support set_boot_mode (disabled or not implemented).",
  );
  await baremetal('node', 'secure', 'boot', 'off', 'cli-m');
}, 120_000);

it('vif attach, list and detach through the client', async () => {
  await baremetal('node', 'create', '--driver', 'fake-hardware', '--name', 'cli-v');
  await baremetal('node', 'vif', 'attach', 'cli-v', 'vif-1');
  // The noop network interface records nothing.
  expect(await baremetal('node', 'vif', 'list', 'cli-v', '-f', 'value')).toBe('');
  await baremetal('node', 'vif', 'detach', 'cli-v', 'vif-1');
  expect(await refused('node', 'vif', 'attach', 'cli-v', 'bad id')).toContain('Expected UUID or name for id: bad id');
}, 120_000);

it('target RAID configuration and the logical disk properties through the client', async () => {
  await baremetal('node', 'create', '--driver', 'fake-hardware', '--name', 'cli-r');
  const target = { logical_disks: [{ raid_level: '1', size_gb: 100, is_root_volume: true }] };
  await baremetal('node', 'set', 'cli-r', '--target-raid-config', JSON.stringify(target));
  expect(JSON.parse(await baremetal('node', 'show', 'cli-r', '--fields', 'target_raid_config', 'raid_config', '-f', 'json'))).toEqual({
    target_raid_config: target,
    raid_config: {},
  });
  expect(await refused('node', 'set', 'cli-r', '--target-raid-config', '{"logical_disks": [{"size_gb": 10}]}')).toContain(
    "RAID config validation error: 'raid_level' is a required property",
  );
  const properties = JSON.parse(await baremetal('driver', 'raid', 'property', 'list', 'fake-hardware', '-f', 'json')) as {
    Property: string;
    Description: string;
  }[];
  expect(properties.map((p) => p.Property)).toEqual(expect.arrayContaining(['raid_level', 'size_gb', 'physical_disks']));
  expect(properties.find((p) => p.Property === 'raid_level')?.Description).toMatch(/^RAID level for the logical disk/);
}, 120_000);
