/** What a benchmark module exports, and measuring helpers they share. */
import { closeSync, openSync, readFileSync, readSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BatchGetCommand, DocumentClient } from '../../functions/db/dynamo';
import type { LocalStack } from '../../local/stack';
import type { FunctionWork, Work } from './cost';

export interface BenchContext {
  /** Bundles built for this run (pass to LocalStack's buildDir). */
  readonly buildDir: string;
  readonly log: (line: string) => void;
}

export interface Bench {
  readonly name: string;
  /** Run only when named (`npm run bench -- peer`): it needs more than this checkout, or long. */
  readonly onlyWhenNamed?: boolean;
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

/**
 * The work a stack does between `new WorkMeter(stack)` and `per(units)`, per unit, as the dollar
 * figures price it (cost.ts): each function's invocations and summed duration, state transitions,
 * DynamoDB capacity units (asked of DynamoDB Local for every request: needs a counting stack),
 * SQS messages, API requests, and the bytes the functions logged (their log files, less the local
 * host's line prefixes).
 */
export class WorkMeter {
  private readonly invocations: Map<string, number>;
  private readonly durations: Map<string, number>;
  private readonly transitions: number;
  private readonly sqsMessages: number;
  private readonly logSizes: Map<string, number>;

  constructor(
    private readonly stack: LocalStack,
    private readonly memoryMb: Readonly<Record<string, number>>,
  ) {
    if (stack.dynamoRequests === undefined) throw new Error('WorkMeter needs a stack with countDynamoDbRequests');
    stack.dynamoRequests.measureCapacity = true;
    stack.dynamoRequests.reset();
    this.invocations = new Map(stack.lambda.invocations);
    this.durations = new Map(stack.lambda.stats);
    this.transitions = stack.sfn.transitions;
    this.sqsMessages = stack.sqsMessages;
    this.logSizes = new Map(Object.keys(memoryMb).map((name) => [name, this.logSize(name)]));
  }

  private logFile(name: string): string {
    return join(this.stack.logDir, `${name}.log`);
  }

  private logSize(name: string): number {
    try {
      return statSync(this.logFile(name)).size;
    } catch {
      return 0;
    }
  }

  /** Bytes the function logged since, without the `[name:version] ` prefix the local host adds to each line. */
  private logged(name: string): number {
    const from = this.logSizes.get(name) ?? 0;
    const to = this.logSize(name);
    if (to <= from) return 0;
    const fd = openSync(this.logFile(name), 'r');
    try {
      const bytes = Buffer.alloc(to - from);
      readSync(fd, bytes, 0, bytes.length, from);
      return Buffer.byteLength(bytes.toString('utf8').replace(/^\[[^\]]*\] /gm, ''));
    } finally {
      closeSync(fd);
    }
  }

  /** The work done since construction, divided by `units`. */
  per(units: number): Work {
    const stack = this.stack;
    const counter = stack.dynamoRequests!;
    const lambda: Record<string, FunctionWork> = {};
    let logBytes = 0;
    for (const [name, memoryMb] of Object.entries(this.memoryMb)) {
      const invocations = (stack.lambda.invocations.get(name) ?? 0) - (this.invocations.get(name) ?? 0);
      const key = `durationMs:${name}`;
      const durationMs = (stack.lambda.stats.get(key) ?? 0) - (this.durations.get(key) ?? 0);
      if (invocations > 0) lambda[name] = { invocations: invocations / units, durationMs: durationMs / units, memoryMb };
      logBytes += this.logged(name);
    }
    const reads = READ_OPERATIONS.reduce((n, op) => n + counter.capacityUnits(`.${op}`), 0);
    return {
      lambda,
      stateTransitions: (stack.sfn.transitions - this.transitions) / units,
      dynamodbReadUnits: reads / units,
      dynamodbWriteUnits: (counter.capacityUnits() - reads) / units,
      sqsMessages: (stack.sqsMessages - this.sqsMessages) / units,
      apiRequests: lambda.api?.invocations ?? 0,
      logBytes: logBytes / units,
    };
  }
}

/** DynamoDB operations that read (the others write). */
export const READ_OPERATIONS = ['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems'];

/** A Work rounded for a report. */
export function rounded(work: Work): Work {
  const r = (n: number) => Number(n.toPrecision(4));
  return {
    lambda: Object.fromEntries(
      Object.entries(work.lambda).map(([k, f]) => [
        k,
        { invocations: r(f.invocations), durationMs: r(f.durationMs), memoryMb: f.memoryMb },
      ]),
    ),
    stateTransitions: r(work.stateTransitions),
    dynamodbReadUnits: r(work.dynamodbReadUnits),
    dynamodbWriteUnits: r(work.dynamodbWriteUnits),
    sqsMessages: r(work.sqsMessages),
    apiRequests: r(work.apiRequests),
    logBytes: r(work.logBytes),
  };
}
