/**
 * Fast track (Ironic's `[deploy]fast_track`) on the local stack with the virtual agent: automated
 * cleaning leaves the agent running, and the deploy that follows uses it — no second ramdisk boot —
 * then the agent powers the machine off itself (standby.power_off) before the instance boots.
 */
import type { LocalStack } from '../../local/stack';
import { type FleetStack, startFleetStack } from './helpers/fleet';
import { ApiClient } from './helpers/stack';

let fleet: FleetStack;
let stack: LocalStack;
let api: ApiClient;
const IMAGE = Buffer.from('a fast-tracked image\n'.repeat(300));

beforeAll(async () => {
  fleet = await startFleetStack({ count: 1, prefix: 'ft', image: IMAGE, settings: { fastTrack: true } });
  stack = fleet.stack;
  api = new ApiClient(stack.url, '1.82');
}, 120_000);

afterAll(async () => {
  await fleet?.stop();
});

it('deploys on the agent cleaning left running, without booting the ramdisk again', async () => {
  const uuid = (await api.get('/v1/nodes/ft-0')).body.uuid as string;
  await api.provision(uuid, 'manage');
  await api.settle(uuid, ['manageable'], 60_000);
  await api.provision(uuid, 'provide');
  expect(await api.settle(uuid, ['available', 'clean failed'], 150_000)).toMatchObject({
    provision_state: 'available',
    power_state: 'power on', // fast track: cleaning did not power the agent off
  });
  const machine = stack.fleet!.machine('ft-0');
  const bootsBefore = machine.boots.length;
  expect(machine.boots.at(-1)).toMatchObject({ device: 'Cd' });

  await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/instance_info', value: fleet.image }]);
  await api.provision(uuid, 'active');
  expect(await api.settle(uuid, ['active', 'deploy failed'], 120_000)).toMatchObject({ provision_state: 'active', last_error: null });
  expect(machine.disk).toMatchObject({ imageId: 'disk.img', size: IMAGE.length });
  // One boot only since cleaning: the instance, from the disk. The ramdisk was not booted again.
  expect(machine.boots.slice(bootsBefore).map((b) => b.device)).toEqual(['Hdd']);
}, 300_000);
