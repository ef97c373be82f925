/**
 * DynamoDB throttling and errors, and Step Functions throttling, injected on the local stack
 * (`stack.faults`): the API answers Ironic's 503 with Retry-After once its retries are spent, never
 * a 500; the conductor rides them out — the SDK's retries, then SQS redelivery of a message, then
 * Step Functions' Retry of a step — and no step or node fails for them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_PROFILES } from '../../functions/db/dynamo';
import type { LocalStack } from '../../local/stack';
import { ApiClient, type Json, type Reply, faultOf, startStack } from './helpers/stack';
import { TestAgent } from './helpers/test-agent';

let stack: LocalStack;
let api: ApiClient;
const agents: TestAgent[] = [];

beforeAll(async () => {
  stack = await startStack({
    faults: true,
    // Long enough for SendTask* calls the SDK retries after throttling (up to about 7 s). No
    // automated cleaning: nodes are made available before any fault, and the faults are about deploys.
    settings: {
      heartbeatTimeoutSeconds: 20,
      callbackTimeoutSeconds: 60,
      postDeployPowerStateRetryIntervalSeconds: 1,
      automatedClean: false,
    },
  });
  api = new ApiClient(stack.url, '1.82');
}, 60_000);

afterEach(() => stack.faults.clear());

afterAll(async () => {
  await Promise.all(agents.map((a) => a.stop()));
  await stack?.stop();
});

/** DynamoDB faults injected since the test began, by action. */
let before: Record<string, number> = {};
beforeEach(() => {
  before = stack.faults.injected().dynamodb;
});
const injected = () => {
  const now = stack.faults.injected().dynamodb;
  return Object.fromEntries(Object.entries(now).map(([action, n]) => [action, n - (before[action] ?? 0)]));
};
const conductorLog = () => readFileSync(join(stack.logDir, 'conductor.log'), 'utf8');

/** A node of fake hardware, made available (without faults). */
async function availableNode(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const created = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name, ...extra });
  expect(created.status).toBe(201);
  const uuid = created.body.uuid as string;
  await api.provision(uuid, 'manage');
  await api.waitFor(uuid, 'manageable');
  await api.provision(uuid, 'provide');
  await api.waitFor(uuid, 'available', 30_000);
  return uuid;
}

function expectUnavailable(reply: Reply): void {
  expect(reply.status).toBe(503);
  expect(reply.headers.get('retry-after')).toBe('2');
  expect(faultOf(reply)).toEqual({ faultcode: 'Server', faultstring: 'Resource temporarily unavailable, please retry.', debuginfo: null });
}

describe('the API', () => {
  it('answers 503 with Retry-After, never a 500, once throttling outlasts its retries, and serves again after', async () => {
    const node = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: 'throttled-get' });
    expect(node.status).toBe(201);

    stack.faults.dynamodb({ action: 'throughput', operations: ['GetItem'], tables: ['nodes'] });
    expectUnavailable(await api.get(`/v1/nodes/${node.body.uuid}`));
    // Every attempt the API's client makes was throttled: the SDK retried before giving up.
    expect(injected().throughput).toBe(CLIENT_PROFILES.api.maxAttempts);
    stack.faults.clear();
    expect((await api.get(`/v1/nodes/${node.body.uuid}`)).status).toBe(200);

    for (const action of ['throttling', 'request-limit', 'server-error'] as const) {
      stack.faults.dynamodb({ action, operations: ['Query', 'BatchGetItem'] });
      expectUnavailable(await api.get('/v1/nodes?detail=true'));
      stack.faults.clear();
    }
    expect(injected()).toMatchObject({ throttling: 3, 'request-limit': 3, 'server-error': 3 });
  });

  it('answers 503 to a create whose name claim is throttled, and gives the name back for the retry', async () => {
    stack.faults.dynamodb({ action: 'throughput', operations: ['PutItem'], tables: ['nodes'] });
    expectUnavailable(await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: 'throttled-create' }));
    stack.faults.clear();
    const retried = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: 'throttled-create' });
    expect(retried.status).toBe(201);
  });

  it('keeps a create whose node was written but whose answer was lost: its name stays claimed by it', async () => {
    stack.faults.dynamodb({ action: 'server-error-after', operations: ['PutItem'], tables: ['nodes'], times: 1 });
    const created = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: 'lost-answer' });
    // The SDK retried the put, found its own node there (the claims module tells it apart by its
    // sort id), and the create succeeded.
    expect(created.status).toBe(201);
    expect(injected()['server-error-after']).toBe(1);
    expect((await api.get('/v1/nodes/lost-answer')).body.uuid).toBe(created.body.uuid);
    const again = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: 'lost-answer' });
    expect(again.status).toBe(409);
  });
});

describe('the conductor', () => {
  it('has a message DynamoDB throttled beyond its retries delivered again, and the deploy succeeds', async () => {
    const uuid = await availableNode('throttled-message');
    // The deploy's message waits in the queue while the conductor's first write of the node is made to fail.
    stack.setEventSourcesEnabled(false);
    await api.provision(uuid, 'active');
    stack.faults.dynamodb({
      action: 'throughput',
      operations: ['PutItem'],
      tables: ['nodes'],
      times: CLIENT_PROFILES.conductor.maxAttempts,
    });
    stack.setEventSourcesEnabled(true);
    const active = await api.waitFor(uuid, 'active', 60_000);
    expect(active.last_error).toBeNull();
    expect(injected().throughput).toBe(CLIENT_PROFILES.conductor.maxAttempts);
    expect(conductorLog()).toContain('DynamoDB unavailable: the RPC message will be delivered again');
  }, 90_000);

  it('has a step DynamoDB throttled beyond its retries run again by Step Functions, and no step fails', async () => {
    const uuid = await availableNode('throttled-step');
    // The step's lock (a conditional update of the node) is refused more often than the conductor
    // retries: the task fails with DatabaseUnavailable, which the steps machine retries.
    stack.faults.dynamodb({
      action: 'throughput',
      operations: ['UpdateItem'],
      tables: ['nodes'],
      times: CLIENT_PROFILES.conductor.maxAttempts + 1,
    });
    await api.provision(uuid, 'active');
    const active = await api.waitFor(uuid, 'active', 60_000);
    expect(active.last_error).toBeNull();
    expect(injected().throughput).toBe(CLIENT_PROFILES.conductor.maxAttempts + 1);
    const history = (await api.get(`/v1/nodes/${uuid}/history`)).body.history as Json[];
    expect(history.filter((h) => h.severity === 'ERROR')).toEqual([]);
  }, 90_000);

  it('deploys every node while a third of node writes are throttled and slow, with no 500 and no failed step', async () => {
    const uuids = await Promise.all(Array.from({ length: 6 }, (_, i) => availableNode(`throttled-load-${i}`)));
    stack.faults.dynamodb({
      action: 'throughput',
      operations: ['PutItem', 'UpdateItem', 'TransactWriteItems'],
      tables: ['nodes'],
      rate: 0.33,
    });
    stack.faults.dynamodb({ action: 'latency', latencyMs: 30, rate: 0.2 });
    const statuses = new Map<number, number>();
    let retryAfterMissing = 0;
    // As python-ironicclient does: a 503 is sent again after the time Retry-After names.
    const send = async (uuid: string, target: string) => {
      for (;;) {
        const reply = await api.request('PUT', `/v1/nodes/${uuid}/states/provision`, { target });
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        if (reply.status !== 503) return reply;
        if (reply.headers.get('retry-after') === null) retryAfterMissing++;
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    for (const uuid of uuids) expect((await send(uuid, 'active')).status).toBe(202);
    const settled = await Promise.all(uuids.map((uuid) => api.settle(uuid, ['active', 'deploy failed'], 90_000)));
    stack.faults.clear();
    expect(settled.map((n) => `${n.name}: ${n.provision_state} ${n.last_error}`)).toEqual(
      uuids.map((_, i) => `throttled-load-${i}: active null`),
    );
    expect([...statuses.keys()].filter((s) => s >= 500 && s !== 503)).toEqual([]);
    expect(retryAfterMissing).toBe(0);
    expect(injected().throughput).toBeGreaterThan(0);
  }, 180_000);

  it('completes an agent’s step when Step Functions throttles SendTaskSuccess (the SDK retries it)', async () => {
    const created = await api.request('POST', '/v1/nodes', {
      driver: 'fake-hardware',
      name: 'throttled-sfn',
      deploy_interface: 'direct',
      automated_clean: false,
    });
    const uuid = created.body.uuid as string;
    const agent = await new TestAgent({ api: stack.url, node: uuid }).run();
    agent.deploySteps = [{ interface: 'deploy', step: 'write_image', priority: 0 }];
    agents.push(agent);
    await api.provision(uuid, 'manage');
    await api.waitFor(uuid, 'manageable');
    await api.provision(uuid, 'provide');
    await api.waitFor(uuid, 'available', 30_000);
    await api.request('PATCH', `/v1/nodes/${uuid}`, [
      { op: 'add', path: '/instance_info', value: { image_source: 'http://images.example/disk.raw', image_checksum: 'f00d' } },
    ]);
    stack.faults.stepFunctions({ error: 'throttling', actions: ['SendTaskSuccess'], times: 3 });
    stack.faults.stepFunctions({ error: 'server-error', actions: ['SendTaskHeartbeat'], times: 2 });
    await api.provision(uuid, 'active');
    const active = await api.waitFor(uuid, 'active', 60_000);
    expect(active.last_error).toBeNull();
    expect(stack.faults.injected().stepFunctions).toMatchObject({ SendTaskSuccess: 3 });
  }, 90_000);
});
