/**
 * The grenade test (OpenStack's name for it): the previous release, built from the commit it was
 * cut from, serves a fleet under load; `ironless upgrade` takes it to this checkout through every
 * phase while nodes deploy and clean (half through the virtual agent) and a worker sends a steady
 * mix of API reads and writes. Nothing may notice: no 5xx or unexpected 4xx, nothing in a
 * dead-letter queue, every flow ends where it should, every item ends at the new versions, and the
 * new API maximum shows only once the API is unpinned. A second stack rolls back at phase 5.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetAliasCommand, LambdaClient, ListTagsCommand } from '@aws-sdk/client-lambda';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { RELEASE_MAPPING } from '../../functions/common/releases';
import { TAGS, decodeState } from '../../functions/common/upgrade-state';
import { resolveTarget } from '../../bin/commands/dbsync-target';
import { buildRelease, releaseBuildDir } from '../../bin/build/release';
import { dbsyncUpgrade, dbsyncVersion } from '../../functions/db/dbsync';
import { PROJECT_ROOT } from '../../lib/bundling';
import { LambdaHost } from '../../local/lambda-host';
import { LocalStack } from '../../local/stack';
import { ImageServer } from '../unit/fleet/helpers/fake-ironic';
import { ApiClient } from '../integration/helpers/stack';
import { Cycles, Load, ironless } from './helpers';

const FROM = '2026.3';
const AGENT_NODES = 25;
const FAKE_NODES = 30;
const LOAD_NODES = 20;
const IMAGE = Buffer.from('a whole-disk image for the grenade\n'.repeat(200));
const LOCAL = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
/** Short steps: the shifts are watched for seconds, not the five minutes an operator would use. */
const SHIFT = ['--steps', '50,100', '--step-seconds', '8', '--sample-seconds', '4'];

/** Each line with the clock time, so what the load saw (its `unexpected` answers carry it too) can be placed in the upgrade. */
const log = (line: string) => process.stdout.write(`${new Date().toISOString().slice(11, 23)} ${line}\n`);
let oldBundles: string;
const newBundles = process.env.IRONLESS_BUILD_DIR ?? '';

beforeAll(async () => {
  if (newBundles === '') throw new Error('IRONLESS_BUILD_DIR is not set: run through jest (its globalSetup builds this checkout)');
  oldBundles = releaseBuildDir(FROM);
  await buildRelease(FROM, oldBundles, log);
}, 600_000);

/** The functions' logs, kept under dist/grenade-logs/ for whoever reads a failure (CI keeps the clone). */
function keepLogs(stack: LocalStack | undefined, name: string): void {
  if (stack?.logDir) cpSync(stack.logDir, join(PROJECT_ROOT, 'dist', 'grenade-logs', name), { recursive: true, force: true });
}

async function startOld(dataDir: string, fleet: number): Promise<LocalStack> {
  return new LocalStack({
    port: 0,
    dataDir,
    buildDir: oldBundles,
    schedules: false,
    ...(fleet > 0 ? { fleet: { count: fleet, prefix: 'agent', port: 0 } } : {}),
    settings: {
      // Under this load on two cores an agent's heartbeat can wait; the flows must not fail for it.
      heartbeatTimeoutSeconds: 300,
      callbackTimeoutSeconds: 900,
      postDeployPowerStateRetryIntervalSeconds: 1,
    },
  }).start();
}

async function enrollFake(api: ApiClient, name: string): Promise<string> {
  const created = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name });
  if (created.status !== 201) throw new Error(`create ${name}: ${created.status} ${created.text}`);
  return created.body.uuid as string;
}

async function toAvailable(api: ApiClient, uuids: readonly string[]): Promise<void> {
  await Promise.all(uuids.map((u) => api.provision(u, 'manage')));
  await Promise.all(uuids.map((u) => api.settle(u, ['manageable'], 120_000)));
  await Promise.all(uuids.map((u) => api.provision(u, 'provide')));
  const ends = await Promise.all(uuids.map((u) => api.settle(u, ['available', 'clean failed'], 300_000)));
  expect(ends.filter((n) => n.provision_state !== 'available').map((n) => [n.name, n.last_error])).toEqual([]);
}

async function dlqDepth(stack: LocalStack): Promise<number> {
  const sqs = new SQSClient({ ...LOCAL, endpoint: stack.endpoints.sqs });
  try {
    let total = 0;
    for (const queue of stack.queues) {
      const out = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: queue.dlqUrl,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      );
      total +=
        Number(out.Attributes?.ApproximateNumberOfMessages ?? 0) + Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
    }
    return total;
  } finally {
    sqs.destroy();
  }
}

async function aliases(stack: LocalStack): Promise<Record<string, string>> {
  const lambda = new LambdaClient({ ...LOCAL, endpoint: stack.endpoints.aws });
  try {
    const out: Record<string, string> = {};
    for (const fn of ['conductor', 'api', 'dbsync']) {
      const alias = await lambda.send(new GetAliasCommand({ FunctionName: fn, Name: 'live' }));
      const weights = Object.keys(alias.RoutingConfig?.AdditionalVersionWeights ?? {});
      out[fn] = [alias.FunctionVersion, ...weights].join('+');
    }
    return out;
  } finally {
    lambda.destroy();
  }
}

async function upgradeState(stack: LocalStack) {
  const lambda = new LambdaClient({ ...LOCAL, endpoint: stack.endpoints.aws });
  try {
    const tags = (await lambda.send(new ListTagsCommand({ Resource: LambdaHost.arn('conductor') }))).Tags ?? {};
    return { state: decodeState(tags), release: tags[TAGS.release] };
  } finally {
    lambda.destroy();
  }
}

describe(`upgrading ${FROM} to this checkout under load`, () => {
  let dataDir: string;
  let stack: LocalStack;
  let images: ImageServer;

  afterAll(async () => {
    await images?.stop();
    await stack?.stop();
    keepLogs(stack, 'upgrade');
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs every phase with nothing failing, lost or left behind', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ironless-grenade-'));
    stack = await startOld(dataDir, AGENT_NODES);
    images = await new ImageServer().start();
    images.images.set('/disk.img', IMAGE);
    const md5 = createHash('md5').update(IMAGE).digest('hex');
    const api = new ApiClient(stack.url, '1.82');
    expect((await api.get('/v1')).body.version.version).toBe(RELEASE_MAPPING[FROM]!.api);

    const agents = ((await api.get('/v1/nodes?fields=uuid,name&limit=1000')).body.nodes as { uuid: string; name: string }[])
      .filter((n) => n.name.startsWith('agent-'))
      .map((n) => n.uuid);
    expect(agents).toHaveLength(AGENT_NODES);
    const fakes = await Promise.all(Array.from({ length: FAKE_NODES }, (_, i) => enrollFake(api, `fake-${i}`)));
    const loadNodes = await Promise.all(Array.from({ length: LOAD_NODES }, (_, i) => enrollFake(api, `load-${i}`)));
    await toAvailable(api, [...agents, ...fakes]);

    // Old items to migrate: every node deployed by the old release carries a display name.
    const cycles = new Cycles(api, (node) => ({
      image_source: `${images.url}/disk.img`,
      image_checksum: md5,
      display_name: `instance-of-${node}`,
    }));
    cycles.start([...agents, ...fakes]);
    const load = new Load({ url: stack.url, rate: 50, nodes: loadNodes, version: '1.82' });

    // Phases 1-5: pinned conductors, then the pinned API. The API's maximum stays the old one.
    let pinned: { code: number; output: string };
    let rest: { code: number; output: string };
    let versionsPinned: Record<string, string>;
    let unpinnedFrom: number;
    let flows: Awaited<ReturnType<Cycles['stop']>>;
    let traffic: Awaited<ReturnType<Load['stop']>>;
    try {
      pinned = await ironless(['upgrade', 'start', '--bundles', newBundles, '--data', dataDir, ...SHIFT, '--until', '5'], log);
      versionsPinned = await aliases(stack);
      unpinnedFrom = Date.now();
      // Phases 6-8: unpin, migrate, report.
      rest = await ironless(['upgrade', 'resume', '--bundles', newBundles, '--data', dataDir, ...SHIFT, '--migration-batch', '20'], log);
    } finally {
      flows = await cycles.stop();
      traffic = await load.stop();
      log(`grenade: ${JSON.stringify({ flows, traffic: { ...traffic, maxVersions: traffic.maxVersions.length } })}`);
    }
    expect(pinned.code).toBe(3);
    expect(pinned.output).toContain('paused after phase 5');
    expect(rest.code).toBe(0);

    expect(traffic.unexpected).toEqual([]);
    expect(traffic.requests / traffic.seconds).toBeGreaterThanOrEqual(45);
    expect(flows.failures).toEqual([]);
    expect(flows.maxInFlight).toBeGreaterThanOrEqual(50);
    expect(flows.deploys).toBeGreaterThanOrEqual(AGENT_NODES + FAKE_NODES);
    expect(await dlqDepth(stack)).toBe(0);

    // The API's maximum: the old release's until unpinning, the new one's once it is done.
    const before = traffic.maxVersions.filter((v) => v.at < unpinnedFrom).map((v) => v.max);
    expect(new Set(before)).toEqual(new Set([RELEASE_MAPPING[FROM]!.api]));
    expect((await api.get('/v1')).body.version.version).toBe(RELEASE_MAPPING.master!.api);
    expect(versionsPinned.api).not.toContain('+');

    // Every item at the version this release writes; dbsync upgrade passes.
    const target = await resolveTarget({ data: dataDir, segments: 4 });
    try {
      const version = await dbsyncVersion(target.ctx);
      const behind = (version.data?.objects ?? []).filter((o) => Object.keys(o.inUse).some((v) => v !== o.writes));
      expect(behind).toEqual([]);
      expect((await dbsyncUpgrade(target.ctx)).exitCode).toBe(0);
    } finally {
      await target.close();
    }
    const cli = await ironless(['dbsync', 'upgrade', '--data', dataDir], log);
    expect(cli.code).toBe(0);
    expect(await upgradeState(stack)).toMatchObject({ release: 'master', state: { status: 'complete', done: 8 } });
  }, 3_600_000);
});

describe(`rolling ${FROM} back at phase 5`, () => {
  let dataDir: string;
  let stack: LocalStack;

  afterAll(async () => {
    await stack?.stop();
    keepLogs(stack, 'rollback');
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the old release again with nothing lost', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ironless-rollback-'));
    stack = await startOld(dataDir, 0);
    const api = new ApiClient(stack.url, '1.82');
    const nodes = await Promise.all(Array.from({ length: 6 }, (_, i) => enrollFake(api, `rb-${i}`)));
    await toAvailable(api, nodes);
    const before = await aliases(stack);

    const shifted = await ironless(['upgrade', 'start', '--bundles', newBundles, '--data', dataDir, ...SHIFT, '--until', '5'], log);
    expect(shifted.code).toBe(3);
    const during = await aliases(stack);
    expect(during.conductor).not.toBe(before.conductor);
    expect(during.api).not.toBe(before.api);
    // Work done by the pinned release, before the rollback: two nodes deployed.
    await Promise.all(nodes.slice(0, 2).map((u) => api.provision(u, 'active')));
    await Promise.all(nodes.slice(0, 2).map((u) => api.waitFor(u, 'active', 60_000)));

    const rolled = await ironless(['upgrade', 'rollback', '--data', dataDir], log);
    expect(rolled.code).toBe(0);
    expect(await aliases(stack)).toEqual(before);
    expect((await api.get('/v1')).body.version.version).toBe(RELEASE_MAPPING[FROM]!.api);
    expect(await upgradeState(stack)).toMatchObject({ release: FROM, state: { status: 'rolled-back' } });

    // The old release reads what the pinned one wrote, and drives it on.
    const listed = (await api.get('/v1/nodes?fields=uuid,provision_state&limit=100')).body.nodes as {
      uuid: string;
      provision_state: string;
    }[];
    expect(listed.map((n) => n.uuid).sort()).toEqual([...nodes].sort());
    await api.provision(nodes[0]!, 'deleted');
    await api.provision(nodes[2]!, 'active');
    expect(await api.settle(nodes[0]!, ['available', 'clean failed'], 60_000)).toMatchObject({ provision_state: 'available' });
    expect(await api.settle(nodes[2]!, ['active', 'deploy failed'], 60_000)).toMatchObject({ provision_state: 'active' });
    expect(await dlqDepth(stack)).toBe(0);
    // Rolling back twice changes nothing; a completed step cannot be rolled back past unpinning.
    expect((await ironless(['upgrade', 'rollback', '--data', dataDir], log)).code).toBe(0);
  }, 1_200_000);
});
