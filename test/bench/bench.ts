/** What a benchmark module exports, and measuring helpers they share. */
import { readFileSync, readdirSync } from 'node:fs';
import { BatchGetCommand, DocumentClient } from '../../functions/db/dynamo';
import type { LocalStack } from '../../local/stack';

export interface BenchContext {
  /** Bundles built for this run (pass to LocalStack's buildDir). */
  readonly buildDir: string;
  readonly log: (line: string) => void;
}

export interface Bench {
  readonly name: string;
  run(ctx: BenchContext): Promise<Record<string, unknown>>;
}

/** Latency percentiles (ms) and throughput of `total` calls of `fn` at a concurrency. */
export async function measure(
  total: number,
  concurrency: number,
  fn: (i: number) => Promise<void>,
): Promise<{ requests: number; concurrency: number; perSecond: number; p50Ms: number; p99Ms: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const t = performance.now();
        await fn(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => Number((latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0).toFixed(2));
  return { requests: total, concurrency, perSecond: Number((total / seconds).toFixed(1)), p50Ms: pct(50), p99Ms: pct(99) };
}

/** CPU seconds used so far, by where they were spent (Linux: read from /proc; elsewhere undefined). */
export interface CpuSample {
  /** This process's main thread: the gateway, the Lambda host, Step Functions, SQS, the benchmark's own client. */
  readonly hostMain: number;
  /** Every other thread of this process: the functions' execution environments (worker threads) and V8's helpers. */
  readonly functions: number;
  /** The DynamoDB Local process (Java). */
  readonly dynamodbLocal: number;
}

const CLOCK_TICKS = 100;

/** utime + stime of every thread of `pid`, split into the main thread and the rest, in seconds. */
function threadTimes(pid: number): { main: number; others: number } | undefined {
  try {
    let main = 0;
    let others = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const seconds = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
      if (Number(tid) === pid) main += seconds;
      else others += seconds;
    }
    return { main, others };
  } catch {
    return undefined;
  }
}

export function cpuSample(dynamodbPid: number | undefined): CpuSample | undefined {
  const own = threadTimes(process.pid);
  const java = dynamodbPid === undefined ? undefined : threadTimes(dynamodbPid);
  if (own === undefined || java === undefined) return undefined;
  return { hostMain: own.main, functions: own.others, dynamodbLocal: java.main + java.others };
}

/** Milliseconds of CPU per unit of work between two samples, by component (undefined off Linux). */
export function cpuPer(before: CpuSample | undefined, after: CpuSample | undefined, units: number): Record<string, number> | undefined {
  if (before === undefined || after === undefined) return undefined;
  const ms = (a: number, b: number) => Number((((b - a) * 1000) / units).toFixed(2));
  const out = {
    functions: ms(before.functions, after.functions),
    hostMain: ms(before.hostMain, after.hostMain),
    dynamodbLocal: ms(before.dynamodbLocal, after.dynamodbLocal),
  };
  return { ...out, total: Number((out.functions + out.hostMain + out.dynamodbLocal).toFixed(2)) };
}

/**
 * Wait until every node is in provision state `state` (throwing on a failed state), reading the
 * nodes straight from DynamoDB Local: neither the API nor the counting proxy sees these reads, so
 * a benchmark's invocation and round-trip counts hold only what the work itself did.
 */
export async function waitForProvisionState(stack: LocalStack, uuids: readonly string[], state: string): Promise<void> {
  const table = stack.tables.nodes;
  const client = new DocumentClient({
    config: { endpoint: stack.dynamoDbEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } },
  });
  try {
    let pending = [...uuids];
    while (pending.length > 0) {
      const waiting: string[] = [];
      for (let i = 0; i < pending.length; i += 100) {
        const keys = pending.slice(i, i + 100);
        const out = await client.send(
          new BatchGetCommand({
            RequestItems: {
              [table]: {
                Keys: keys.map((uuid) => ({ uuid })),
                ConsistentRead: true,
                ProjectionExpression: '#uuid, #state, #error',
                ExpressionAttributeNames: { '#uuid': 'uuid', '#state': 'provision_state', '#error': 'last_error' },
              },
            },
          }),
        );
        const items = new Map((out.Responses?.[table] ?? []).map((item) => [String(item.uuid), item]));
        for (const uuid of keys) {
          const item = items.get(uuid); // missing: an unprocessed key, asked again
          if (item?.provision_state === state) continue;
          if (String(item?.provision_state).endsWith('failed')) throw new Error(`${uuid}: ${String(item?.last_error)}`);
          waiting.push(uuid);
        }
      }
      pending = waiting;
      if (pending.length > 0) await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    client.destroy();
  }
}
