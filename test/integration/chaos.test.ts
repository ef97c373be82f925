/**
 * Chaos: 100 nodes receive random verbs concurrently while conductor invocations are killed at
 * random points (as they start, or some milliseconds in) and RPC messages are delivered twice.
 * Afterwards every node is in a stable or failed state, no lock outlives its expiry, no action ran
 * more often than it was asked for, and every failure is explained by the node's history.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { LocalStack } from '../../local/stack';
import { ApiClient, type Json, SHORT_STEP_LIMITS, startStack } from './helpers/stack';

const NODES = 100;
const BURST_MS = 12_000;
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

let stack: LocalStack;
let api: ApiClient;
let sqs: SQSClient;
const statuses = new Map<number, number>();

beforeAll(async () => {
  // Short lifetimes, so killed invocations' locks expire and their messages return within the test.
  stack = await startStack({ settings: { conductorTimeoutSeconds: 4, stepTimeoutSeconds: 3, lockTtlSeconds: 6, ...SHORT_STEP_LIMITS } });
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

/** Send one verb; count it when the API accepted it (202), per node and kind. */
async function send(node: string, verb: string, accepted: Map<string, number>): Promise<void> {
  const power = verb.startsWith('power') || verb === 'reboot';
  const reply = power
    ? await api.request('PUT', `/v1/nodes/${node}/states/power`, { target: verb === 'reboot' ? 'rebooting' : verb })
    : await api.request('PUT', `/v1/nodes/${node}/states/provision`, { target: verb });
  if (reply.status >= 500) throw new Error(`${verb} on ${node}: ${reply.status} ${reply.text}`);
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

/** Kill conductor invocations at random: some before the handler runs, some a few ms in. */
function injectChaos(): void {
  const match = () => Math.random() < 0.08;
  stack.lambda.injectFault({ function: 'conductor', action: 'crash', match, times: 1_000 });
  for (const afterMs of [5, 20, 60]) stack.lambda.injectFault({ function: 'conductor', action: 'crash', afterMs, match, times: 1_000 });
}

async function nodes(): Promise<Json[]> {
  return (await api.get('/v1/nodes?detail=true&limit=1000')).body.nodes as Json[];
}

/** Completed conductor actions per node, from the conductor's own log lines (one per action done). */
function completedActions(): Map<string, number> {
  const done = new Map<string, number>();
  const text = readFileSync(join(stack.logDir, 'conductor.log'), 'utf8');
  for (const line of text.split('\n')) {
    const json = line.slice(line.indexOf('{'));
    if (!json.startsWith('{')) continue;
    let entry: { message?: string; node?: string };
    try {
      entry = JSON.parse(json);
    } catch {
      continue;
    }
    const message = entry.message ?? '';
    const action = message === 'Power state changed' || / finished$/.test(message) || message === 'Steps machine started';
    if (action && entry.node)
      done.set(
        `${entry.node} ${message === 'Steps machine started' ? 'steps' : 'done'}`,
        (done.get(`${entry.node} ${message === 'Steps machine started' ? 'steps' : 'done'}`) ?? 0) + 1,
      );
  }
  return done;
}

it('leaves every node stable or failed, unlocked, each action run at most once, every failure in its history', async () => {
  const created = await Promise.all(
    Array.from({ length: NODES }, (_, i) => api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: `chaos-${i}` })),
  );
  expect(created.filter((r) => r.status !== 201).map((r) => `${r.status} ${r.text}`)).toEqual([]);
  const uuids = created.map((r) => r.body.uuid as string);

  const accepted = new Map<string, number>();
  const seen = new Set<string>();
  let burstOver = false;
  injectChaos();
  const duplicator = duplicate(() => burstOver, seen);
  const deadline = Date.now() + BURST_MS;
  // Eight clients, each sending random verbs to random nodes.
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (Date.now() < deadline) {
        const node = pick(uuids);
        const state = (await api.get(`/v1/nodes/${node}?fields=provision_state`)).body?.provision_state as string;
        await send(node, pick(VERBS[state] ?? POWER), accepted);
      }
    }),
  );
  burstOver = true;
  const copies = await duplicator;

  // Quiesce: no more kills; expired locks are reclaimed and stuck states failed by the periodic task.
  stack.lambda.clearFaults();
  let last: Json[] = [];
  const settleBy = Date.now() + 40_000;
  while (Date.now() < settleBy) {
    await stack.lambda.invoke('conductor:live', { entry: 'periodic', task: 'fail_stuck_nodes' });
    last = await nodes();
    const busy = last.filter(
      (n) =>
        !(STABLE.includes(n.provision_state) || FAILED.includes(n.provision_state)) ||
        n.reservation !== null ||
        n.target_power_state !== null,
    );
    if (busy.length === 0) break;
    await sleep(1_000);
  }
  const unsettled = last
    .filter(
      (n) =>
        !(STABLE.includes(n.provision_state) || FAILED.includes(n.provision_state)) ||
        n.reservation !== null ||
        n.target_power_state !== null,
    )
    .map(
      (n) => `${n.name}: ${n.provision_state} → ${n.target_provision_state}, lock ${n.reservation}, power target ${n.target_power_state}`,
    );
  expect(unsettled).toEqual([]);

  // No action ran more often than the API accepted verbs for its node (a redelivered copy does nothing).
  const done = completedActions();
  const overrun = uuids.filter(
    (u) => (done.get(`${u} done`) ?? 0) > (accepted.get(u) ?? 0) || (done.get(`${u} steps`) ?? 0) > (accepted.get(u) ?? 0),
  );
  expect(overrun).toEqual([]);

  // Every node with an error has it in its history, as the newest entry with that text.
  const unexplained: string[] = [];
  for (const node of last.filter((n) => n.last_error !== null)) {
    const history = (await api.get(`/v1/nodes/${node.uuid}/history?detail=true`)).body.history as Json[];
    const newest = history[history.length - 1];
    if (newest?.event !== node.last_error || newest?.severity !== 'ERROR') unexplained.push(`${node.name}: ${node.last_error}`);
  }
  expect(unexplained).toEqual([]);

  console.log(`chaos: answers by status ${JSON.stringify(Object.fromEntries(statuses))}`);
  // The chaos really happened: verbs were accepted, messages copied, nodes failed.
  const totalAccepted = [...accepted.values()].reduce((a, b) => a + b, 0);
  expect(totalAccepted).toBeGreaterThan(NODES / 2);
  expect(copies).toBeGreaterThan(0);
  console.log(
    `chaos: ${totalAccepted} verbs accepted, ${copies} messages delivered twice, ` +
      `${last.filter((n) => FAILED.includes(n.provision_state)).length} nodes failed, ${last.filter((n) => n.last_error !== null).length} with last_error`,
  );
}, 90_000);
