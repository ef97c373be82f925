/**
 * The API's own cost on the local stack: throughput and latency of GET node, list 1,000 nodes
 * (detail) and create node at concurrency 8, and DynamoDB round trips per request.
 *
 * Throughput is measured on a stack without the DynamoDB counting proxy (it adds a hop to every
 * request); round trips are counted on a second stack that has it.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { LocalStack } from '../../local/stack';
import { type BenchContext, type Bench, measure } from './bench';

const CONCURRENCY = 8;
const LIST_NODES = 1000;
const HEADERS = { 'X-OpenStack-Ironic-API-Version': '1.82', 'Content-Type': 'application/json', Connection: 'keep-alive' };

async function call(url: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}${path}`, { method, headers: HEADERS, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

async function createNodes(url: string, count: number, offset = 0): Promise<string[]> {
  const uuids: string[] = new Array(count);
  await measure(count, CONCURRENCY, async (i) => {
    uuids[i] = String((await call(url, 'POST', '/v1/nodes', { driver: 'fake-hardware', name: `bench-${offset + i}` })).uuid);
  });
  return uuids;
}

async function throughput({ buildDir, log }: BenchContext): Promise<Record<string, unknown>> {
  const stack = await new LocalStack({ port: 0, inMemory: true, buildDir, schedules: false }).start();
  try {
    const url = stack.url;
    // Warm every execution environment first: cold starts are not what is measured.
    await measure(CONCURRENCY * 4, CONCURRENCY, async () => void (await call(url, 'GET', '/v1/nodes?limit=1')));
    log('create…');
    const uuids: string[] = [];
    const create = await measure(LIST_NODES, CONCURRENCY, async (i) => {
      uuids.push(String((await call(url, 'POST', '/v1/nodes', { driver: 'fake-hardware', name: `bench-${i}` })).uuid));
    });
    log('get…');
    const get = await measure(4000, CONCURRENCY, async (i) => void (await call(url, 'GET', `/v1/nodes/${uuids[i % uuids.length]}`)));
    log('list…');
    const list = await measure(48, CONCURRENCY, async () => {
      const body = await call(url, 'GET', `/v1/nodes/detail?limit=${LIST_NODES}`);
      if ((body.nodes as unknown[]).length !== LIST_NODES) throw new Error('list returned the wrong number of nodes');
    });
    // The ceiling at this moment: DynamoDB Local itself, driven from this process at the same
    // concurrency (a conditional put per create, a consistent get per GET).
    const raw = DynamoDBDocumentClient.from(
      new DynamoDBClient({
        endpoint: stack.endpoints.dynamodb,
        region: 'us-east-1',
        credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
      }),
    );
    const rawGet = await measure(4000, CONCURRENCY, async (i) => {
      await raw.send(new GetCommand({ TableName: stack.tables.nodes, Key: { uuid: uuids[i % uuids.length] }, ConsistentRead: true }));
    });
    const rawPut = await measure(1000, CONCURRENCY, async (i) => {
      await raw.send(
        new PutCommand({
          TableName: stack.tables.uniques,
          Item: { key: `bench/${i}`, owner: 'x' },
          ConditionExpression: 'attribute_not_exists(#k)',
          ExpressionAttributeNames: { '#k': 'key' },
        }),
      );
    });
    raw.destroy();
    return { getNode: get, listDetail1000: list, createNode: create, dynamodbLocalRaw: { getItem: rawGet, conditionalPutItem: rawPut } };
  } finally {
    await stack.stop();
  }
}

async function roundTrips({ buildDir }: BenchContext): Promise<Record<string, unknown>> {
  const stack = await new LocalStack({ port: 0, inMemory: true, buildDir, schedules: false, countDynamoDbRequests: true }).start();
  const counter = stack.dynamoRequests!;
  try {
    const url = stack.url;
    const per = async (n: number, fn: (i: number) => Promise<unknown>) => {
      counter.reset();
      for (let i = 0; i < n; i++) await fn(i);
      return {
        total: Number((counter.total() / n).toFixed(2)),
        byOperation: Object.fromEntries([...counter.counts].map(([k, v]) => [k.replace('DynamoDB_20120810.', ''), v / n])),
      };
    };
    const uuids = await createNodes(url, LIST_NODES);
    return {
      getNodeByUuid: await per(20, (i) => call(url, 'GET', `/v1/nodes/${uuids[i]}`)),
      getNodeByName: await per(20, (i) => call(url, 'GET', `/v1/nodes/bench-${i}`)),
      createNode: await per(20, (i) => call(url, 'POST', '/v1/nodes', { driver: 'fake-hardware', name: `rt-${i}` })),
      createNodeUnnamed: await per(20, () => call(url, 'POST', '/v1/nodes', { driver: 'fake-hardware' })),
      listDetail1000: await per(2, () => call(url, 'GET', `/v1/nodes/detail?limit=${LIST_NODES}`)),
    };
  } finally {
    await stack.stop();
  }
}

const bench: Bench = {
  name: 'api',
  async run(ctx) {
    const measured = await throughput(ctx);
    const dynamodbRoundTripsPerRequest = await roundTrips(ctx);
    return {
      concurrency: CONCURRENCY,
      ...measured,
      dynamodbRoundTripsPerRequest,
      targets: { getNodePerSecond: 1500, createNodePerSecond: 600 },
    };
  },
};

export default bench;
