/**
 * The ramdisk's logs end to end (issue 21; Ironic's `[agent]deploy_logs_collect`, default
 * `on_failure`): redfish nodes on the fleet, the virtual IPA agent answering
 * `log.collect_system_logs`, the local stack's ramdisk logs bucket (fauxqs' S3). A deploy and a
 * cleaning that fail while the agent runs leave a gzipped tar under Ironic's file name; the failure
 * is the node's outcome all the same; a deploy that succeeds leaves nothing. With `always` (a
 * conductor version published with it), a manual clean and a deploy that succeed keep the logs too:
 * the clean's at its end, labelled cleaning, the deploy's at tear_down_agent, unlabelled.
 */
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { LocalStack } from '../../local/stack';
import { readTarGz } from '../helpers/tar';
import { type FleetStack, startFleetStack } from './helpers/fleet';
import { ApiClient } from './helpers/stack';

let fleet: FleetStack;
let stack: LocalStack;
let api: ApiClient;
let s3: S3Client;

beforeAll(async () => {
  fleet = await startFleetStack({
    count: 4,
    prefix: 'rlg',
    image: Buffer.from('a whole-disk image\n'.repeat(200)),
    // No automated cleaning: the deploys are the subject; cleaning fails by a manual clean.
    settings: { automatedClean: false },
  });
  stack = fleet.stack;
  api = new ApiClient(stack.url, '1.82');
  s3 = new S3Client({
    endpoint: stack.endpoints.s3,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}, 120_000);

afterAll(async () => {
  s3?.destroy();
  await fleet?.stop();
});

/** The keys in the ramdisk logs bucket that start with the node's UUID. */
async function logsOf(uuid: string): Promise<string[]> {
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: stack.ramdiskLogsBucket, Prefix: `${uuid}_` }));
  return (listed.Contents ?? []).map((o) => o.Key as string);
}

async function journal(key: string): Promise<string> {
  const got = await s3.send(new GetObjectCommand({ Bucket: stack.ramdiskLogsBucket, Key: key }));
  const files = readTarGz(Buffer.from(await got.Body!.transformToByteArray()));
  return files.journal ?? '';
}

async function manageable(id: string): Promise<string> {
  const uuid = (await api.get(`/v1/nodes/${id}`)).body.uuid as string;
  await api.provision(uuid, 'manage');
  await api.settle(uuid, ['manageable'], 60_000);
  return uuid;
}

async function deploy(uuid: string): Promise<Record<string, unknown>> {
  await api.provision(uuid, 'provide');
  await api.settle(uuid, ['available'], 60_000);
  const patched = await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/instance_info', value: fleet.image }]);
  expect(patched.status).toBe(200);
  await api.provision(uuid, 'active');
  await api.settle(uuid, ['active', 'deploy failed'], 120_000);
  return api.unlocked(uuid);
}

const STAMP = String.raw`\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d`;

it("keeps the agent's logs of a deploy that failed in write_image, and the deploy still fails", async () => {
  const uuid = await manageable('rlg-0');
  stack.fleet?.setAgentFaults('rlg-0', { failStep: 'write_image' });
  const node = await deploy(uuid);
  expect(node).toMatchObject({ provision_state: 'deploy failed', reservation: null });
  expect(String(node.last_error)).toMatch(/write_image/);
  const keys = await logsOf(uuid);
  expect(keys).toHaveLength(1);
  expect(keys[0]).toMatch(new RegExp(`^${uuid}_rlg-0_${STAMP}\\.tar\\.gz$`));
  // The agent's own journal, up to the step it failed.
  expect(await journal(keys[0] as string)).toMatch(/write_image/);
}, 240_000);

it('keeps nothing of a deploy that succeeds (on_failure)', async () => {
  const uuid = await manageable('rlg-1');
  const node = await deploy(uuid);
  expect(node).toMatchObject({ provision_state: 'active', last_error: null });
  expect(await logsOf(uuid)).toEqual([]);
}, 240_000);

it('keeps the logs of a failed clean step, labelled cleaning', async () => {
  const uuid = await manageable('rlg-2');
  stack.fleet?.setAgentFaults('rlg-2', { failStep: 'erase_devices_metadata' });
  await api.provision(uuid, 'clean', { clean_steps: [{ interface: 'deploy', step: 'erase_devices_metadata' }] });
  await api.settle(uuid, ['manageable', 'clean failed'], 120_000);
  const node = await api.unlocked(uuid);
  expect(node).toMatchObject({ provision_state: 'clean failed', reservation: null });
  const keys = await logsOf(uuid);
  expect(keys).toHaveLength(1);
  expect(keys[0]).toMatch(new RegExp(`^${uuid}_rlg-2_cleaning_${STAMP}\\.tar\\.gz$`));
  expect(await journal(keys[0] as string)).toMatch(/erase_devices_metadata/);
}, 240_000);

it('with always, keeps the logs of a clean and of a deploy that succeed', async () => {
  // Ironic's deploy_logs_collect = always: a conductor version published with it, live for this test.
  stack.lambda.setAlias('conductor', 'live', stack.lambda.publishVersion('conductor', { env: { LOGS_COLLECT: 'always' } }));
  try {
    const uuid = await manageable('rlg-3');
    await api.provision(uuid, 'clean', { clean_steps: [{ interface: 'deploy', step: 'erase_devices_metadata' }] });
    expect(await api.settle(uuid, ['manageable', 'clean failed'], 120_000)).toMatchObject({
      provision_state: 'manageable',
      last_error: null,
    });
    const cleaned = await logsOf(uuid);
    expect(cleaned).toHaveLength(1);
    expect(cleaned[0]).toMatch(new RegExp(`^${uuid}_rlg-3_cleaning_${STAMP}\\.tar\\.gz$`));
    expect(await journal(cleaned[0] as string)).toMatch(/erase_devices_metadata/);

    expect(await deploy(uuid)).toMatchObject({ provision_state: 'active', last_error: null });
    const deployed = (await logsOf(uuid)).filter((k) => !cleaned.includes(k));
    expect(deployed).toHaveLength(1);
    expect(deployed[0]).toMatch(new RegExp(`^${uuid}_rlg-3_${STAMP}\\.tar\\.gz$`));
    expect(await journal(deployed[0] as string)).toMatch(/write_image/);
  } finally {
    stack.lambda.setAlias('conductor', 'live', stack.lambda.publishVersion('conductor'));
  }
}, 300_000);
