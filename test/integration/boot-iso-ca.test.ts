/**
 * Ironic's `[agent]api_ca_file` on the local stack (settings.agentApiCaFile): the conductor, run
 * from its bundle with the CA beside it, builds agent ISOs that carry the CA and the IPA
 * configuration naming it; the virtual agent booted from one takes them from its media as IPA's
 * `copy_config_from_vmedia` does, and cleaning completes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { PROJECT_ROOT } from '../../lib/bundling';
import type { VirtualAgent } from '../../local/fleet/agent/agent';
import { type BootIso, readBootIso } from '../../local/fleet/agent/boot-media';
import type { LocalStack } from '../../local/stack';
import { type FleetStack, startFleetStack } from './helpers/fleet';
import { ApiClient } from './helpers/stack';

const CA_FILE = join(PROJECT_ROOT, 'test/fixtures/tls/bmc.crt');
const PEM = readFileSync(CA_FILE);

let fleet: FleetStack;
let stack: LocalStack;
let api: ApiClient;
let s3: S3Client;

beforeAll(async () => {
  fleet = await startFleetStack({ count: 1, prefix: 'ca', image: Buffer.from('disk'), settings: { agentApiCaFile: CA_FILE } });
  stack = fleet.stack;
  api = new ApiClient(stack.url, '1.82');
  s3 = new S3Client({ endpoint: stack.endpoints.s3, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}, 120_000);

afterAll(async () => {
  s3?.destroy();
  await fleet?.stop();
});

/** The node's built deploy ISO while it is in the bucket. */
async function builtIso(uuid: string): Promise<BootIso | undefined> {
  try {
    const got = await s3.send(new GetObjectCommand({ Bucket: stack.bootIsoBucket, Key: `${uuid}/deploy.iso` }));
    return readBootIso(Buffer.from((await got.Body?.transformToByteArray()) ?? []));
  } catch (err) {
    if ((err as { name?: string }).name === 'NoSuchKey') return undefined;
    throw err;
  }
}

it('puts the CA on the ISO it builds; the agent booted from it trusts that CA; cleaning completes', async () => {
  const uuid = (await api.get('/v1/nodes/ca-0')).body.uuid as string;
  const machine = stack.fleet?.machine('ca-0');
  if (machine === undefined || stack.fleet === undefined) throw new Error('no machine ca-0');
  const patched = await api.request('PATCH', `/v1/nodes/${uuid}`, [
    { op: 'replace', path: '/driver_info', value: stack.fleet.kernelDriverInfo(machine) },
  ]);
  expect(patched.status).toBe(200);
  await api.provision(uuid, 'manage');
  await api.settle(uuid, ['manageable'], 60_000);

  let iso: BootIso | undefined;
  let agent: VirtualAgent | undefined;
  let on = true;
  const watcher = (async () => {
    while (on && (iso === undefined || agent === undefined)) {
      iso ??= await builtIso(uuid);
      const guest = machine.runningGuest as VirtualAgent | undefined;
      if (guest?.lookup !== undefined) agent = guest;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  try {
    await api.provision(uuid, 'provide');
    expect(await api.settle(uuid, ['available', 'clean failed'], 150_000)).toMatchObject({
      provision_state: 'available',
      last_error: null,
    });
  } finally {
    on = false;
    await watcher;
  }

  expect(iso?.files.get('etc/ironic-python-agent/ironic.crt')).toEqual(PEM);
  expect(iso?.files.get('etc/ironic-python-agent.d/ironic-tls.conf')?.toString()).toBe(
    '[DEFAULT]\ncafile = /etc/ironic-python-agent/ironic.crt\n',
  );
  expect(agent?.tls).toEqual({ cafile: '/etc/ironic-python-agent/ironic.crt', ca: PEM, insecure: false });
  expect(agent?.heartbeats).toBeGreaterThan(0);
  // The API function has no such file in its code, and is not told of one.
  expect(stack.lambda.configuration('conductor', 'live').env.AGENT_API_CA_FILE).toBe('agent-api-ca.crt');
  expect(stack.lambda.configuration('api', 'live').env.AGENT_API_CA_FILE).toBeUndefined();
}, 240_000);
