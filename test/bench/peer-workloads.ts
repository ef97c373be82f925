/**
 * The peer benchmark's workloads, the same requests for either API: a fleet in shards, a warm-up,
 * then runs of GET node, create node, fake-hardware deploys, listing one shard and listing every
 * node in detail. Only how a fleet is populated and how deploys are watched differ by side (each
 * reads its own database, so that neither API serves the watcher's reads).
 */
import type { ApiClient } from './peer-client';
import { measure } from './bench';
import { type CpuMeter, cpuMsPer } from './peer-cpu';

export interface PeerSide {
  readonly name: 'ironic' | 'ironless';
  readonly api: ApiClient;
  /** Add `count` nodes (fake-hardware, enroll), node i in shard `shard-⌊i / shardSize⌋`; says how. */
  populate(count: number, shardSize: number, log: (line: string) => void): Promise<string>;
  /** Resolves when every node is in provision state `state`; throws when one fails. */
  waitFor(uuids: readonly string[], state: string): Promise<void>;
}

export interface PeerSizes {
  readonly fleet: number;
  readonly shardSize: number;
  readonly concurrency: number;
  readonly runs: number;
  readonly warmupGets: number;
  readonly warmupCreates: number;
  readonly gets: number;
  readonly creates: number;
  readonly deployNodes: number;
  readonly shardLists: number;
  /** List every node in detail in each run (reported without a target). */
  readonly listAll: boolean;
}

/** A run's figures; `cpuMs`: CPU ms per unit of work (request, deploy, list) by component of both sides. */
export type Run = Record<string, number | Record<string, number>>;

export type Runs = Record<'getNode' | 'createNode' | 'deploy' | 'shardList' | 'listAllDetail', Run[]>;

/** A side with its fleet, its deploy nodes and its warm-up done: `run()` measures each workload once more. */
export interface PreparedSide {
  readonly populate: { nodes: number; seconds: number; how: string };
  readonly runs: Runs;
  run(): Promise<void>;
}

const seconds = (from: number) => (performance.now() - from) / 1000;
const round = (n: number, digits = 3) => Number(n.toFixed(digits));

/** Populate the fleet, enroll, manage and provide the deploy nodes, warm up. */
export async function prepareSide(side: PeerSide, sizes: PeerSizes, log: (line: string) => void, meter?: CpuMeter): Promise<PreparedSide> {
  const { api } = side;
  const C = sizes.concurrency;
  const started = performance.now();
  const how = await side.populate(sizes.fleet, sizes.shardSize, log);
  const populate = { nodes: sizes.fleet, seconds: round(seconds(started), 1), how };
  log(`${side.name}: fleet of ${sizes.fleet} in ${populate.seconds} s (${how})`);

  // The nodes that deploy, and that GET node reads: enrolled, managed and provided through the API.
  const deploy: string[] = new Array(sizes.deployNodes);
  await measure(sizes.deployNodes, C, async (i) => {
    deploy[i] = String((await api.call('POST', '/v1/nodes', { driver: 'fake-hardware', name: `peer-deploy-${i}` })).uuid);
  });
  const provision = (target: string) =>
    measure(deploy.length, C, async (i) => void (await api.call('PUT', `/v1/nodes/${deploy[i]}/states/provision`, { target })));
  await provision('manage');
  await side.waitFor(deploy, 'manageable');
  await provision('provide');
  await side.waitFor(deploy, 'available');

  const get = async (i: number) => void (await api.call('GET', `/v1/nodes/${deploy[i % deploy.length]}`));
  const create = (prefix: string) => async (i: number) =>
    void (await api.call('POST', '/v1/nodes', { driver: 'fake-hardware', name: `${prefix}-${i}` }));
  const shards = Math.ceil(sizes.fleet / sizes.shardSize);
  const listShard = async (k: number) => {
    const body = await api.call('GET', `/v1/nodes/detail?shard=shard-${k % shards}&limit=${sizes.shardSize}`);
    const expected = Math.min(sizes.shardSize, sizes.fleet - (k % shards) * sizes.shardSize);
    if ((body.nodes as unknown[]).length !== expected)
      throw new Error(`${side.name}: shard-${k % shards} listed ${(body.nodes as unknown[]).length} nodes`);
  };

  log(`${side.name}: warm-up, ${sizes.warmupGets} GETs, ${sizes.warmupCreates} creates, a shard listed`);
  await measure(sizes.warmupGets, C, get);
  await measure(sizes.warmupCreates, C, create('peer-warm'));
  await listShard(0);

  const runs: Runs = { getNode: [], createNode: [], deploy: [], shardList: [], listAllDetail: [] };
  // CPU by component over a workload, per unit of it (none without a meter).
  const cpu = () => {
    const before = meter?.sample();
    return (units: number): Run => (before === undefined ? {} : { cpuMs: cpuMsPer(before, meter!.sample(), units) });
  };
  const run = async () => {
    const r = runs.getNode.length + 1;
    let started: number;
    let cpuOf = cpu();
    const getNode = await measure(sizes.gets, C, get);
    runs.getNode.push({ perSecond: getNode.perSecond, p50Ms: getNode.p50Ms, p99Ms: getNode.p99Ms, ...cpuOf(sizes.gets) });
    cpuOf = cpu();
    const createNode = await measure(sizes.creates, C, create(`peer-run${r}`));
    runs.createNode.push({ perSecond: createNode.perSecond, p50Ms: createNode.p50Ms, p99Ms: createNode.p99Ms, ...cpuOf(sizes.creates) });

    cpuOf = cpu();
    started = performance.now();
    await provision('active');
    const requested = seconds(started);
    await side.waitFor(deploy, 'active');
    const deployed = seconds(started);
    const deployRun = {
      deploysPerSecond: round(deploy.length / deployed, 1),
      seconds: round(deployed, 2),
      requestsSeconds: round(requested, 2),
      ...cpuOf(deploy.length),
    };
    runs.deploy.push(deployRun);
    await provision('deleted');
    await side.waitFor(deploy, 'available');

    cpuOf = cpu();
    started = performance.now();
    for (let k = 0; k < sizes.shardLists; k++) await listShard(k);
    const shardRun = {
      secondsPerList: round(seconds(started) / sizes.shardLists),
      lists: sizes.shardLists,
      nodesPerList: sizes.shardSize,
      ...cpuOf(sizes.shardLists),
    };
    runs.shardList.push(shardRun);

    if (!sizes.listAll) {
      log(
        `${side.name} run ${r}/${sizes.runs}: GET ${getNode.perSecond}/s, create ${createNode.perSecond}/s, ` +
          `${deployRun.deploysPerSecond} deploys/s, shard ${shardRun.secondsPerList} s`,
      );
      return;
    }
    started = performance.now();
    let next: string | undefined = `/v1/nodes/detail?limit=${sizes.shardSize}`;
    let nodes = 0;
    let pages = 0;
    while (next !== undefined) {
      const body = await api.call('GET', next);
      nodes += (body.nodes as unknown[]).length;
      pages++;
      next = typeof body.next === 'string' ? body.next : undefined;
    }
    const allRun = { seconds: round(seconds(started)), nodes, pages };
    runs.listAllDetail.push(allRun);
    log(
      `${side.name} run ${r}/${sizes.runs}: GET ${getNode.perSecond}/s, create ${createNode.perSecond}/s, ` +
        `${deployRun.deploysPerSecond} deploys/s, shard ${shardRun.secondsPerList} s, all ${nodes} nodes ${allRun.seconds} s`,
    );
  };
  return { populate, runs, run };
}
