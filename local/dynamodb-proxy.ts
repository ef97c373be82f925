/**
 * A proxy in front of DynamoDB Local: every request is counted by operation (the JSON protocol's
 * X-Amz-Target) and forwarded unchanged, unless a fault rule matches it. Benchmarks read the
 * counts (round trips per request: the unit the AWS bill is made of); tests and `npm start
 * --faults` add rules that make DynamoDB throttle, fail or slow down, by operation and table:
 *
 * - `throughput`: 400 ProvisionedThroughputExceededException (a hot partition, a provisioned table);
 * - `throttling`: 400 ThrottlingException (on-demand capacity growing, control-plane limits);
 * - `request-limit`: 400 RequestLimitExceeded (the account's throughput limit);
 * - `server-error`: 500 InternalServerError, the request not applied;
 * - `server-error-after`: the request forwarded and applied, then 500 instead of its answer (a
 *   write whose outcome the client cannot know);
 * - `transaction-conflict`: 400, the request met a transaction under way on its item: a
 *   TransactionConflictException, or for TransactWriteItems a TransactionCanceledException whose
 *   first item's reason is TransactionConflict;
 * - `latency`: the request forwarded after `latencyMs`.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type DynamoDbFaultAction =
  'throughput' | 'throttling' | 'request-limit' | 'server-error' | 'server-error-after' | 'transaction-conflict' | 'latency';

export interface DynamoDbFault {
  readonly action: DynamoDbFaultAction;
  /** Operations it applies to ("PutItem", "TransactWriteItems"…); default every one. */
  readonly operations?: readonly string[];
  /** Tables it applies to, by the end of their name ("nodes", "uniques"…); default every one. */
  readonly tables?: readonly string[];
  /** Share of the matching requests it hits, in (0, 1]; default 1. */
  readonly rate?: number;
  /** Matching requests it hits before it is spent; default no limit. */
  readonly times?: number;
  /** With `latency`: milliseconds added. */
  readonly latencyMs?: number;
}

/** The error answers, as DynamoDB sends them. */
const ERRORS: Readonly<Record<Exclude<DynamoDbFaultAction, 'latency'>, { status: number; type: string; message: string }>> = {
  throughput: {
    status: 400,
    type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
    message: 'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level.',
  },
  throttling: {
    status: 400,
    type: 'com.amazon.coral.availability#ThrottlingException',
    message: 'Rate of requests exceeds the allowed throughput.',
  },
  'request-limit': {
    status: 400,
    type: 'com.amazonaws.dynamodb.v20120810#RequestLimitExceeded',
    message: 'Throughput exceeds the current throughput limit for your account.',
  },
  'server-error': { status: 500, type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'Internal server error' },
  'server-error-after': { status: 500, type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'Internal server error' },
  'transaction-conflict': {
    status: 400,
    type: 'com.amazonaws.dynamodb.v20120810#TransactionConflictException',
    message: 'Transaction is ongoing for the item',
  },
};

/** A TransactWriteItems met a transaction under way on its first item: DynamoDB's cancellation. */
function transactionConflict(body: string): object | undefined {
  let items: unknown;
  try {
    items = (JSON.parse(body) as { TransactItems?: unknown }).TransactItems;
  } catch {
    return undefined;
  }
  if (!Array.isArray(items)) return undefined;
  const reasons = items.map((_, i) =>
    i === 0 ? { Code: 'TransactionConflict', Message: ERRORS['transaction-conflict'].message } : { Code: 'None' },
  );
  return {
    __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
    CancellationReasons: reasons,
    Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
  };
}

interface Rule extends DynamoDbFault {
  remaining: number;
}

/** The tables a request names: TableName, or the keys of RequestItems, or each transaction item's. */
export function tablesOf(body: string): string[] {
  let input: Record<string, unknown>;
  try {
    input = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return [];
  }
  if (typeof input.TableName === 'string') return [input.TableName];
  if (input.RequestItems !== null && typeof input.RequestItems === 'object') return Object.keys(input.RequestItems);
  if (Array.isArray(input.TransactItems)) {
    return (input.TransactItems as Record<string, { TableName?: string }>[]).flatMap((item) =>
      Object.values(item).flatMap((part) => (typeof part?.TableName === 'string' ? [part.TableName] : [])),
    );
  }
  return [];
}

export class DynamoDbProxy {
  private server: Server | undefined;
  private readonly rules: Rule[] = [];
  /** Operation (e.g. "DynamoDB_20120810.GetItem") → requests received. */
  readonly counts = new Map<string, number>();
  /** Fault action → requests it hit. */
  readonly injected = new Map<DynamoDbFaultAction, number>();
  /**
   * Benchmarks: ask DynamoDB Local for each request's consumed capacity (`ReturnConsumedCapacity:
   * TOTAL` added to requests that set none; the answers pass unchanged) and sum it in `capacity`.
   */
  measureCapacity = false;
  /** With measureCapacity: operation → capacity units consumed (on-demand: request units, by item size). */
  readonly capacity = new Map<string, number>();

  constructor(private readonly target: string) {}

  /** Add a fault rule; rules are tried in the order added, the first matching one applies. */
  addFault(fault: DynamoDbFault): void {
    if (fault.rate !== undefined && !(fault.rate > 0 && fault.rate <= 1))
      throw new Error(`A fault's rate must be in (0, 1]: ${fault.rate}`);
    this.rules.push({ ...fault, remaining: fault.times ?? Number.POSITIVE_INFINITY });
  }

  /** Remove every fault rule. */
  clearFaults(): void {
    this.rules.length = 0;
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Total requests, optionally only those whose operation contains `filter`. */
  total(filter?: string): number {
    let sum = 0;
    for (const [operation, n] of this.counts) if (filter === undefined || operation.includes(filter)) sum += n;
    return sum;
  }

  reset(): void {
    this.counts.clear();
    this.capacity.clear();
  }

  /** Capacity units consumed, optionally only by operations containing `filter`. */
  capacityUnits(filter?: string): number {
    let sum = 0;
    for (const [operation, n] of this.capacity) if (filter === undefined || operation.includes(filter)) sum += n;
    return sum;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = String(req.headers['x-amz-target'] ?? `${req.method} ${req.url}`);
    this.counts.set(target, (this.counts.get(target) ?? 0) + 1);
    if (this.rules.length === 0 && !this.measureCapacity) return this.forward(req, res);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: Buffer = Buffer.concat(chunks);
    if (this.measureCapacity) body = this.askCapacity(req, target, body);
    const rule = this.match(target.slice(target.indexOf('.') + 1), body.toString('utf8'));
    if (rule === undefined) return this.forward(req, res, body);
    this.injected.set(rule.action, (this.injected.get(rule.action) ?? 0) + 1);
    const action = rule.action;
    if (action === 'latency') {
      await new Promise((resolve) => setTimeout(resolve, rule.latencyMs ?? 100));
      return this.forward(req, res, body);
    }
    if (action === 'server-error-after') return this.forward(req, res, body, () => this.answer(res, action));
    this.answer(res, action, action === 'transaction-conflict' ? transactionConflict(body.toString('utf8')) : undefined);
  }

  private askCapacity(req: IncomingMessage, target: string, body: Buffer): Buffer {
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      return body;
    }
    if (input.ReturnConsumedCapacity === undefined) input.ReturnConsumedCapacity = 'TOTAL';
    const changed = Buffer.from(JSON.stringify(input));
    req.headers['content-length'] = String(changed.length);
    this.pendingCapacity.set(req, target);
    return changed;
  }

  /** Requests whose answer carries capacity to sum, by operation. */
  private readonly pendingCapacity = new WeakMap<IncomingMessage, string>();

  private sumCapacity(target: string, answer: Buffer): void {
    try {
      const consumed = (JSON.parse(answer.toString('utf8')) as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      const units = (Array.isArray(consumed) ? consumed : [consumed]).reduce(
        (n: number, c) => n + Number((c as { CapacityUnits?: number } | undefined)?.CapacityUnits ?? 0),
        0,
      );
      this.capacity.set(target, (this.capacity.get(target) ?? 0) + units);
    } catch {
      // not JSON: nothing consumed
    }
  }

  private match(operation: string, body: string): Rule | undefined {
    let tables: string[] | undefined;
    for (const [i, rule] of this.rules.entries()) {
      if (rule.operations !== undefined && !rule.operations.includes(operation)) continue;
      if (rule.tables !== undefined) {
        tables ??= tablesOf(body);
        if (!tables.some((t) => rule.tables!.some((suffix) => t.endsWith(suffix)))) continue;
      }
      if (rule.rate !== undefined && Math.random() >= rule.rate) continue;
      rule.remaining--;
      if (rule.remaining <= 0) this.rules.splice(i, 1);
      return rule;
    }
    return undefined;
  }

  private answer(res: ServerResponse, action: Exclude<DynamoDbFaultAction, 'latency'>, body?: object): void {
    const error = ERRORS[action];
    const text = JSON.stringify(body ?? { __type: error.type, message: error.message });
    res.writeHead(error.status, { 'Content-Type': 'application/x-amz-json-1.0', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  }

  /** Forward the request; `instead` replaces the answer once DynamoDB Local has given it. */
  private forward(req: IncomingMessage, res: ServerResponse, body?: Buffer, instead?: () => void): void {
    const target = new URL(this.target);
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (reply) => {
        if (instead) {
          reply.resume();
          reply.on('end', instead);
          return;
        }
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        const measured = this.pendingCapacity.get(req);
        if (measured !== undefined) {
          const parts: Buffer[] = [];
          reply.on('data', (chunk: Buffer) => parts.push(chunk));
          reply.on('end', () => this.sumCapacity(measured, Buffer.concat(parts)));
        }
        reply.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    if (body === undefined) req.pipe(upstream);
    else upstream.end(body);
  }
}
