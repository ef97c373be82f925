/**
 * The stack the browser tests drive, run in a process of its own (`tsx test/ui/stack.ts`): the
 * local stack as `npm start` runs it (bundles built now, the web console included) with
 * http_basic, a virtual fleet of redfish machines whose ramdisk agent deploys for real, an image
 * server, and a few fake-hardware nodes in different states. It prints one JSON line when ready
 * (`{"url", "user", "password", "bmc", "image", "checksum"}`) and stops on SIGTERM or when its
 * standard input closes (the test runner went away).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { agentGuestFactory } from '../../local/fleet/agent/factory';
import { Fleet } from '../../local/fleet/fleet';
import { LocalStack } from '../../local/stack';
import { ImageServer } from '../unit/fleet/helpers/fake-ironic';

export interface UiStackInfo {
  readonly url: string;
  readonly user: string;
  readonly password: string;
  /** The virtual BMCs' base URL (faults: `<bmc>/fleet/v1/machines/<id>/agent-faults`). */
  readonly bmc: string;
  readonly image: string;
  readonly checksum: string;
  /** The stack's Lambda endpoint (versions, aliases, tags: what `ironless upgrade` drives). */
  readonly lambda: string;
}

const USER = 'operator';
const PASSWORD = 'console-test-password';

const scratch = mkdtempSync(join(tmpdir(), 'ironless-ui-'));
const htpasswd = join(scratch, 'htpasswd');
writeFileSync(htpasswd, `${USER}:${bcrypt.hashSync(PASSWORD, 4)}\n`);
const auth = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;

const stack = new LocalStack({
  port: 0,
  inMemory: true,
  settings: {
    authStrategy: 'http_basic',
    // The agent heartbeats every 3–6 s, so a deploy's steps follow each other within seconds.
    heartbeatTimeoutSeconds: 10,
    callbackTimeoutSeconds: 300,
    postDeployPowerStateRetryIntervalSeconds: 1,
  },
  htpasswdFile: htpasswd,
});
const images = new ImageServer();
let fleet: Fleet | undefined;

async function api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${stack.url}${path}`, {
    method,
    headers: { Authorization: auth, 'X-OpenStack-Ironic-API-Version': '1.87', 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

async function waitFor(node: string, state: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const n = await api('GET', `/v1/nodes/${node}?fields=provision_state,last_error`);
    if (n.provision_state === state) return;
    if (String(n.provision_state).endsWith('failed')) throw new Error(`${node}: ${String(n.provision_state)}: ${String(n.last_error)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${node} did not reach ${state}`);
}

/** Fake-hardware nodes spread over states, owners and shards, so the fleet view has something to count. */
async function seed(): Promise<void> {
  const plan: [name: string, target: 'enroll' | 'manageable' | 'available' | 'active', extra: Record<string, unknown>][] = [
    ['web-01', 'active', { owner: 'web', shard: 'rack-a' }],
    ['web-02', 'active', { owner: 'web', shard: 'rack-a' }],
    ['web-03', 'active', { owner: 'web', shard: 'rack-b' }],
    ['db-01', 'active', { owner: 'db', shard: 'rack-b' }],
    ['db-02', 'available', { owner: 'db', shard: 'rack-b' }],
    ['spare-01', 'available', { shard: 'rack-a' }],
    ['spare-02', 'available', { shard: 'rack-c' }],
    ['lab-01', 'manageable', { owner: 'lab' }],
    ['lab-02', 'manageable', { owner: 'lab' }],
    ['new-01', 'enroll', {}],
  ];
  await Promise.all(
    plan.map(async ([name, target, extra]) => {
      const node = await api('POST', '/v1/nodes', { name, driver: 'fake-hardware', resource_class: 'baremetal' });
      const uuid = String(node.uuid);
      const fields = Object.entries(extra).map(([key, value]) => ({ op: 'add', path: `/${key}`, value }));
      if (fields.length > 0) await api('PATCH', `/v1/nodes/${uuid}`, fields);
      if (target === 'enroll') return;
      await api('PUT', `/v1/nodes/${uuid}/states/provision`, { target: 'manage' });
      await waitFor(uuid, 'manageable');
      if (target === 'manageable') return;
      await api('PUT', `/v1/nodes/${uuid}/states/provision`, { target: 'provide' });
      await waitFor(uuid, 'available');
      if (target === 'available') return;
      await api('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/instance_info/image_source', value: 'http://images.example/web.raw' }]);
      await api('PUT', `/v1/nodes/${uuid}/states/provision`, { target: 'active' });
      await waitFor(uuid, 'active');
    }),
  );
  await api('PUT', '/v1/nodes/lab-02/maintenance', { reason: 'fan replacement' });
}

/** Virtual redfish machines booting the virtual agent, enrolled (with ports) and made available without cleaning. */
async function startFleet(count: number): Promise<Fleet> {
  const uuids = new Map<string, string>();
  const guestFactory = agentGuestFactory({ apiUrl: stack.url, nodeUuidOf: (m) => uuids.get(m.id), lookupMaxIntervalMs: 2000 });
  const started = await new Fleet({ count, prefix: 'redfish', powerDelayMs: 100, guestFactory, port: 0 }).start();
  for (const machine of started.machines.values()) {
    const node = await api('POST', '/v1/nodes', {
      name: machine.id,
      driver: 'redfish',
      driver_info: started.driverInfo(machine),
      automated_clean: false,
      resource_class: 'baremetal',
      shard: 'rack-c',
    });
    uuids.set(machine.id, String(node.uuid));
    for (const nic of machine.spec.nics) await api('POST', '/v1/ports', { address: nic.mac, node_uuid: node.uuid, pxe_enabled: true });
  }
  return started;
}

async function stop(): Promise<void> {
  await fleet?.stop().catch(() => undefined);
  await images.stop().catch(() => undefined);
  await stack.stop().catch(() => undefined);
  rmSync(scratch, { recursive: true, force: true });
  process.exit(0);
}

process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
process.stdin.on('close', () => void stop());
process.stdin.resume();

const image = Buffer.alloc(256 * 1024, 'ironless');
try {
  await Promise.all([stack.start(), images.start()]);
  images.images.set('/disk.img', image);
  fleet = await startFleet(3);
  await seed();
  const info: UiStackInfo = {
    url: stack.url,
    user: USER,
    password: PASSWORD,
    bmc: fleet.url,
    image: `${images.url}/disk.img`,
    checksum: createHash('md5').update(image).digest('hex'),
    lambda: stack.endpoints.aws,
  };
  process.stdout.write(`${JSON.stringify(info)}\n`);
} catch (err) {
  process.stderr.write(`The browser tests' stack did not start: ${(err as Error).stack ?? String(err)}\n`);
  await stop();
}
