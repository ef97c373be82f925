/**
 * Direct (agent) deploys through the whole local stack, each node with an IPA-protocol test agent
 * heartbeating every 3 s: deploys/s, and per deploy the Step Functions state transitions (budget:
 * 4 per step plus 4), Lambda invocations, DynamoDB reads and writes, SQS messages (the deploy's
 * cast and one per heartbeat). `BENCH_AGENT_NODES` sets the number of nodes (default 10).
 */
import { LocalStack } from '../../local/stack';
import { TestAgent } from '../integration/helpers/test-agent';
import { FUNCTION_MEMORY_MB } from '../../lib/settings';
import { type Bench, WorkMeter, rounded, waitForProvisionState } from './bench';

const NODES = Number(process.env.BENCH_AGENT_NODES ?? 10);
const READS = ['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems'];
const WRITES = ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems'];
/** The history event the conductor writes as each deploy step starts. */
const DEPLOY_STEP_STARTED = /^Deploy step \S+ \(priority -?\d+\) started$/;

const bench: Bench = {
  name: 'agent-deploy',
  async run({ buildDir, log }) {
    const stack = await new LocalStack({
      port: 0,
      inMemory: true,
      buildDir,
      schedules: false,
      countDynamoDbRequests: true,
      settings: { heartbeatTimeoutSeconds: 60, callbackTimeoutSeconds: 600 },
    }).start();
    const agents: TestAgent[] = [];
    try {
      const api = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${stack.url}${path}`, {
          method,
          headers: { 'X-OpenStack-Ironic-API-Version': '1.78', 'Content-Type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
        return text ? (JSON.parse(text) as Record<string, unknown>) : {};
      };
      const uuids: string[] = [];
      for (let i = 0; i < NODES; i++) {
        const node = await api('POST', '/v1/nodes', { driver: 'fake-hardware', deploy_interface: 'direct', automated_clean: false });
        uuids.push(String(node.uuid));
      }
      await Promise.all(uuids.map((u) => api('PUT', `/v1/nodes/${u}/states/provision`, { target: 'manage' })));
      await waitForProvisionState(stack, uuids, 'manageable');
      await Promise.all(uuids.map((u) => api('PUT', `/v1/nodes/${u}/states/provision`, { target: 'provide' })));
      await waitForProvisionState(stack, uuids, 'available');
      for (const uuid of uuids) {
        await api('PATCH', `/v1/nodes/${uuid}`, [
          { op: 'add', path: '/instance_info', value: { image_source: 'http://images.example/disk.raw', image_checksum: 'f00d' } },
        ]);
        const agent = await new TestAgent({ api: stack.url, node: uuid, heartbeatMs: 3000, stepMs: 100 }).run();
        agent.deploySteps = [{ interface: 'deploy', step: 'write_image', priority: 0 }];
        agents.push(agent);
      }
      log(`${NODES} nodes available with agents; deploying`);

      const transitions = stack.sfn.transitions;
      const invocations = new Map(stack.lambda.invocations);
      const beatsBefore = agents.reduce((n, a) => n + a.heartbeats.length, 0);
      const sqsMessages = stack.sqsMessages;
      stack.dynamoRequests?.reset();
      const meter = new WorkMeter(stack, FUNCTION_MEMORY_MB);
      const started = Date.now();
      await Promise.all(uuids.map((u) => api('PUT', `/v1/nodes/${u}/states/provision`, { target: 'active' })));
      await waitForProvisionState(stack, uuids, 'active');
      const seconds = (Date.now() - started) / 1000;
      const work = meter.per(NODES);
      const per = (n: number) => Number((n / NODES).toFixed(2));
      const invoked = (name: string) => (stack.lambda.invocations.get(name) ?? 0) - (invocations.get(name) ?? 0);
      const heartbeats = agents.reduce((n, a) => n + a.heartbeats.length, 0) - beatsBefore;
      const count = (ops: string[]) => (stack.dynamoRequests ? ops.reduce((n, op) => n + stack.dynamoRequests!.total(`.${op}`), 0) : 0);
      const counts = {
        stateTransitions: per(stack.sfn.transitions - transitions),
        lambdaInvocations: per(invoked('conductor') + invoked('api')),
        apiInvocations: per(invoked('api')),
        conductorInvocations: per(invoked('conductor')),
        heartbeats: per(heartbeats),
        dynamodbReads: stack.dynamoRequests ? per(count(READS)) : null,
        dynamodbWrites: stack.dynamoRequests ? per(count(WRITES)) : null,
        sqsMessages: per(stack.sqsMessages - sqsMessages),
      };
      // The steps each deploy ran, from the history the conductor wrote (read after the counting).
      let steps = 0;
      for (const uuid of uuids) {
        const { history } = (await api('GET', `/v1/nodes/${uuid}/history`)) as { history: { event: string }[] };
        steps += history.filter((h) => DEPLOY_STEP_STARTED.test(h.event)).length;
      }
      return {
        driver: 'fake-hardware',
        deployInterface: 'direct',
        nodes: NODES,
        deploysPerSecond: Number((NODES / seconds).toFixed(2)),
        perDeploy: {
          steps: per(steps),
          ...counts,
          stateTransitionBudget: 4 * per(steps) + 4,
          /** What the dollar figures price (cost.ts). */
          work: rounded(work),
        },
        note: 'Agents heartbeat every 3 s and finish a step in 100 ms (a real agent: every 30-60 % of the heartbeat timeout). API invocations are the deploy request, the agents\' lookups (including the failed ones before the ramdisk "boots") and heartbeats; nodes are watched by reading DynamoDB Local directly, uncounted.',
      };
    } finally {
      await Promise.all(agents.map((a) => a.stop()));
      await stack.stop();
    }
  },
};

export default bench;
