/**
 * Chaos: 100 nodes receive random verbs concurrently while faults are injected everywhere:
 * conductor invocations crash (as they start, or some milliseconds in) or run past their timeout,
 * DynamoDB throttles, slows down and fails requests, and RPC messages are delivered twice.
 * Afterwards every node is in a stable or failed state, no lock outlives its expiry, no message's
 * work ran more than once (Step Functions executions and completed actions, counted by message
 * id), the API answered no 5xx but 503 with Retry-After, every failure is explained by the node's
 * history, and every failed node recovers once the faults stop.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { LocalStack } from '../../local/stack';
import { ApiClient, type Json, SHORT_STEP_LIMITS, startStack } from './helpers/stack';

const NODES = 100;
/** Nodes made available before the burst, so that deploys (and their steps) happen from its start. */
const READY = 30;
/** The burst lasts BURST_MS, and longer (up to BURST_MAX_MS) until MIN_ACCEPTED verbs were accepted: the machine may be busy. */
const BURST_MS = 12_000;
const BURST_MAX_MS = 60_000;
const MIN_ACCEPTED = 150;
const STABLE = ['enroll', 'manageable', 'available', 'active', 'error', 'rescue'];
const FAILED = ['deploy failed', 'clean failed', 'inspect failed', 'adopt failed', 'rescue failed', 'unrescue failed', 'service failed'];
/** Verbs the burst picks from, by the state a node was last seen in: provision targets and power targets. */
const POWER = ['power on', 'power off', 'reboot'];
const VERBS: Readonly<Record<string, readonly string[]>> = {
  enroll: ['manage', ...POWER],
  manageable: ['provide', 'inspect', ...POWER],
  available: ['active', 'manage', ...POWER],
  active: ['deleted', 'rebuild', ...POWER],
  'deploy failed': ['deleted', 'active'],
  'clean failed': ['manage'],
  'inspect failed': ['manage'],
  error: ['deleted'],
};
/** How a node in a failed state is brought back, and where that leads. */
const RECOVERY: Readonly<Record<string, readonly [string, string]>> = {
  'deploy failed': ['deleted', 'available'],
  error: ['deleted', 'available'],
  'clean failed': ['manage', 'manageable'],
  'inspect failed': ['manage', 'manageable'],
  'adopt failed': ['manage', 'manageable'],
};

let stack: LocalStack;
let api: ApiClient;
let sqs: SQSClient;
const statuses = new Map<number, number>();

beforeAll(async () => {
  // Short lifetimes, so killed invocations' locks expire and their messages return within the test.
  stack = await startStack({
    faults: true,
    settings: { conductorTimeoutSeconds: 4, stepTimeoutSeconds: 3, lockTtlSeconds: 6, ...SHORT_STEP_LIMITS },
  });
  api = new ApiClient(stack.url, '1.82');
  sqs = new SQSClient({
    endpoint: stack.endpoints.sqs,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}, 60_000);

afterAll(async () => {
  sqs?.destroy();
  await stack?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;

/** Send one verb; count its answer, and count it as accepted (202) per node. A 5xx other than 503 with Retry-After fails the test. */
async function send(node: string, verb: string, accepted: Map<string, number>): Promise<void> {
  const power = verb.startsWith('power') || verb === 'reboot';
  const reply = power
    ? await api.request('PUT', `/v1/nodes/${node}/states/power`, { target: verb === 'reboot' ? 'rebooting' : verb })
    : await api.request('PUT', `/v1/nodes/${node}/states/provision`, { target: verb });
  const unavailable = reply.status === 503 && reply.headers.get('retry-after') !== null;
  if (reply.status >= 500 && !unavailable) throw new Error(`${verb} on ${node}: ${reply.status} ${reply.text}`);
  statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
  if (reply.status === 202) accepted.set(node, (accepted.get(node) ?? 0) + 1);
}

/** Deliver a copy of about a third of the RPC messages in flight (same body, same message id). */
async function duplicate(stop: () => boolean, seen: Set<string>): Promise<number> {
  let copies = 0;
  while (!stop()) {
    for (const queue of stack.queues) {
      // VisibilityTimeout 0: the conductor's own poller still gets the original at once.
      const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.url, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }));
      for (const m of out.Messages ?? []) {
        if (seen.has(m.MessageId as string)) continue;
        seen.add(m.MessageId as string);
        if (Math.random() < 0.35) {
          await sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: m.Body as string }));
          copies++;
        }
      }
    }
    await sleep(20);
  }
  return copies;
}

/**
 * Faults, at random: conductor invocations killed (before the handler runs, or a few ms in) or
 * timed out (their work done up to then, their answer lost); DynamoDB throttling writes and reads
 * of nodes, failing some requests, slowing others.
 */
function injectChaos(): void {
  const match = () => Math.random() < 0.06;
  // A quarter of the synchronous steps die or time out: their flows fail, to be recovered later.
  const step = (event: unknown) => (event as { entry?: string; action?: string }).action === 'run' && Math.random() < 0.25;
  // The first two invocations time out and crash a few ms in, whatever the dice say below: a
  // quiet machine may run too few invocations for every kind of fault to come up at random.
  stack.faults.lambda({ function: 'conductor', action: 'timeout', afterMs: 0, times: 1 });
  stack.faults.lambda({ function: 'conductor', action: 'crash', afterMs: 0, times: 1 });
  stack.faults.lambda({ function: 'conductor', action: 'crash', afterMs: 5, match: step, times: 1_000 });
  stack.faults.lambda({ function: 'conductor', action: 'timeout', afterMs: 30, match: step, times: 1_000 });
  stack.faults.lambda({ function: 'conductor', action: 'crash', match, times: 1_000 });
  for (const afterMs of [5, 20, 60]) stack.faults.lambda({ function: 'conductor', action: 'crash', afterMs, match, times: 1_000 });
  for (const afterMs of [10, 50, 200]) stack.faults.lambda({ function: 'conductor', action: 'timeout', afterMs, match, times: 1_000 });
  stack.faults.dynamodb({
    action: 'throughput',
    operations: ['PutItem', 'UpdateItem', 'TransactWriteItems'],
    tables: ['nodes'],
    rate: 0.08,
  });
  stack.faults.dynamodb({ action: 'throttling', operations: ['GetItem', 'Query', 'BatchGetItem'], rate: 0.03 });
  stack.faults.dynamodb({ action: 'server-error', rate: 0.01 });
  stack.faults.dynamodb({ action: 'latency', latencyMs: 25, rate: 0.05 });
}

async function nodes(): Promise<Json[]> {
  return (await api.get('/v1/nodes?detail=true&limit=1000')).body.nodes as Json[];
}

const busy = (n: Json) =>
  !(STABLE.includes(n.provision_state) || FAILED.includes(n.provision_state)) || n.reservation !== null || n.target_power_state !== null;

/** The message id in the name of a steps execution (`<flow>-<node uuid prefix>-<message id>`). */
const messageOf = (execution: string) => execution.split('-').slice(2).join('-');

/** Completed actions by message id, from the conductor's log lines that name the message. */
function actionsByMessage(): Map<string, string[]> {
  const done = new Map<string, string[]>();
  const text = readFileSync(join(stack.logDir, 'conductor.log'), 'utf8');
  for (const line of text.split('\n')) {
    const json = line.slice(line.indexOf('{'));
    if (!json.startsWith('{')) continue;
    let entry: { message?: string; message_id?: string };
    try {
      entry = JSON.parse(json);
    } catch {
      continue;
    }
    const message = entry.message ?? '';
    if (typeof entry.message_id !== 'string' || !(message === 'Power state changed' || / finished$/.test(message))) continue;
    done.set(entry.message_id, [...(done.get(entry.message_id) ?? []), message]);
  }
  return done;
}

it('leaves every node stable or failed, unlocked, each message’s work done at most once, every failure explained and recovered', async () => {
  const created = await Promise.all(
    Array.from({ length: NODES }, (_, i) => api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: `chaos-${i}` })),
  );
  expect(created.filter((r) => r.status !== 201).map((r) => `${r.status} ${r.text}`)).toEqual([]);
  const uuids = created.map((r) => r.body.uuid as string);
  await Promise.all(
    uuids.slice(0, READY).map(async (uuid) => {
      await api.provision(uuid, 'manage');
      await api.waitFor(uuid, 'manageable', 60_000);
      await api.provision(uuid, 'provide');
      await api.waitFor(uuid, 'available', 60_000);
    }),
  );

  const accepted = new Map<string, number>();
  const seen = new Set<string>();
  let burstOver = false;
  injectChaos();
  const duplicator = duplicate(() => burstOver, seen);
  const started = Date.now();
  const going = () => {
    const elapsed = Date.now() - started;
    const total = [...accepted.values()].reduce((a, b) => a + b, 0);
    return elapsed < BURST_MS || (elapsed < BURST_MAX_MS && total < MIN_ACCEPTED);
  };
  // Eight clients, each sending random verbs to random nodes.
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (going()) {
        const node = pick(uuids);
        const read = await api.get(`/v1/nodes/${node}?fields=provision_state`);
        if (read.status >= 500 && !(read.status === 503 && read.headers.get('retry-after') !== null))
          throw new Error(`GET ${node}: ${read.status} ${read.text}`);
        const state = read.body?.provision_state as string;
        await send(node, pick(VERBS[state] ?? POWER), accepted);
      }
    }),
  );
  burstOver = true;
  const copies = await duplicator;
  const injected = stack.faults.injected();

  // Quiesce: no more faults; expired locks are reclaimed and stuck states failed by the periodic tasks.
  stack.faults.clear();
  let last: Json[] = [];
  const settleBy = Date.now() + 40_000;
  while (Date.now() < settleBy) {
    await stack.lambda.invoke('conductor:live', { entry: 'periodic', task: 'fail_stuck_nodes' });
    // Abandoned power targets are cleared by the power sync, which reads every node anyway.
    await stack.lambda.invoke('conductor:live', { entry: 'periodic', task: 'sync_power_states' });
    last = await nodes();
    if (last.filter(busy).length === 0) break;
    await sleep(1_000);
  }
  const unsettled = last
    .filter(busy)
    .map(
      (n) => `${n.name}: ${n.provision_state} → ${n.target_provision_state}, lock ${n.reservation}, power target ${n.target_power_state}`,
    );
  expect(unsettled).toEqual([]);

  // Each message's work ran at most once: one steps execution per message id, one completed
  // action per message id, however often the message was delivered (copies, redeliveries).
  const executions = stack.sfn.listExecutions(stack.stateMachineArn).map((e) => messageOf(e.name));
  const executionsPerMessage = new Map<string, number>();
  for (const id of executions) executionsPerMessage.set(id, (executionsPerMessage.get(id) ?? 0) + 1);
  expect([...executionsPerMessage].filter(([, n]) => n > 1)).toEqual([]);
  const actions = actionsByMessage();
  expect([...actions].filter(([, done]) => done.length > 1)).toEqual([]);
  const totalAccepted = [...accepted.values()].reduce((a, b) => a + b, 0);
  expect(executionsPerMessage.size + actions.size).toBeLessThanOrEqual(totalAccepted);

  // Every node with an error has it in its history, as the newest entry with that text.
  const unexplained: string[] = [];
  for (const node of last.filter((n) => n.last_error !== null)) {
    const history = (await api.get(`/v1/nodes/${node.uuid}/history?detail=true`)).body.history as Json[];
    const newest = history[history.length - 1];
    if (newest?.event !== node.last_error || newest?.severity !== 'ERROR') unexplained.push(`${node.name}: ${node.last_error}`);
  }
  expect(unexplained).toEqual([]);

  // The chaos really happened: faults of every kind injected, verbs accepted, messages copied, nodes failed.
  console.log(
    `chaos: answers by status ${JSON.stringify(Object.fromEntries(statuses))}; faults injected ${JSON.stringify(injected)}; ` +
      `${totalAccepted} verbs accepted, ${copies} messages delivered twice, ${executionsPerMessage.size} executions, ${actions.size} other actions`,
  );
  expect(totalAccepted).toBeGreaterThan(NODES / 2);
  expect(copies).toBeGreaterThan(0);
  expect(injected.lambda).toMatchObject({ crash: expect.any(Number), timeout: expect.any(Number) });
  expect(injected.dynamodb).toMatchObject({ throughput: expect.any(Number), throttling: expect.any(Number) });
  const failed = last.filter((n) => FAILED.includes(n.provision_state) || n.provision_state === 'error');
  expect(failed.length).toBeGreaterThan(0);

  // Every failed node recovers once the faults stop.
  const recovered = await Promise.all(
    failed.map(async (n) => {
      const [verb, target] = RECOVERY[n.provision_state as string] ?? ['manage', 'manageable'];
      await api.provision(n.uuid, verb);
      const node = await api.settle(n.uuid, [target, ...FAILED], 60_000);
      return `${n.name}: ${n.provision_state} → ${node.provision_state}`;
    }),
  );
  console.log(`chaos: ${failed.length} nodes failed and recovered: ${recovered.join('; ')}`);
  expect(recovered).toEqual(
    failed.map((n) => `${n.name}: ${n.provision_state} → ${(RECOVERY[n.provision_state as string] ?? ['', 'manageable'])[1]}`),
  );
}, 300_000);
