/**
 * `ironless fleet import` as an operator runs it against a running local stack (DynamoDB Local
 * found through `<data>/stack.json`): 1,000 nodes with a port each are written directly, and the
 * real API (HTTP on loopback) lists, filters and shows them exactly as nodes it created itself;
 * their names and MACs are as unique to the API as its own. A file with a bad node writes
 * nothing (exit 2), and importing the same file again changes nothing.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../lib/bundling';
import type { LocalStack } from '../../local/stack';
import { ApiClient, type Json, startStack } from './helpers/stack';

const execFileAsync = promisify(execFile);
const COUNT = 1000;
let dataDir: string;
let stack: LocalStack | undefined;
let api: ApiClient;

const uuidOf = (i: number) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
const macOf = (i: number) => `52:54:00:${[(i >> 16) & 255, (i >> 8) & 255, i & 255].map((b) => b.toString(16).padStart(2, '0')).join(':')}`;

/** Node i of the file: every fifth has no name; shards s0…s3; groups "" and rack-a. */
function nodeBody(i: number): Record<string, unknown> {
  return {
    driver: 'fake-hardware',
    uuid: uuidOf(i),
    ...(i % 5 === 0 ? {} : { name: `imp-${i}` }),
    shard: `s${i % 4}`,
    conductor_group: i % 2 === 0 ? '' : 'RACK-A',
    properties: { cpus: 8, memory_mb: 16384 },
    driver_info: { redfish_address: `https://10.0.${(i >> 8) & 255}.${i & 255}` },
    ports: [{ address: macOf(i).toUpperCase(), pxe_enabled: true }],
  };
}

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function importFile(nodes: readonly unknown[], ...args: string[]): Promise<Run> {
  const file = join(dataDir, `nodes-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify(nodes));
  try {
    const { stdout, stderr } = await execFileAsync(
      process.execPath,
      [
        '--disable-warning=ExperimentalWarning',
        '--import',
        'tsx',
        join(PROJECT_ROOT, 'bin/ironless.ts'),
        'fleet',
        'import',
        '--data',
        dataDir,
        '--file',
        file,
        ...args,
      ],
      { cwd: PROJECT_ROOT, env: { ...process.env, PIN_RELEASE_VERSION: '' }, maxBuffer: 16 * 1024 * 1024 },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** Every node of a list query, following `next` links. */
async function listAll(query: string): Promise<Json[]> {
  const out: Json[] = [];
  let path: string | undefined = `/v1/nodes?limit=1000&${query}`;
  while (path !== undefined) {
    const reply = await api.get(path);
    expect(reply.status).toBe(200);
    out.push(...(reply.body.nodes as Json[]));
    path = reply.body.next ? new URL(reply.body.next as string).pathname + new URL(reply.body.next as string).search : undefined;
  }
  return out;
}

/** A node's view with what differs between two nodes by nature (identity, creation time) blanked. */
function comparable(view: Json): Json {
  const text = JSON.stringify(view).replaceAll(view.uuid as string, 'UUID');
  const { created_at: _c, name: _n, ...rest } = JSON.parse(text) as Record<string, Json>;
  return rest;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ironless-import-'));
  stack = await startStack({ inMemory: false, dataDir, settings: { conductorGroups: ['', 'rack-a'] } });
  api = new ApiClient(stack.url, 'latest');
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('ironless fleet import on a running local stack', () => {
  const nodes = Array.from({ length: COUNT }, (_, i) => nodeBody(i));

  it('refuses a file with a bad node, naming it, and writes nothing', async () => {
    const bad = [...nodes.slice(0, 50), { driver: 'fake-hardware', name: 'bad name' }, { ...nodeBody(3), uuid: uuidOf(99_999) }];
    const run = await importFile(bad);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Cannot create node with invalid name 'bad name'");
    expect(run.stderr).toContain('A node with name imp-3 already exists. (node 3 of the file)');
    expect(run.stderr).toContain('2 of 52 nodes are refused; nothing was written.');
    expect((await api.get(`/v1/nodes/${uuidOf(1)}`)).status).toBe(404);
    expect((await api.get(`/v1/ports?address=${macOf(1)}`)).body.ports).toEqual([]);
  }, 60_000);

  it(`imports ${COUNT} nodes with their ports, served by the API as nodes it created`, async () => {
    const run = await importFile(nodes);
    expect(run.stderr).not.toMatch(/Warning/);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`Nodes created\\s+│ ${COUNT}\\s`));
    expect(run.stdout).toMatch(new RegExp(`Ports created\\s+│ ${COUNT}\\s`));

    // The API's own node, from the same body as imported node 7.
    const { ports: _p, uuid: _u, name: _n, ...twin } = nodeBody(7);
    const created = await api.request('POST', '/v1/nodes', { ...twin, name: 'api-twin' });
    expect(created.status).toBe(201);

    const all = await listAll('fields=uuid,name');
    expect(all).toHaveLength(COUNT + 1);
    // In the file's order (creation order), then the API's node.
    expect(all.slice(0, 3).map((n) => n.uuid)).toEqual([uuidOf(0), uuidOf(1), uuidOf(2)]);
    expect(all[COUNT].name).toBe('api-twin');
    expect(await listAll('shard=s1&fields=uuid')).toHaveLength(COUNT / 4);
    expect(await listAll('conductor_group=rack-a&fields=uuid')).toHaveLength(COUNT / 2 + 1);
    expect(await listAll('provision_state=enroll&fields=uuid')).toHaveLength(COUNT + 1);
    // Node 7's twin is in shard s3 and rack-a too.
    expect(await listAll('driver=fake-hardware&shard=s3&conductor_group=rack-a&fields=uuid')).toHaveLength(COUNT / 4 + 1);
    expect(await listAll('shard=s2&conductor_group=rack-a&fields=uuid')).toEqual([]);

    const imported = (await api.get('/v1/nodes/imp-7')).body;
    const own = (await api.get(`/v1/nodes/${created.body.uuid as string}`)).body;
    expect(imported.uuid).toBe(uuidOf(7));
    expect(comparable(imported)).toEqual(comparable(own));
    const detail = (await api.get('/v1/nodes/detail?shard=s3&limit=1')).body.nodes[0];
    expect(detail).toMatchObject({ uuid: uuidOf(3), provision_state: 'enroll', conductor_group: 'rack-a', power_interface: 'fake' });

    const ports = (await api.get('/v1/ports/detail?node=imp-7')).body.ports as Json[];
    expect(ports).toMatchObject([{ address: macOf(7), node_uuid: uuidOf(7), pxe_enabled: true }]);
    expect((await api.get(`/v1/ports?address=${macOf(COUNT - 1)}`)).body.ports).toHaveLength(1);
  }, 120_000);

  it('keeps imported names and MACs unique to the API', async () => {
    const name = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: 'imp-9' });
    expect(name.status).toBe(409);
    expect(name.text).toContain('A node with name imp-9 already exists.');
    const mac = await api.request('POST', '/v1/ports', { node_uuid: uuidOf(9), address: macOf(10) });
    expect(mac.status).toBe(409);
    expect(mac.text).toContain(`A port with MAC address ${macOf(10)} already exists.`);
  });

  it('changes nothing when the same file is imported again', async () => {
    const run = await importFile(nodes);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Nodes created\s+│ 0\s/);
    expect(run.stdout).toMatch(new RegExp(`Nodes skipped \\(already there\\)\\s+│ ${COUNT}\\s`));
    expect(run.stdout).toMatch(new RegExp(`Ports skipped \\(already there\\)\\s+│ ${COUNT}\\s`));
    expect(await listAll('fields=uuid')).toHaveLength(COUNT + 1);
    const dry = await importFile([...nodes.slice(0, 10), { driver: 'fake-hardware', name: 'one-more' }], '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('1 nodes and 0 ports would be created, 10 nodes and 10 ports are there already');
    expect((await api.get('/v1/nodes/one-more')).status).toBe(404);
  }, 60_000);
});
