/**
 * Deploys on fake-hardware through the whole local stack, and what each deploy costs: Step Functions
 * state transitions, Lambda invocations, DynamoDB reads and writes, SQS messages. 200 nodes deploy
 * at once (`BENCH_DEPLOY_NODES` changes that); the target is ≥ 80 deploys/s and at most 4 state
 * transitions per step plus 4. CPU per deploy is split as the API bench splits it: the functions'
 * execution environments, the host's main thread (Step Functions, SQS, the gateway, this
 * benchmark's polling) and DynamoDB Local.
 */
import { LocalStack } from '../../local/stack';
import { type Bench, cpuPer, cpuSample } from './bench';

const NODES = Number(process.env.BENCH_DEPLOY_NODES ?? 200);
/** Deployed first, unmeasured, so the execution environments and DynamoDB Local are warm (as the API bench warms up). */
const WARMUP_NODES = NODES;

const READS = ['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems'];
const WRITES = ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems'];

const bench: Bench = {
  name: 'deploy',
  async run({ buildDir, log }) {
    const stack = await new LocalStack({ port: 0, inMemory: true, buildDir, schedules: false, countDynamoDbRequests: true }).start();
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
      const waitAll = async (uuids: string[], state: string) => {
        for (const uuid of uuids) {
          for (;;) {
            const node = await api('GET', `/v1/nodes/${uuid}?fields=provision_state,last_error`);
            if (node.provision_state === state) break;
            if (String(node.provision_state).includes('failed')) throw new Error(`${uuid}: ${String(node.last_error)}`);
            await new Promise((r) => setTimeout(r, 20));
          }
        }
      };
      const uuids: string[] = [];
      for (let i = 0; i < NODES + WARMUP_NODES; i++) uuids.push(String((await api('POST', '/v1/nodes', { driver: 'fake-hardware' })).uuid));
      await Promise.all(uuids.map((u) => api('PUT', `/v1/nodes/${u}/states/provision`, { target: 'manage' })));
      await waitAll(uuids, 'manageable');
      await Promise.all(uuids.map((u) => api('PUT', `/v1/nodes/${u}/states/provision`, { target: 'provide' })));
      await waitAll(uuids, 'available');
      const warmup = uuids.splice(0, WARMUP_NODES);
      log(`${warmup.length} nodes deploying to warm the conductor up`);
      await Promise.all(warmup.map((u) => api('PUT', `/v1/nodes/${u}/states/provision`, { target: 'active' })));
      await waitAll(warmup, 'active');
      log(`${NODES} nodes available; deploying`);

      const transitions = stack.sfn.transitions;
      const invocations = new Map(stack.lambda.invocations);
      stack.dynamoRequests?.reset();
      const cpuBefore = cpuSample(stack.dynamoDbPid);
      const started = Date.now();
      await Promise.all(uuids.map((u) => api('PUT', `/v1/nodes/${u}/states/provision`, { target: 'active' })));
      await waitAll(uuids, 'active');
      const seconds = (Date.now() - started) / 1000;
      const cpuMsPerDeploy = cpuPer(cpuBefore, cpuSample(stack.dynamoDbPid), NODES);
      const per = (n: number) => Number((n / NODES).toFixed(2));
      const invoked = (name: string) => (stack.lambda.invocations.get(name) ?? 0) - (invocations.get(name) ?? 0);
      const polls = invoked('api') - NODES; // the bench's own GETs while waiting are API invocations too
      const count = (ops: string[]) => (stack.dynamoRequests ? ops.reduce((n, op) => n + stack.dynamoRequests!.total(`.${op}`), 0) : 0);
      const stepsPerDeploy = 1; // fake deploy: deploy.deploy
      return {
        driver: 'fake-hardware',
        nodes: NODES,
        deploysPerSecond: Number((NODES / seconds).toFixed(1)),
        perDeploy: {
          stateTransitions: per(stack.sfn.transitions - transitions),
          stateTransitionBudget: 4 * stepsPerDeploy + 4,
          lambdaInvocations: per(invoked('conductor') + NODES),
          conductorInvocations: per(invoked('conductor')),
          apiInvocations: 1,
          dynamodbRequests: stack.dynamoRequests ? per(stack.dynamoRequests.total() - polls) : null,
          dynamodbReads: stack.dynamoRequests ? per(count(READS) - polls) : null,
          dynamodbWrites: stack.dynamoRequests ? per(count(WRITES)) : null,
          sqsMessages: 1,
          cpuMs: cpuMsPerDeploy,
        },
        warmupNodes: WARMUP_NODES,
        note: "Measured after a warm-up deploy of warmupNodes other nodes (cold starts are not the steady state). DynamoDB reads exclude the GETs the benchmark itself polls with (one read each); the SQS message is the API's cast.",
      };
    } finally {
      await stack.stop();
    }
  },
};

export default bench;
