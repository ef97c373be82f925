/**
 * The whole path of issue 6 on the local stack, with nothing faked but the hardware: a redfish node
 * on a virtual machine of the fleet, the virtual IPA agent booted from virtual media, the steps
 * machine waiting on the agent's heartbeats. Automated cleaning on provide, a direct deploy from an
 * image URL with a deploy template enabling an in-band step, every step in priority order in the
 * node's history, the image on the machine's disk, and undeploy cleaning it back to available.
 */
import type { LocalStack } from '../../local/stack';
import { type FleetStack, startFleetStack } from './helpers/fleet';
import { ApiClient } from './helpers/stack';

let fleet: FleetStack;
let stack: LocalStack;
let api: ApiClient;
const IMAGE = Buffer.from('a whole-disk image\n'.repeat(500));

beforeAll(async () => {
  fleet = await startFleetStack({ count: 2, prefix: 'e2e', image: IMAGE });
  stack = fleet.stack;
  api = new ApiClient(stack.url, '1.82');
}, 120_000);

afterAll(async () => {
  await fleet?.stop();
});

/** Give the node the redfish-graphical console and start it (the BMC's own console page). */
async function enableGraphicalConsole(uuid: string): Promise<void> {
  await api.unlocked(uuid);
  const graphical = await api.request('PATCH', `/v1/nodes/${uuid}`, [
    { op: 'replace', path: '/console_interface', value: 'redfish-graphical' },
  ]);
  expect(graphical.status).toBe(200);
  expect((await api.request('PUT', `/v1/nodes/${uuid}/states/console`, { enabled: true })).status).toBe(202);
  await api.until(uuid, (n) => n.console_enabled === true && n.reservation === null);
}

it('cleans, deploys with a template-enabled in-band step in priority order, and undeploys through the virtual agent', async () => {
  const node = (await api.get('/v1/nodes/e2e-0')).body;
  expect(node.deploy_interface).toBe('direct');
  const uuid = node.uuid as string;

  await api.provision(uuid, 'manage');
  await api.settle(uuid, ['manageable'], 60_000);
  await api.provision(uuid, 'provide');
  expect(await api.settle(uuid, ['available', 'clean failed'], 150_000)).toMatchObject({ provision_state: 'available', last_error: null });

  // An enabled console, as Ironic: it runs on through the deployment, is stopped by the tear-down and
  // stays enabled (to start again at the next deployment's end).
  const consoleOf = async () => (await api.get(`/v1/nodes/${uuid}/states/console`)).body;
  await enableGraphicalConsole(uuid);
  const consoleUrl = ((await consoleOf()).console_info as Record<string, unknown>).url;
  expect(consoleUrl).toMatch(/\/GraphicalConsole$/);

  // burnin_cpu is an in-band deploy step the agent offers disabled (priority 0); the template enables it.
  const template = await api.request('POST', '/v1/deploy_templates', {
    name: 'CUSTOM_BURNIN',
    steps: [{ interface: 'deploy', step: 'burnin_cpu', priority: 90, args: {} }],
  });
  expect(template.status).toBe(201);
  const patched = await api.request('PATCH', `/v1/nodes/${uuid}`, [
    { op: 'add', path: '/instance_info', value: { ...fleet.image, traits: ['CUSTOM_BURNIN'] } },
  ]);
  expect(patched.status).toBe(200);
  // A configdrive as JSON: the conductor builds the ISO image the agent writes to its partition.
  await api.provision(uuid, 'active', { configdrive: { meta_data: { hostname: 'e2e-host' }, user_data: '#cloud-config\n' } });
  expect(await api.settle(uuid, ['active', 'deploy failed'], 300_000)).toMatchObject({
    provision_state: 'active',
    last_error: null,
    power_state: 'power on',
  });
  const configdrive = stack.fleet?.machine('e2e-0').disk?.configdrive;
  expect(configdrive?.label).toBe('config-2');
  expect(JSON.parse(configdrive?.files['openstack/latest/meta_data.json'] ?? '{}')).toEqual({ hostname: 'e2e-host', uuid, name: 'e2e-0' });
  expect(configdrive?.files['openstack/latest/user_data']).toBe('#cloud-config\n');
  // A whole-disk image booting in UEFI mode gets its boot entry from the agent (install_bootloader).
  expect(stack.fleet?.machine('e2e-0').disk).toMatchObject({
    imageId: 'disk.img',
    size: IMAGE.length,
    bootloader: { rootUuid: expect.stringMatching(/^0x/), bootMode: 'uefi' },
  });
  expect(stack.fleet?.machine('e2e-0').disk?.partitions).toBeUndefined();

  const history = (await api.get(`/v1/nodes/${uuid}/history?detail=true`)).body.history as { event: string; event_type: string }[];
  const deploySteps = history.filter((e) => e.event_type === 'deploying').map((e) => e.event.replace(/ \(priority \d+\) started$/, ''));
  expect(deploySteps).toEqual([
    'Deploy step deploy.deploy',
    'Deploy step deploy.burnin_cpu',
    'Deploy step deploy.write_image',
    'Deploy step deploy.prepare_instance_boot',
    'Deploy step deploy.tear_down_agent',
    'Deploy step deploy.switch_to_tenant_network',
    'Deploy step deploy.boot_instance',
  ]);

  expect(await consoleOf()).toEqual({ console_enabled: true, console_info: { type: 'vnc', url: consoleUrl } });

  await api.provision(uuid, 'deleted');
  expect(await api.settle(uuid, ['available', 'clean failed'], 150_000)).toMatchObject({
    provision_state: 'available',
    last_error: null,
    console_enabled: true,
  });
  expect(await consoleOf()).toEqual({ console_enabled: true, console_info: { type: 'vnc', url: null } });
}, 600_000);

it('deploys a partition image: the agent partitions the disk and installs the bootloader on its root partition', async () => {
  const uuid = (await api.get('/v1/nodes/e2e-1')).body.uuid as string;
  await api.provision(uuid, 'manage');
  await api.settle(uuid, ['manageable'], 60_000);
  await api.provision(uuid, 'provide');
  expect(await api.settle(uuid, ['available', 'clean failed'], 150_000)).toMatchObject({ provision_state: 'available' });
  // A console enabled before the deploy is started again as it ends (Ironic's _start_console_in_deploy);
  // a BMC that offers none then does not fail the deploy: last_error says so and the console is off.
  await enableGraphicalConsole(uuid);
  const info = { ...fleet.image, image_type: 'partition', swap_mb: 256 };
  await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/instance_info', value: info }]);
  // Ironic's parse_instance_info: a partition image needs its root size.
  await api.provision(uuid, 'active');
  const refused = await api.settle(uuid, ['active', 'deploy failed'], 120_000);
  expect(refused.last_error).toBe(
    "Failed to prepare to deploy: Some parameters were missing in node's instance_info. Missing are: ['root_gb']",
  );

  stack.fleet!.machine('e2e-1').setFaults({ consoleUnavailable: true });
  await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/instance_info/root_gb', value: 10 }]);
  await api.provision(uuid, 'active', { configdrive: { network_data: { links: [] } } });
  const node = await api.settle(uuid, ['active', 'deploy failed'], 300_000);
  stack.fleet!.machine('e2e-1').clearFaults();
  expect(node).toMatchObject({
    provision_state: 'active',
    console_enabled: false,
    last_error:
      `Failed to start console while deploying the node ${uuid}: Redfish exception occurred. Error: ` +
      `The BMC of node ${uuid} offers no graphical console (GraphicalConsole is not enabled for KVMIP)..`,
  });
  expect(node.instance_info).toMatchObject({ image_type: 'partition', root_mb: 10240, swap_mb: 256 });
  const disk = stack.fleet?.machine('e2e-1').disk;
  // The config drive gets a partition of its own, before the root partition, as IPA lays it out.
  expect(disk?.partitions?.map((p) => p.role)).toEqual(['efi system partition', 'swap', 'configdrive', 'root']);
  expect(disk?.configdrive?.files['openstack/latest/network_data.json']).toBe('{"links": []}');
  const root = disk?.partitions?.find((p) => p.role === 'root');
  expect(disk?.bootloader).toEqual({
    rootUuid: root?.uuid,
    efiSystemPartUuid: disk?.partitions?.[0]?.uuid,
    bootMode: 'uefi',
  });
  expect(node.driver_internal_info.root_uuid_or_disk_id).toBe(root?.uuid);
  expect(stack.fleet?.machine('e2e-1').boots.at(-1)?.device).toBe('Hdd');
}, 600_000);
