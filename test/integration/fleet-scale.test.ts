/**
 * Issue 6 at scale, on real parts: 200 virtual machines of the fleet, each booting the virtual IPA
 * agent from virtual media when redfish reboots it, deploy at once through the steps machine — and
 * all of them reach `active` with the image on their disk. One list request per poll, so the test's
 * own polling stays a small part of the load.
 */
import { createHash } from 'node:crypto';
import type { LocalStack } from '../../local/stack';
import { ImageServer } from '../unit/fleet/helpers/fake-ironic';
import { FAST_BMC_POLLS } from './helpers/fleet';
import { ApiClient, startStack } from './helpers/stack';

const COUNT = 200;
let stack: LocalStack;
let api: ApiClient;
let images: ImageServer;
const IMAGE = Buffer.from('a whole-disk image for many machines\n'.repeat(100));

beforeAll(async () => {
  stack = await startStack({
    // The agents' own pace shortened (heartbeats every 10 s, not 36–72 s; one 1 s after a command
    // finished, not 5 s; lookups retried within 5 s, not 10 s), so that the deploys wait on the stack.
    fleet: {
      count: COUNT,
      prefix: 'scale',
      agentTimings: { heartbeatIntervalMs: 10_000, forcedHeartbeatGapMs: 1000, lookupMaxIntervalMs: 5000 },
    },
    functionEnv: FAST_BMC_POLLS,
    settings: {
      heartbeatTimeoutSeconds: 120,
      callbackTimeoutSeconds: 900,
      automatedClean: false,
      postDeployPowerStateRetryIntervalSeconds: 1,
    },
  });
  api = new ApiClient(stack.url, '1.82');
  images = await new ImageServer().start();
  images.images.set('/disk.img', IMAGE);
}, 300_000);

afterAll(async () => {
  await images?.stop();
  await stack?.stop();
});

/** Every fleet node's provision state (and last_error), by UUID, in one request. */
async function states(): Promise<Map<string, { state: string; error: unknown }>> {
  const reply = await api.get('/v1/nodes?fields=uuid,name,provision_state,last_error&limit=1000');
  const nodes = reply.body.nodes as { uuid: string; name: string; provision_state: string; last_error: unknown }[];
  return new Map(nodes.filter((n) => n.name.startsWith('scale-')).map((n) => [n.uuid, { state: n.provision_state, error: n.last_error }]));
}

/** Wait until no node is in a transient state any more; the states they ended in, counted. */
async function settleAll(done: readonly string[], timeoutMs: number): Promise<Map<string, { state: string; error: unknown }>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = await states();
    const pending = [...now.values()].filter((n) => !done.includes(n.state) && !n.state.endsWith('failed'));
    if (pending.length === 0 || Date.now() > deadline) return now;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

function counted(nodes: Map<string, { state: string; error: unknown }>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { state } of nodes.values()) out[state] = (out[state] ?? 0) + 1;
  return out;
}

it(`deploys ${COUNT} virtual machines at once through their agents, all to active`, async () => {
  const uuids = [...(await states()).keys()];
  expect(uuids).toHaveLength(COUNT);
  await Promise.all(uuids.map((u) => api.provision(u, 'manage')));
  expect(counted(await settleAll(['manageable'], 300_000))).toEqual({ manageable: COUNT });
  await Promise.all(uuids.map((u) => api.provision(u, 'provide')));
  expect(counted(await settleAll(['available'], 300_000))).toEqual({ available: COUNT });

  const md5 = createHash('md5').update(IMAGE).digest('hex');
  const patchQueue = [...uuids];
  const patched: number[] = [];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let uuid = patchQueue.shift(); uuid !== undefined; uuid = patchQueue.shift()) {
        const reply = await api.request('PATCH', `/v1/nodes/${uuid}`, [
          { op: 'add', path: '/instance_info', value: { image_source: `${images.url}/disk.img`, image_checksum: md5 } },
        ]);
        patched.push(reply.status);
      }
    }),
  );
  expect(patched).toEqual(uuids.map(() => 200));
  await Promise.all(uuids.map((u) => api.provision(u, 'active')));
  const deployed = await settleAll(['active'], 900_000);
  const failed = [...deployed.entries()].filter(([, n]) => n.state !== 'active').slice(0, 3);
  expect(failed).toEqual([]);
  expect(counted(deployed)).toEqual({ active: COUNT });

  // Each machine has the image on its disk and booted it: ramdisk from CD, then the disk.
  const machines = [...(stack.fleet?.machines.values() ?? [])];
  expect(machines).toHaveLength(COUNT);
  for (const machine of machines) {
    expect(machine.disk).toMatchObject({ imageId: 'disk.img', size: IMAGE.length });
    expect(machine.powerState).toBe('On');
    expect(machine.boots.at(-1)?.device).toBe('Hdd');
  }
}, 1_800_000);
