/**
 * An idle fleet: the work of one run of each periodic task over `BENCH_IDLE_NODES` available
 * fake-hardware nodes (default 1,000), counted as the dollar figures price it (cost.ts), and the
 * bytes the tables hold per node. A run's continuations (a task that pages hands its cursor to
 * another invocation) are waited for and counted with it.
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type PeriodicTask } from '../../functions/conductor/schedules';
import { periodicSchedule } from '../../lib/periodic-schedule';
import { FUNCTION_MEMORY_MB } from '../../lib/settings';
import { LocalStack } from '../../local/stack';
import { type Bench, WorkMeter, measure, rounded, waitForProvisionState } from './bench';

const NODES = Number(process.env.BENCH_IDLE_NODES ?? 1000);

const bench: Bench = {
  name: 'idle',
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
      const uuids: string[] = new Array(NODES);
      await measure(NODES, 8, async (i) => {
        uuids[i] = String((await api('POST', '/v1/nodes', { driver: 'fake-hardware' })).uuid);
      });
      for (const [target, state] of [
        ['manage', 'manageable'],
        ['provide', 'available'],
      ] as const) {
        await measure(NODES, 8, async (i) => void (await api('PUT', `/v1/nodes/${uuids[i]}/states/provision`, { target })));
        await waitForProvisionState(stack, uuids, state);
      }
      log(`${NODES} nodes available; running each periodic task once`);
      const tasks: Record<string, unknown> = {};
      const schedule = periodicSchedule(stack.settings);
      for (const [task, everySeconds] of Object.entries(schedule) as [PeriodicTask, number][]) {
        const meter = new WorkMeter(stack, FUNCTION_MEMORY_MB);
        await stack.lambda.invoke('conductor', { entry: 'periodic', task }, 'live');
        // Continuations are asynchronous invocations: wait until none has started for a second.
        for (let seen = -1; ;) {
          await new Promise((r) => setTimeout(r, 1000));
          const now = stack.lambda.invocations.get('conductor') ?? 0;
          if (now === seen) break;
          seen = now;
        }
        tasks[task] = { everySeconds, work: rounded(meter.per(1)) };
      }
      const ddb = new DynamoDBClient({
        endpoint: stack.endpoints.dynamodb,
        region: 'us-east-1',
        credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
      });
      let tableBytes = 0;
      try {
        for (const table of Object.values(stack.tables))
          tableBytes += (await ddb.send(new DescribeTableCommand({ TableName: table }))).Table?.TableSizeBytes ?? 0;
      } finally {
        ddb.destroy();
      }
      return {
        nodes: NODES,
        periodicRuns: tasks,
        tableBytesPerNode: Math.round(tableBytes / NODES),
        queues: stack.queues.length,
        note: 'One run of each periodic task over available fake-hardware nodes (no BMC to reach: a Redfish fleet adds the BMC round trips to the power sync). Table bytes as DynamoDB Local reports them (DescribeTable), after create, manage and provide: nodes, their history and the rest.',
      };
    } finally {
      await stack.stop();
    }
  },
};

export default bench;
