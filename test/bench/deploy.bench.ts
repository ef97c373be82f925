/**
 * Deploys on fake-hardware through the whole local stack, and what each deploy costs: Step Functions
 * state transitions, Lambda invocations, DynamoDB reads and writes, SQS messages, all counted. 200
 * nodes deploy at once (`BENCH_DEPLOY_NODES` changes that); the target is ≥ 80 deploys/s and at
 * most 4 state transitions per step plus 4. CPU per deploy is split as the API bench splits it: the
 * functions' execution environments, the host's main thread (Step Functions, SQS, the gateway,
 * the DynamoDB counting proxy) and DynamoDB Local.
 *
 * The figure is the steady state: as many other nodes first deploy and undeploy
 * `BENCH_DEPLOY_WARMUP_ROUNDS` times, because DynamoDB Local's JIT and each execution
 * environment's take thousands of requests to settle (the first round runs at about half the
 * speed of the sixth; `warmup` has each round's rate, `warmup.deploysPerSecond[0]` is a cold stack).
 */
import { LocalStack } from '../../local/stack';
import { FUNCTION_MEMORY_MB } from '../../lib/settings';
import { type Bench, WorkMeter, cpuPer, cpuSample, rounded, waitForProvisionState } from './bench';

const NODES = Number(process.env.BENCH_DEPLOY_NODES ?? 200);
const WARMUP_ROUNDS = Number(process.env.BENCH_DEPLOY_WARMUP_ROUNDS ?? 6);

const READS = ['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems'];
const WRITES = ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems'];
/** The history event the conductor writes as each deploy step starts. */
const DEPLOY_STEP_STARTED = /^Deploy step \S+ \(priority -?\d+\) started$/;

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
      const provision = (uuids: string[], target: string) =>
        Promise.all(uuids.map((u) => api('PUT', `/v1/nodes/${u}/states/provision`, { target })));
      const uuids: string[] = [];
      for (let i = 0; i < 2 * NODES; i++) uuids.push(String((await api('POST', '/v1/nodes', { driver: 'fake-hardware' })).uuid));
      await provision(uuids, 'manage');
      await waitForProvisionState(stack, uuids, 'manageable');
      await provision(uuids, 'provide');
      await waitForProvisionState(stack, uuids, 'available');

      const warmup = uuids.splice(0, NODES);
      const warmupRates: number[] = [];
      for (let round = 0; round < WARMUP_ROUNDS; round++) {
        const started = Date.now();
        await provision(warmup, 'active');
        await waitForProvisionState(stack, warmup, 'active');
        warmupRates.push(Number((NODES / ((Date.now() - started) / 1000)).toFixed(1)));
        log(`warm-up round ${round + 1}/${WARMUP_ROUNDS}: ${warmupRates[round]} deploys/s`);
        await provision(warmup, 'deleted');
        await waitForProvisionState(stack, warmup, 'available');
      }
      log(`${NODES} other nodes deploying`);

      const transitions = stack.sfn.transitions;
      const invocations = new Map(stack.lambda.invocations);
      const sqsMessages = stack.sqsMessages;
      stack.dynamoRequests?.reset();
      const meter = new WorkMeter(stack, FUNCTION_MEMORY_MB);
      const cpuBefore = cpuSample(stack.dynamoDbPid);
      const started = Date.now();
      await provision(uuids, 'active');
      await waitForProvisionState(stack, uuids, 'active');
      const seconds = (Date.now() - started) / 1000;
      const cpuMsPerDeploy = cpuPer(cpuBefore, cpuSample(stack.dynamoDbPid), NODES);
      const work = meter.per(NODES);
      const per = (n: number) => Number((n / NODES).toFixed(2));
      const invoked = (name: string) => (stack.lambda.invocations.get(name) ?? 0) - (invocations.get(name) ?? 0);
      const counter = stack.dynamoRequests;
      const count = (ops: string[]) => ops.reduce((n, op) => n + (counter?.total(`.${op}`) ?? 0), 0);
      const counts = {
        stateTransitions: per(stack.sfn.transitions - transitions),
        lambdaInvocations: per(invoked('api') + invoked('conductor')),
        apiInvocations: per(invoked('api')),
        conductorInvocations: per(invoked('conductor')),
        dynamodbRequests: counter ? per(counter.total()) : null,
        dynamodbReads: counter ? per(count(READS)) : null,
        dynamodbWrites: counter ? per(count(WRITES)) : null,
        sqsMessages: per(stack.sqsMessages - sqsMessages),
      };

      // The steps each deploy ran, from the history the conductor wrote (read after the timing).
      let steps = 0;
      for (const uuid of uuids) {
        const { history } = (await api('GET', `/v1/nodes/${uuid}/history`)) as { history: { event: string }[] };
        steps += history.filter((h) => DEPLOY_STEP_STARTED.test(h.event)).length;
      }
      const stepsPerDeploy = per(steps);
      return {
        driver: 'fake-hardware',
        nodes: NODES,
        deploysPerSecond: Number((NODES / seconds).toFixed(1)),
        perDeploy: {
          steps: stepsPerDeploy,
          ...counts,
          stateTransitionBudget: 4 * stepsPerDeploy + 4,
          cpuMs: cpuMsPerDeploy,
          /** What the dollar figures price (cost.ts): durations as the local host measured them, under this bench's load. */
          work: rounded(work),
        },
        warmup: { rounds: WARMUP_ROUNDS, nodes: NODES, deploysPerSecond: warmupRates },
        note: 'Steady state: measured after warm-up rounds in which as many other nodes deploy and undeploy. Nodes are watched by reading DynamoDB Local directly, so every count is what the deploys did: the API request that begins each one, its cast, the conductor and the steps machine.',
      };
    } finally {
      await stack.stop();
    }
  },
};

export default bench;
