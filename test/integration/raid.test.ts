/**
 * RAID on the local stack, with nothing faked but the hardware: a redfish node of the fleet with
 * the agent RAID interface, its target set through the API (`PUT /v1/nodes/{node}/states/raid`),
 * built by the virtual agent in a manual clean and recorded on the node by the post-step hook,
 * deleted again, and applied by a deploy step given on the deploy request.
 */
import { type FleetStack, startFleetStack } from './helpers/fleet';
import { ApiClient, faultOf } from './helpers/stack';

let fleet: FleetStack;
let api: ApiClient;

const TARGET = {
  logical_disks: [
    { raid_level: '1', size_gb: 100, is_root_volume: true, controller: 'software' },
    { raid_level: '0', size_gb: 'MAX', controller: 'software' },
  ],
};

beforeAll(async () => {
  fleet = await startFleetStack({ count: 1, prefix: 'raid', image: Buffer.from('a whole-disk image\n'.repeat(100)) });
  api = new ApiClient(fleet.stack.url, '1.82');
}, 120_000);

afterAll(async () => {
  await fleet?.stop();
});

async function clean(uuid: string, steps: { interface: string; step: string }[]) {
  await api.provision(uuid, 'clean', { clean_steps: steps });
  return api.settle(uuid, ['manageable', 'clean failed'], 150_000);
}

it('builds the target RAID in a manual clean through the virtual agent, records it, deletes it, and applies one while deploying', async () => {
  const uuid = (await api.get('/v1/nodes/raid-0')).body.uuid as string;
  expect((await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'replace', path: '/raid_interface', value: 'agent' }])).status).toBe(200);
  await api.provision(uuid, 'manage');
  await api.settle(uuid, ['manageable'], 60_000);

  const refused = await api.request('PUT', `/v1/nodes/${uuid}/states/raid`, { logical_disks: [{ size_gb: 10 }] });
  expect([refused.status, faultOf(refused).faultstring]).toEqual([
    400,
    "RAID config validation error: 'raid_level' is a required property",
  ]);
  expect((await api.request('PUT', `/v1/nodes/${uuid}/states/raid`, TARGET)).status).toBe(204);
  expect((await api.get(`/v1/nodes/${uuid}`)).body).toMatchObject({ target_raid_config: TARGET, raid_config: {} });

  const built = await clean(uuid, [
    { interface: 'raid', step: 'delete_configuration' },
    { interface: 'raid', step: 'create_configuration' },
  ]);
  expect(built).toMatchObject({
    provision_state: 'manageable',
    last_error: null,
    raid_config: { logical_disks: TARGET.logical_disks },
    properties: { local_gb: 100, capabilities: expect.stringContaining('raid_level:1') },
  });
  expect(built.raid_config.last_updated).toEqual(expect.any(String));
  const history = (await api.get(`/v1/nodes/${uuid}/history`, { 'X-OpenStack-Ironic-API-Version': '1.78' })).body.history as {
    event: string;
  }[];
  expect(history.map((h) => h.event).filter((e) => e.startsWith('Clean step raid.'))).toEqual([
    'Clean step raid.delete_configuration (priority 0) started',
    'Clean step raid.create_configuration (priority 0) started',
  ]);

  expect(await clean(uuid, [{ interface: 'raid', step: 'delete_configuration' }])).toMatchObject({
    provision_state: 'manageable',
    raid_config: {},
  });

  await api.provision(uuid, 'provide');
  await api.settle(uuid, ['available', 'clean failed'], 150_000);
  await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/instance_info', value: fleet.image }]);
  const raid1 = { logical_disks: [{ raid_level: '1', size_gb: 50, is_root_volume: true, controller: 'software' }] };
  const deploy = await api.request(
    'PUT',
    `/v1/nodes/${uuid}/states/provision`,
    { target: 'active', deploy_steps: [{ interface: 'raid', step: 'apply_configuration', priority: 90, args: { raid_config: raid1 } }] },
    { 'X-OpenStack-Ironic-API-Version': '1.69' },
  );
  expect(deploy.status).toBe(202);
  expect(await api.settle(uuid, ['active', 'deploy failed'], 300_000)).toMatchObject({
    provision_state: 'active',
    last_error: null,
    raid_config: { logical_disks: raid1.logical_disks },
    properties: { local_gb: 50 },
  });
}, 600_000);
