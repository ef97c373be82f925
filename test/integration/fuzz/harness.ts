/**
 * The fuzz suite's runner: sends generated requests to a local stack, eight at a time, and checks
 * that no answer is a 5xx, that every 4xx carries Ironic's error body (either of its two forms),
 * and that no stored item changes (the tables are scanned before and after; a lock taken and given
 * back leaves only the revision up). It counts the requests that got past routing (2xx, or a 4xx
 * a handler raised), in all and for each area a file names, so that a generator whose requests all
 * bounce at routing is noticed.
 */
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import type { LocalStack, LocalStackOptions } from '../../../local/stack';
import { ApiClient, startStack } from '../helpers/stack';

const CONCURRENCY = 8;

export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
}

/** A request before its headers: its method and body still to be drawn. */
export interface Draft {
  readonly method: fc.Arbitrary<string>;
  readonly path: string;
  readonly body: fc.Arbitrary<string | undefined>;
}

/** A draft with a fixed method and body. */
export const draft = (method: string, path: string, body?: string): Draft => ({
  method: fc.constant(method),
  path,
  body: fc.constant(body),
});

/** Requests from `drafts`, with an API version from `version` and sometimes an odd Content-Type. */
export function requests(drafts: fc.Arbitrary<Draft>, version: fc.Arbitrary<string | undefined>): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(
      drafts.chain((r) => fc.record({ method: r.method, path: fc.constant(r.path), body: r.body })),
      version,
      fc.option(fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', ''), { nil: undefined }),
    )
    .map(([r, v, type]) => {
      const headers: Record<string, string> = {};
      if (v !== undefined) headers['X-OpenStack-Ironic-API-Version'] = v;
      if (type !== undefined) headers['Content-Type'] = type;
      return { method: r.method, path: r.path, headers, body: r.method === 'GET' || r.method === 'HEAD' ? undefined : r.body };
    });
}

/** JSON with every object's keys sorted, at every depth. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Every item of every table, without its revision, in a stable order. */
export async function snapshot(stack: LocalStack): Promise<string[]> {
  const ddb = new DynamoDBClient({
    endpoint: stack.endpoints.dynamodb,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    const tables: string[] = [];
    for (const [name, table] of Object.entries(stack.tables)) {
      const items: unknown[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await ddb.send(new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start as never }));
        items.push(...(page.Items ?? []));
        start = page.LastEvaluatedKey;
      } while (start !== undefined);
      // A conductor call takes the node's lock and gives it back (a VIF detach refused, a boot
      // device refused): that leaves the revision one up, and nothing else.
      for (const item of items as Record<string, unknown>[]) delete item.rev;
      // A conductor's liveness heartbeat moves its updated_at, whatever the requests do.
      if (name === 'conductors') for (const item of items as Record<string, unknown>[]) delete item.updated_at;
      tables.push(...items.map((i) => `${name} ${canonical(i)}`));
    }
    return tables.sort();
  } finally {
    ddb.destroy();
  }
}

/** Ironic's error body: {"error_message": "<JSON of {faultcode, faultstring, debuginfo} or {code, title, description}>"}. */
export function isIronicError(text: string): boolean {
  try {
    const outer = JSON.parse(text) as { error_message?: unknown };
    if (typeof outer.error_message !== 'string') return false;
    const inner = JSON.parse(outer.error_message) as Record<string, unknown>;
    const fault = typeof inner.faultcode === 'string' && typeof inner.faultstring === 'string' && 'debuginfo' in inner;
    const webob = typeof inner.code === 'number' && typeof inner.title === 'string' && typeof inner.description === 'string';
    return fault || webob;
  } catch {
    return false;
  }
}

/**
 * Whether an answer came from past routing and version negotiation: a 2xx, or a 4xx of Ironic's
 * own form (`faultcode`/`faultstring`), which handlers and their validation raise. Routing and
 * negotiation answer in webob's form (`code`/`title`).
 */
export function passedRouting(status: number, text: string): boolean {
  if (status >= 200 && status < 300) return true;
  if (status < 400 || status >= 500) return false;
  try {
    const inner = JSON.parse((JSON.parse(text) as { error_message: string }).error_message) as Record<string, unknown>;
    return typeof inner.faultcode === 'string';
  } catch {
    return false;
  }
}

/** The areas whose handlers must be reached, each with a test of the request. */
export type Areas = readonly (readonly [string, (r: FuzzRequest) => boolean])[];

export interface FuzzRun {
  readonly stack: LocalStack;
  readonly request: fc.Arbitrary<FuzzRequest>;
  readonly runs: number;
  readonly seed: number;
  readonly areas: Areas;
  /** The name the log line carries. */
  readonly name: string;
}

/**
 * Sends `runs` requests drawn from `request` (from a fixed seed) and asserts: no 5xx, every 4xx
 * in Ironic's error body, more than half of them past routing, at least 20 past routing in each
 * area, and every table as it was.
 */
/**
 * The stack a fuzz file sends its requests to: started before the file's tests and seeded by
 * `seed` (through an API client at `version`), stopped after them. The returned function gives it.
 */
export function fuzzStack(
  seed: (api: ApiClient) => Promise<void>,
  { version = '1.82', ...options }: LocalStackOptions & { version?: string } = {},
): () => LocalStack {
  let stack: LocalStack | undefined;
  beforeAll(async () => {
    stack = await startStack(options);
    await seed(new ApiClient(stack.url, version));
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });
  return () => {
    if (stack === undefined) throw new Error('the fuzz stack did not start');
    return stack;
  };
}

export async function fuzz({ stack, request, runs, seed, areas, name }: FuzzRun): Promise<void> {
  const before = await snapshot(stack);
  const samples = fc.sample(request, { numRuns: runs, seed });
  const failures: string[] = [];
  let next = 0;
  const statuses = new Map<number, number>();
  /** Requests past routing, in all and by area. */
  let passed = 0;
  const reached = new Map<string, number>(areas.map(([area]) => [area, 0]));
  /** Requests that could change something and were answered 2xx: shown, so that a changed item can be traced. */
  const accepted: string[] = [];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (;;) {
        const r = samples[next++];
        if (r === undefined) return;
        let status: number;
        let text: string;
        try {
          const res = await fetch(`${stack.url}${r.path}`, { method: r.method, headers: r.headers, body: r.body });
          status = res.status;
          text = await res.text();
        } catch (err) {
          // Requests Node's fetch itself refuses to send (invalid methods and the like) test nothing.
          if ((err as Error).name === 'TypeError' && (err as Error).cause === undefined) continue;
          throw err;
        }
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (passedRouting(status, text)) {
          passed++;
          for (const [area, matches] of areas) if (matches(r)) reached.set(area, (reached.get(area) ?? 0) + 1);
        }
        const where = `${r.method} ${r.path.slice(0, 200)} ${JSON.stringify(r.headers)} ${String(r.body).slice(0, 200)}`;
        if (status < 300 && r.method !== 'GET' && r.method !== 'HEAD') accepted.push(`${status} for ${where}`);
        if (status >= 500) failures.push(`${status} for ${where}: ${text.slice(0, 300)}`);
        else if (status >= 400 && r.method !== 'HEAD' && !isIronicError(text))
          failures.push(`not Ironic's error body for ${where}: ${text.slice(0, 300)}`);
      }
    }),
  );
  console.log(
    `fuzz ${name}: ${samples.length} requests; answers by status: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}; ` +
      `past routing: ${passed}, by area ${JSON.stringify(Object.fromEntries(reached))}` +
      (accepted.length === 0 ? '' : `; writes answered 2xx:\n${accepted.slice(0, 20).join('\n')}`),
  );
  expect(failures.slice(0, 20)).toEqual([]);
  // The test would prove little if requests bounced at routing: most reach a handler, and every
  // area gets its share.
  expect(passed).toBeGreaterThan(runs / 2);
  for (const [area, n] of reached) expect(`${area}: ${n}`).toMatch(/: ([2-9]\d|\d{3,})$/);
  const after = await snapshot(stack);
  const changes = { added: after.filter((i) => !before.includes(i)), removed: before.filter((i) => !after.includes(i)) };
  expect(changes).toEqual({ added: [], removed: [] });
}
