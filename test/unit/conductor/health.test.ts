/**
 * Ironic's node_cache_health as the power sync calls it: a redfish node's health is read from its
 * system's Status.Health (a BMC on loopback here), and `[conductor]enable_health_monitoring =
 * False` leaves health alone without asking the BMC.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { cacheHealth as CacheHealth } from '../../../functions/conductor/flows/health';
import { makeConductorContext, makeNode } from '../helpers/builders';

let cacheHealth: typeof CacheHealth;
let bmc: Server;
let address: string;
const asked: string[] = [];

const deniedBefore = process.env.BMC_DENIED_HOSTS;

beforeAll(async () => {
  // The conductor refuses BMCs on loopback by default (hosts.ts); this one is on loopback.
  // The policy is read when the drivers load, so they are loaded after this.
  process.env.BMC_DENIED_HOSTS = '';
  ({ cacheHealth } = await import('../../../functions/conductor/flows/health'));
  bmc = createServer((req, res) => {
    asked.push(req.url ?? '');
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ '@odata.id': '/redfish/v1/Systems/1', Id: '1', Status: { Health: 'Critical', State: 'Enabled' } }));
  });
  await new Promise<void>((resolve) => bmc.listen(0, '127.0.0.1', resolve));
  address = `http://127.0.0.1:${(bmc.address() as AddressInfo).port}`;
});
afterAll(async () => {
  if (deniedBefore === undefined) delete process.env.BMC_DENIED_HOSTS;
  else process.env.BMC_DENIED_HOSTS = deniedBefore;
  await new Promise<void>((resolve) => bmc.close(() => resolve()));
});

/** A redfish node's interfaces (the builder's defaults are fake-hardware's). */
const REDFISH_INTERFACES = {
  bios_interface: 'no-bios',
  boot_interface: 'redfish-virtual-media',
  console_interface: 'no-console',
  deploy_interface: 'direct',
  firmware_interface: 'no-firmware',
  inspect_interface: 'no-inspect',
  management_interface: 'redfish',
  network_interface: 'noop',
  power_interface: 'redfish',
  raid_interface: 'no-raid',
  rescue_interface: 'no-rescue',
  storage_interface: 'noop',
  vendor_interface: 'no-vendor',
};

const redfishNode = () =>
  makeNode({
    driver: 'redfish',
    ...REDFISH_INTERFACES,
    driver_info: { redfish_address: address, redfish_system_id: '/redfish/v1/Systems/1', redfish_username: 'u', redfish_password: 'p' },
  });

it('caches the BMC health on the node when health monitoring is on (the default)', async () => {
  const node = redfishNode();
  expect(await cacheHealth(makeConductorContext(), node)).toBe(true);
  expect(node.health).toBe('Critical');
});

it('neither asks the BMC nor changes health when health monitoring is off', async () => {
  const node = redfishNode();
  asked.length = 0;
  expect(await cacheHealth(makeConductorContext({ enableHealthMonitoring: false }), node)).toBe(false);
  expect(node.health).toBeNull();
  expect(asked).toEqual([]);
});
