/**
 * Fast track (Ironic's `[deploy]fast_track`) on the local stack with the virtual agent: automated
 * cleaning leaves the agent running, and the deploy that follows uses it — no second ramdisk boot —
 * then the agent powers the machine off itself (standby.power_off) before the instance boots.
 */
import { createHash } from 'node:crypto';
import type { LocalStack } from '../../local/stack';
import { ImageServer } from '../unit/fleet/helpers/fake-ironic';
import { ApiClient, startStack } from './helpers/stack';

let stack: LocalStack;
let api: ApiClient;
let images: ImageServer;
const IMAGE = Buffer.from('a fast-tracked image\n'.repeat(300));

beforeAll(async () => {
  stack = await startStack({
    fleet: { count: 1, prefix: 'ft' },
    settings: { heartbeatTimeoutSeconds: 20, callbackTimeoutSeconds: 300, fastTrack: true, postDeployPowerStateRetryIntervalSeconds: 1 },
  });
  api = new ApiClient(stack.url, '1.82');
  images = await new ImageServer().start();
  images.images.set('/disk.img', IMAGE);
}, 120_000);

afterAll(async () => {
  await images?.stop();
  await stack?.stop();
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

  const md5 = createHash('md5').update(IMAGE).digest('hex');
  await api.request('PATCH', `/v1/nodes/${uuid}`, [
    { op: 'add', path: '/instance_info', value: { image_source: `${images.url}/disk.img`, image_checksum: md5 } },
  ]);
  await api.provision(uuid, 'active');
  expect(await api.settle(uuid, ['active', 'deploy failed'], 120_000)).toMatchObject({ provision_state: 'active', last_error: null });
  expect(machine.disk).toMatchObject({ imageId: 'disk.img', size: IMAGE.length });
  // One boot only since cleaning: the instance, from the disk. The ramdisk was not booted again.
  expect(machine.boots.slice(bootsBefore).map((b) => b.device)).toEqual(['Hdd']);
}, 300_000);
