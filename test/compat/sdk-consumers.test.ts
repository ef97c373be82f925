/**
 * Ironless as its consumers call it, through the real openstacksdk baremetal proxy (Debian's
 * python3-openstacksdk; `test/compat/sdk/consumers.py`): two nova compute services, one per shard
 * (nova 2024.1's `[ironic]shard`), each see exactly their shard's nodes with nova's `fields`; moving
 * a node to the other shard moves it between them; nova's spawn patches and deploys a node and finds
 * it by instance; metal3's baremetal-operator pages through every node with `limit` and `marker`.
 * Needs python3-openstacksdk (`.ci/run` installs it); this suite is not part of `npm test`.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LocalStack } from '../../local/stack';
import { ApiClient, startStack } from '../integration/helpers/stack';

const run = promisify(execFile);
const SCRIPT = join(process.cwd(), 'test', 'compat', 'sdk', 'consumers.py');
// Debian's python3 (a python3 earlier on PATH, e.g. pyenv's, lacks Debian's packages).
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const NOVA_FIELDS = [
  'uuid',
  'power_state',
  'target_power_state',
  'provision_state',
  'target_provision_state',
  'last_error',
  'maintenance',
  'properties',
  'instance_uuid',
  'traits',
  'resource_class',
];

type SdkNode = Record<string, unknown> & { uuid: string };

let stack: LocalStack;
let api: ApiClient;
const shards: Record<string, string[]> = { 'shard-a': [], 'shard-b': [], '': [] };

async function sdk<T>(...args: string[]): Promise<T> {
  try {
    const { stdout } = await run(PYTHON, [SCRIPT, stack.url, ...args], { timeout: 180_000 });
    return JSON.parse(stdout) as T;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    if ((e.stderr ?? '').includes("No module named 'openstack'"))
      throw new Error('openstacksdk is not installed: apt-get install python3-openstacksdk (or run .ci/run)');
    throw new Error(`consumers.py ${args.join(' ')} failed: ${e.stderr ?? e.message}`);
  }
}

const uuids = (nodes: readonly SdkNode[]) => nodes.map((n) => n.uuid).sort();

beforeAll(async () => {
  stack = await startStack();
  api = new ApiClient(stack.url, '1.82');
  for (const [shard, count] of [
    ['shard-a', 5],
    ['shard-b', 4],
    ['', 2],
  ] as const) {
    for (let i = 0; i < count; i++) {
      const body = { driver: 'fake-hardware', name: `${shard || 'none'}-${i}`, ...(shard ? { shard } : {}) };
      shards[shard]?.push((await api.request('POST', '/v1/nodes', body)).body.uuid as string);
    }
  }
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

it("gives each nova compute service exactly its shard's nodes, with nova's fields", async () => {
  const [a, b] = await Promise.all([sdk<SdkNode[]>('compute', 'shard-a'), sdk<SdkNode[]>('compute', 'shard-b')]);
  expect(uuids(a)).toEqual([...(shards['shard-a'] ?? [])].sort());
  expect(uuids(b)).toEqual([...(shards['shard-b'] ?? [])].sort());
  for (const node of [...a, ...b]) {
    expect(Object.keys(node)).toEqual(NOVA_FIELDS);
    expect(node).toMatchObject({ provision_state: 'enroll', maintenance: false, instance_uuid: null, traits: [] });
  }
  const one = await sdk<SdkNode>('get', shards['shard-a']?.[0] as string);
  expect(one).toMatchObject({ uuid: shards['shard-a']?.[0], provision_state: 'enroll', properties: {} });
}, 120_000);

it('moves a node between the compute services when its shard changes', async () => {
  const moving = shards['shard-a']?.[4] as string;
  await sdk('move', moving, 'shard-b');
  const [a, b] = await Promise.all([sdk<SdkNode[]>('compute', 'shard-a'), sdk<SdkNode[]>('compute', 'shard-b')]);
  expect(uuids(a)).not.toContain(moving);
  expect(uuids(a)).toHaveLength(4);
  expect(uuids(b)).toEqual([...(shards['shard-b'] ?? []), moving].sort());
}, 120_000);

it("deploys as nova's spawn does, and finds the node by its instance", async () => {
  const node = shards['shard-b']?.[0] as string;
  await api.provision(node, 'manage');
  await api.waitFor(node, 'manageable');
  await api.provision(node, 'provide');
  await api.waitFor(node, 'available', 30_000);
  const instance = '6f0b1e5c-3f7a-4a52-9f1d-2a0c4c7e9b11';
  const spawned = await sdk<SdkNode>('spawn', node, instance);
  expect(spawned).toMatchObject({ uuid: node, provision_state: 'active', instance_uuid: instance, last_error: null });
  expect(uuids(await sdk<SdkNode[]>('by-instance', instance))).toEqual([node]);
  const b = await sdk<SdkNode[]>('compute', 'shard-b');
  expect(b.find((n) => n.uuid === node)).toMatchObject({ instance_uuid: instance, provision_state: 'active' });
}, 180_000);

it("pages through every node as metal3's baremetal-operator does, a page per request", async () => {
  const all = Object.values(shards).flat().sort();
  const { pages, followed } = await sdk<{ pages: { uuid: string; driver: string }[][]; followed: string[] }>('metal3', '4');
  expect(pages.map((p) => p.length)).toEqual([4, 4, 3]);
  expect(
    pages
      .flat()
      .map((n) => n.uuid)
      .sort(),
  ).toEqual(all);
  expect(pages.flat().every((n) => n.driver === 'fake-hardware')).toBe(true);
  // The sdk's own paging follows the `next` links to the same nodes, in the same order.
  expect(followed).toEqual(pages.flat().map((n) => n.uuid));
}, 120_000);
