/**
 * `npm run bench -- peer`: the same workloads against a real Ironic 21.4 on this machine (Debian's
 * ironic-api and ironic-conductor on a MariaDB server of their own, started by
 * test/compat/reference/ironic.sh) and against Ironless's local stack, with the same HTTP client,
 * concurrency and warm-up, each workload run `BENCH_PEER_RUNS` (3) times; the report has both
 * sides' figures, the ratios of their medians and pass or fail against the issue's targets
 * (peer-targets.ts). Both run at once, but the workloads run one side at a time, alternating run
 * by run: they share the machine's cores, and its load moves over minutes.
 *
 * The fleet (`BENCH_PEER_FLEET`, 10,000 nodes; 100,000 for the large case) is in shards of 1,000.
 * Both are written in bulk: Ironless's by `ironless fleet import` (peer-populate.ts;
 * `BENCH_PEER_POPULATE=api`: through its API, 8 at once); Ironic's through its API would take most
 * of an hour, so one node is created through the API and the rest are SQL copies of it in Ironic's
 * MariaDB `nodes` table (new UUIDs, shards set). The report says how. Every other node is made
 * through the API. Each run has the CPU both sides' processes spent per unit of work (peer-cpu.ts). Deploys are watched in each side's database (MariaDB; DynamoDB Local), not
 * through the API being measured.
 *
 * Both sides without periodic power sync (the local stack runs with no schedules; Ironic with
 * `sync_power_state_interval = 0`); Ironic's API with a worker per core, its default.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { IRONIC_SCRIPT, startIronic } from '../compat/reference/ironic';
import { LocalStack } from '../../local/stack';
import type { Bench, BenchContext } from './bench';
import { measure, waitForProvisionState } from './bench';
import { API_VERSION, ApiClient, MariaDbSession } from './peer-client';
import { peerCpuMeter } from './peer-cpu';
import { importFleet } from './peer-populate';
import { PEER_TARGETS, compareAll } from './peer-targets';
import { type PeerSide, type PeerSizes, type PreparedSide, prepareSide } from './peer-workloads';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const FLEET = env('BENCH_PEER_FLEET', 10_000);
/**
 * The large case (more than 20,000 nodes; the issue's is 100,000) runs fewer GETs and creates and
 * does not list every node, each overridable, so that a run takes minutes, not an hour. The
 * warm-up stays whole: Ironless's JIT (and DynamoDB Local's) needs thousands of requests to settle,
 * and a shorter one would measure it cold.
 */
const LARGE = FLEET > 20_000;
const SIZES: PeerSizes = {
  fleet: FLEET,
  shardSize: 1000,
  concurrency: 8,
  runs: env('BENCH_PEER_RUNS', 3),
  warmupGets: env('BENCH_PEER_WARMUP_GETS', 10_000),
  warmupCreates: env('BENCH_PEER_WARMUP_CREATES', 500),
  gets: env('BENCH_PEER_GETS', LARGE ? 2000 : 4000),
  creates: env('BENCH_PEER_CREATES', LARGE ? 200 : 500),
  deployNodes: env('BENCH_PEER_DEPLOY_NODES', 200),
  shardLists: env('BENCH_PEER_SHARD_LISTS', 3),
  listAll: env('BENCH_PEER_LIST_ALL', LARGE ? 0 : 1) !== 0,
};

const load = () => loadavg().map((n) => Number(n.toFixed(1)));

/**
 * What to undo if the bench is interrupted (Ctrl-C, SIGTERM): Ironic, its MariaDB and DynamoDB Local
 * are processes of their own, which would outlive it. Returns a function that forgets `undo`.
 */
const undos = new Set<() => void>();
function onInterrupt(undo: () => void): () => void {
  if (undos.size === 0) process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  undos.add(undo);
  return () => {
    undos.delete(undo);
    if (undos.size === 0) process.off('SIGINT', interrupted).off('SIGTERM', interrupted);
  };
}
function interrupted(): void {
  for (const undo of undos) {
    try {
      undo();
    } catch (err) {
      process.stderr.write(`${String(err)}\n`);
    }
  }
  process.exit(130);
}

interface OpenSide {
  readonly side: PeerSide;
  /** Ironic's state folder (pid files) / the local stack's DynamoDB Local. */
  readonly ironicDir?: string;
  readonly dynamoDbPid?: number;
  close(): Promise<void>;
}

async function openIronless({ buildDir }: BenchContext): Promise<OpenSide> {
  const stack = await new LocalStack({ port: 0, inMemory: true, buildDir, schedules: false }).start();
  const dynamoDbPid = stack.dynamoDbPid;
  const forget = onInterrupt(() => dynamoDbPid !== undefined && process.kill(dynamoDbPid));
  const api = new ApiClient(stack.url, SIZES.concurrency * 2);
  const side: PeerSide = {
    name: 'ironless',
    api,
    async populate(count, shardSize, say) {
      if (process.env.BENCH_PEER_POPULATE !== 'api') return importFleet(stack, count, shardSize, say);
      await measure(count, SIZES.concurrency, async (i) => {
        await api.call('POST', '/v1/nodes', { driver: 'fake-hardware', shard: `shard-${Math.floor(i / shardSize)}` });
        if ((i + 1) % 5000 === 0) say(`ironless: ${i + 1}/${count} nodes`);
      });
      return `POST /v1/nodes, ${SIZES.concurrency} at once`;
    },
    waitFor: (uuids, state) => waitForProvisionState(stack, uuids, state),
  };
  return {
    side,
    dynamoDbPid,
    async close() {
      forget();
      api.close();
      await stack.stop();
    },
  };
}

async function openIronic({ log }: BenchContext): Promise<OpenSide> {
  // A port of its own (and port + 1000 for Ironic's JSON-RPC).
  const port = 25000 + (process.pid % 4000);
  log('ironic: starting Ironic 21.4 on MariaDB…');
  const ref = await startIronic(port, {
    mariadb: true,
    extraConf: `[api]\napi_workers = ${cpus().length}\n[conductor]\nsync_power_state_interval = 0\n`,
  });
  const forget = onInterrupt(() => {
    execFileSync('bash', [IRONIC_SCRIPT, 'stop', ref.dir]);
    rmSync(ref.dir, { recursive: true, force: true });
  });
  const api = new ApiClient(ref.url, SIZES.concurrency * 2);
  const db = new MariaDbSession(ref.mariadbSocket!, 'ironic');
  const side: PeerSide = {
    name: 'ironic',
    api,
    async populate(count, shardSize) {
      const template = String((await api.call('POST', '/v1/nodes', { driver: 'fake-hardware', shard: 'shard-0' })).uuid);
      const skip = new Set(['id', 'uuid', 'name', 'shard', 'created_at', 'updated_at']);
      const columns = (
        await db.query(
          "SELECT column_name FROM information_schema.columns WHERE table_schema = 'ironic' AND table_name = 'nodes' ORDER BY ordinal_position",
        )
      )
        .map(([c]) => c ?? '')
        .filter((c) => c !== '' && !skip.has(c));
      const list = columns.map((c) => `\`${c}\``).join(', ');
      for (let from = 1; from < count; from += 50_000) {
        const to = Math.min(count - 1, from + 49_999);
        await db.query(
          `INSERT INTO nodes (uuid, shard, created_at, ${list}) ` +
            `SELECT UUID(), CONCAT('shard-', FLOOR(s.seq / ${shardSize})), UTC_TIMESTAMP(), ${columns.map((c) => `t.\`${c}\``).join(', ')} ` +
            `FROM nodes t JOIN seq_${from}_to_${to} s WHERE t.uuid = '${template}'`,
        );
      }
      return "1 node by POST /v1/nodes, the rest SQL INSERT … SELECT copies of it into MariaDB's nodes table (new UUIDs, shard set)";
    },
    async waitFor(uuids, state) {
      const inList = uuids.map((u) => `'${u}'`).join(',');
      for (;;) {
        const rows = await db.query(
          `SELECT provision_state, COUNT(*), MAX(IFNULL(last_error, '')) FROM nodes WHERE uuid IN (${inList}) GROUP BY provision_state`,
        );
        const failed = rows.find(([s]) => s?.endsWith('failed'));
        if (failed) throw new Error(`ironic: ${failed[1]} nodes in ${failed[0]}: ${failed[2]}`);
        const [only] = rows;
        if (rows.length === 1 && only?.[0] === state && Number(only[1]) === uuids.length) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
  return {
    side,
    ironicDir: ref.dir,
    async close() {
      forget();
      db.close();
      api.close();
      await ref.stop();
    },
  };
}

const bench: Bench = {
  name: 'peer',
  onlyWhenNamed: true,
  async run(ctx) {
    const startedAt = new Date().toISOString();
    const loads: Record<string, number[]> = { start: load() };
    const ironic = await openIronic(ctx);
    let anchor: PreparedSide;
    let ours: PreparedSide;
    let ironlessRetries: number;
    try {
      const ironless = await openIronless(ctx);
      try {
        const meter = peerCpuMeter(ironic.ironicDir!, ironless.dynamoDbPid);
        anchor = await prepareSide(ironic.side, SIZES, ctx.log, meter);
        ours = await prepareSide(ironless.side, SIZES, ctx.log, meter);
        // The runs alternate, each side's with the other idle, first one side then the other: the
        // machine's load changes over minutes, and each ratio is of runs taken side by side.
        for (let r = 0; r < SIZES.runs; r++) {
          loads[`run${r + 1}`] = load();
          for (const side of r % 2 === 0 ? [anchor, ours] : [ours, anchor]) await side.run();
        }
        loads.end = load();
        ironlessRetries = ironless.side.api.retries;
      } finally {
        await ironless.close();
      }
    } finally {
      await ironic.close();
    }
    const { comparisons, allMet } = compareAll(ours.runs, anchor.runs);
    for (const c of comparisons) {
      ctx.log(
        `${c.workload}: ironless ${c.ironless}, ironic ${c.ironic} ${c.metric}: ratio ${c.ratio}` +
          (c.target === null ? '' : ` (target ${c.target}: ${c.pass ? 'pass' : 'FAIL'})`),
      );
    }
    return {
      startedAt,
      apiVersion: API_VERSION,
      sizes: SIZES,
      setup: {
        ironic:
          "Debian's ironic-api and ironic-conductor 21.4 (test/compat/reference/ironic.sh, IRONIC_DB=mariadb): noauth, fake-hardware, " +
          `JSON-RPC, a MariaDB server of its own on a Unix socket, api_workers = ${cpus().length}, sync_power_state_interval = 0`,
        ironless: 'the local stack (npm start) in memory, no schedules',
        client: `node:http over keep-alive, ${SIZES.concurrency} requests at once, X-OpenStack-Ironic-API-Version ${API_VERSION}`,
        ratios: 'median of the runs, Ironless / Ironic',
      },
      loadAverage: loads,
      ironic: { populate: anchor.populate, runs: anchor.runs, retries: ironic.side.api.retries },
      ironless: { populate: ours.populate, runs: ours.runs, retries: ironlessRetries },
      comparison: comparisons,
      targets: Object.fromEntries(PEER_TARGETS.filter((t) => t.target !== undefined).map((t) => [t.workload, t.target])),
      allTargetsMet: allMet,
    };
  },
};

export default bench;
