/**
 * The API's own cost on the local stack: throughput and latency of GET node, list 1,000 nodes
 * (detail) and create node at concurrency 8, and DynamoDB round trips per request.
 *
 * Throughput is measured on a stack without the DynamoDB counting proxy (it adds a hop to every
 * request); round trips are counted on a second stack that has it. The headline figures are the
 * steady state after a warm-up (`cold` has the first requests of a fresh stack), with the CPU each
 * request costs in the functions, the host's main thread and DynamoDB Local: on one machine they
 * share its cores, so those milliseconds are what bounds the throughput. `apiFunctionAlone` is the
 * API function's own cost, without the emulator: what one Lambda execution environment does.
 */
import { Agent, request } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { createDocumentClient } from '../../functions/db/client';
import { GetCommand, PutCommand } from '../../functions/db/dynamo';
import { LambdaHost } from '../../local/lambda-host';
import { LocalStack } from '../../local/stack';
import { FUNCTION_MEMORY_MB } from '../../lib/settings';
import { type BenchContext, type Bench, WorkMeter, cpuPer, cpuSample, measure, rounded } from './bench';
import { runFunctionAlone } from './function-alone';

const CONCURRENCY = 8;
const LIST_NODES = 1000;
/**
 * Requests before the steady-state figures: DynamoDB Local's JIT needs some 20,000 requests to
 * settle (GET node runs about half as fast in the first 4,000), and so do the environments'.
 */
const WARMUP_GETS = 16_000;
const WARMUP_CREATES = 1000;
const STEADY_GETS = 8000;
const HEADERS = { 'X-OpenStack-Ironic-API-Version': '1.82', 'Content-Type': 'application/json', Connection: 'keep-alive' };

/**
 * The load generator's connections. It shares the cores with the stack, so it is node:http over
 * keep-alive rather than fetch, whose own cost is about 0.1 ms more per request.
 */
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2 });

function call(url: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, headers: HEADERS, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 0) >= 300) reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`));
        else resolve(text ? (JSON.parse(text) as Record<string, unknown>) : {});
      });
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** The REST API proxy event API Gateway sends for a request (the fields the API function reads). */
function proxyEvent(method: string, path: string, body?: unknown): APIGatewayProxyEvent {
  const headers: Record<string, string> = { ...HEADERS, Host: '127.0.0.1', 'X-Forwarded-Proto': 'http' };
  return {
    resource: '/{proxy+}',
    path,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: { proxy: path.slice(1) },
    stageVariables: null,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      httpMethod: method,
      path,
      stage: 'local',
      requestId: 'bench',
      resourcePath: '/{proxy+}',
      identity: { sourceIp: '127.0.0.1' },
    } as APIGatewayProxyEvent['requestContext'],
    body: body === undefined ? null : JSON.stringify(body),
    isBase64Encoded: false,
  };
}

async function createNodes(url: string, count: number, prefix = 'bench'): Promise<string[]> {
  const uuids: string[] = new Array(count);
  await measure(count, CONCURRENCY, async (i) => {
    uuids[i] = String((await call(url, 'POST', '/v1/nodes', { driver: 'fake-hardware', name: `${prefix}-${i}` })).uuid);
  });
  return uuids;
}

async function throughput({ buildDir, log }: BenchContext): Promise<Record<string, unknown>> {
  const stack = await new LocalStack({ port: 0, inMemory: true, buildDir, schedules: false }).start();
  try {
    const url = stack.url;
    const pid = stack.dynamoDbPid;
    // Every execution environment started first: cold starts are not what is measured.
    await measure(CONCURRENCY * 4, CONCURRENCY, async () => void (await call(url, 'GET', '/v1/nodes?limit=1')));
    // A fresh stack: DynamoDB Local's JIT and each environment's are still compiling.
    log('cold: create, get…');
    const uuids: string[] = [];
    const get = async (i: number) => void (await call(url, 'GET', `/v1/nodes/${uuids[i % uuids.length]}`));
    const coldCreate = await measure(LIST_NODES, CONCURRENCY, async (i) => {
      uuids.push(String((await call(url, 'POST', '/v1/nodes', { driver: 'fake-hardware', name: `bench-${i}` })).uuid));
    });
    const coldGet = await measure(4000, CONCURRENCY, get);
    log(`warm-up: ${WARMUP_GETS} gets, ${WARMUP_CREATES} creates…`);
    await measure(WARMUP_GETS, CONCURRENCY, get);
    await createNodes(url, WARMUP_CREATES, 'warm');
    log('steady state: create, get, list…');
    let before = cpuSample(pid);
    const create = await measure(LIST_NODES, CONCURRENCY, async (i) => {
      await call(url, 'POST', '/v1/nodes', { driver: 'fake-hardware', name: `steady-${i}` });
    });
    const createCpu = cpuPer(before, cpuSample(pid), LIST_NODES);
    before = cpuSample(pid);
    const getNode = await measure(STEADY_GETS, CONCURRENCY, get);
    const getCpu = cpuPer(before, cpuSample(pid), STEADY_GETS);
    const list = await measure(48, CONCURRENCY, async () => {
      const body = await call(url, 'GET', `/v1/nodes/detail?limit=${LIST_NODES}`);
      if ((body.nodes as unknown[]).length !== LIST_NODES) throw new Error('list returned the wrong number of nodes');
    });
    // The ceiling at this moment: DynamoDB Local itself (as warm as the API left it), driven from
    // this process at the same concurrency (a consistent get per GET, a conditional put per create)
    // by the document client the functions use.
    const sdk = new DynamoDBClient({
      endpoint: stack.endpoints.dynamodb,
      region: 'us-east-1',
      credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
    });
    const raw = createDocumentClient(sdk);
    const rawGetOnce = async (i: number) => {
      await raw.send(new GetCommand({ TableName: stack.tables.nodes, Key: { uuid: uuids[i % uuids.length] }, ConsistentRead: true }));
    };
    await measure(2000, CONCURRENCY, rawGetOnce);
    before = cpuSample(pid);
    const rawGet = await measure(STEADY_GETS, CONCURRENCY, rawGetOnce);
    const rawGetCpu = cpuPer(before, cpuSample(pid), STEADY_GETS);
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
    sdk.destroy();
    log('the API function alone: get, create…');
    const env = stack.functionEnvironment(LambdaHost.arn('conductor', 'live'));
    const alone = {
      getNode: await runFunctionAlone({
        buildDir,
        name: 'api',
        env,
        events: uuids.map((uuid) => proxyEvent('GET', `/v1/nodes/${uuid}`)),
        invocations: STEADY_GETS,
        warmup: WARMUP_GETS,
      }),
      createNode: await runFunctionAlone({
        buildDir,
        name: 'api',
        env,
        events: Array.from({ length: WARMUP_CREATES + LIST_NODES }, (_, i) =>
          proxyEvent('POST', '/v1/nodes', { driver: 'fake-hardware', name: `alone-${i}` }),
        ),
        invocations: LIST_NODES,
        warmup: WARMUP_CREATES,
      }),
    };
    return {
      getNode,
      listDetail1000: list,
      createNode: create,
      cold: { createNode: coldCreate, getNode: coldGet },
      cpuMsPerRequest: { getNode: getCpu, createNode: createCpu, dynamodbLocalRawGetItem: rawGetCpu },
      dynamodbLocalRaw: { getItem: rawGet, conditionalPutItem: rawPut },
      apiFunctionAlone: alone,
    };
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
    // The work of one GET node, for the dollar figures (cost.ts), measured apart from the counts below.
    const meter = new WorkMeter(stack, FUNCTION_MEMORY_MB);
    for (let i = 0; i < 200; i++) await call(url, 'GET', `/v1/nodes/${uuids[i]}`);
    const getNodeWork = rounded(meter.per(200));
    stack.dynamoRequests!.measureCapacity = false;
    return {
      getNodeWork,
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
    // BENCH_API_ROUND_TRIPS_ONLY=1: the counts (and the work of a GET for the dollar figures) without the minutes of throughput runs.
    const measured = process.env.BENCH_API_ROUND_TRIPS_ONLY === '1' ? {} : await throughput(ctx);
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
