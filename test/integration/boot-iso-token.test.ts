/**
 * Issue 21 on the local stack: the ISO the redfish-virtual-media boot interface builds from
 * `deploy_kernel`/`deploy_ramdisk` carries a pregenerated agent token on its kernel command line
 * (`ipa-agent-token`, as Ironic's prepare_ramdisk puts it). The virtual agent booted from it takes
 * the token from there; its lookup (and anyone's) answers "******"; it heartbeats with that token
 * and cleaning and deploying complete; the token is gone from the node afterwards.
 */
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { VirtualAgent } from '../../local/fleet/agent/agent';
import { readBootIso } from '../../local/fleet/agent/boot-media';
import { kernelArg } from '../../local/fleet/agent/factory';
import type { LocalStack } from '../../local/stack';
import { type FleetStack, startFleetStack } from './helpers/fleet';
import { ApiClient } from './helpers/stack';

let fleet: FleetStack;
let stack: LocalStack;
let api: ApiClient;
let s3: S3Client;
const IMAGE = Buffer.from('a whole-disk image\n'.repeat(200));

beforeAll(async () => {
  fleet = await startFleetStack({ count: 1, prefix: 'tok', image: IMAGE });
  stack = fleet.stack;
  api = new ApiClient(stack.url, '1.82');
  s3 = new S3Client({ endpoint: stack.endpoints.s3, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}, 120_000);

afterAll(async () => {
  s3?.destroy();
  await fleet?.stop();
});

/** What the test saw of one ramdisk boot. */
interface Seen {
  tokens: Set<string>;
  agents: Set<VirtualAgent>;
  lookups: unknown[];
}

/** The kernel command line's token of the ISO while it is in the bucket, else undefined. */
async function isoToken(key: string): Promise<string | undefined> {
  try {
    const got = await s3.send(new GetObjectCommand({ Bucket: stack.bootIsoBucket, Key: key }));
    const iso = readBootIso(Buffer.from((await got.Body?.transformToByteArray()) ?? []));
    return kernelArg(iso.cmdline, 'ipa-agent-token') ?? '(none)';
  } catch (err) {
    if ((err as { name?: string }).name === 'NoSuchKey') return undefined;
    throw err;
  }
}

/** Run `action` while watching the bucket's ISO, the machine's agent and what a lookup answers. */
async function watching(uuid: string, action: () => Promise<void>): Promise<Seen> {
  const seen: Seen = { tokens: new Set(), agents: new Set(), lookups: [] };
  const machine = stack.fleet?.machine('tok-0');
  let on = true;
  const watcher = (async () => {
    while (on) {
      const token = await isoToken(`${uuid}/deploy.iso`);
      if (token !== undefined) seen.tokens.add(token);
      const agent = machine?.runningGuest as VirtualAgent | undefined;
      if (agent?.lookup !== undefined && !seen.agents.has(agent)) {
        seen.agents.add(agent);
        // A lookup of our own while that agent runs: the node holds the token already.
        const reply = await api.request('GET', `/v1/lookup?node_uuid=${uuid}`, undefined, { 'X-OpenStack-Ironic-API-Version': '1.62' });
        seen.lookups.push(reply.status === 200 ? (reply.body.config as Record<string, unknown>).agent_token : reply.status);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  try {
    await action();
  } finally {
    on = false;
    await watcher;
  }
  return seen;
}

function expectPregenerated(seen: Seen): void {
  // One ISO per ramdisk boot, each with its own 43-character token.
  expect(seen.tokens.size).toBeGreaterThan(0);
  for (const token of seen.tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(seen.agents.size).toBeGreaterThan(0);
  for (const agent of seen.agents) {
    expect(agent.lookup?.config.agent_token).toBe('******');
    expect(agent.tokenSource).toBe('kernel command line');
    expect(agent.heartbeats).toBeGreaterThan(0);
  }
  expect(seen.lookups.length).toBeGreaterThan(0);
  for (const answer of seen.lookups) expect(answer).toBe('******');
}

it('boots the agent with the token on the built ISO’s kernel command line; lookup answers "******"; cleaning and deploying complete and the token is gone after', async () => {
  const uuid = (await api.get('/v1/nodes/tok-0')).body.uuid as string;
  const machine = stack.fleet?.machine('tok-0');
  if (machine === undefined || stack.fleet === undefined) throw new Error('no machine tok-0');
  const patched = await api.request('PATCH', `/v1/nodes/${uuid}`, [
    { op: 'replace', path: '/driver_info', value: stack.fleet.kernelDriverInfo(machine) },
  ]);
  expect(patched.status).toBe(200);
  await api.provision(uuid, 'manage');
  await api.settle(uuid, ['manageable'], 60_000);

  const cleaning = await watching(uuid, async () => {
    await api.provision(uuid, 'provide');
    expect(await api.settle(uuid, ['available', 'clean failed'], 150_000)).toMatchObject({
      provision_state: 'available',
      last_error: null,
    });
  });
  expectPregenerated(cleaning);
  const cleaned = (await api.get(`/v1/nodes/${uuid}`)).body.driver_internal_info as Record<string, unknown>;
  expect(cleaned).not.toHaveProperty('agent_secret_token');
  expect(cleaned).not.toHaveProperty('agent_secret_token_pregenerated');

  await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/instance_info', value: fleet.image }]);
  const deploying = await watching(uuid, async () => {
    await api.provision(uuid, 'active');
    expect(await api.settle(uuid, ['active', 'deploy failed'], 300_000)).toMatchObject({ provision_state: 'active', last_error: null });
  });
  expectPregenerated(deploying);
  // A new boot, a new token.
  for (const token of deploying.tokens) expect(cleaning.tokens.has(token)).toBe(false);
  const deployed = (await api.get(`/v1/nodes/${uuid}`)).body.driver_internal_info as Record<string, unknown>;
  expect(deployed).not.toHaveProperty('agent_secret_token');
  expect(deployed).not.toHaveProperty('agent_secret_token_pregenerated');
  expect(machine.disk).toMatchObject({ imageId: 'disk.img', size: IMAGE.length });
}, 600_000);
