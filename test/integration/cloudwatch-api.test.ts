/**
 * The local stack's CloudWatch GetMetricData through the real `@aws-sdk/client-cloudwatch`: what
 * an upgrade watches while it shifts an alias — a version's invocations and errors, and the API's
 * requests and 5XX answers — counted from what really ran.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudWatchClient, type Dimension, GetMetricDataCommand, type MetricDataResult } from '@aws-sdk/client-cloudwatch';
import { LambdaHost } from '../../local/lambda-host';
import type { LocalStack } from '../../local/stack';
import { ApiClient, startStack } from './helpers/stack';

let stack: LocalStack;
let cloudwatch: CloudWatchClient;
let dir: string;
let started: Date;

beforeAll(async () => {
  stack = await startStack();
  dir = mkdtempSync(join(tmpdir(), 'ironless-cloudwatch-'));
  cloudwatch = new CloudWatchClient({
    endpoint: stack.endpoints.aws,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  started = new Date(Date.now() - 60_000);
});

afterAll(async () => {
  cloudwatch?.destroy();
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The sum over every period of each query's Sum, by query id. */
async function sums(
  queries: { id: string; namespace: string; metric: string; dimensions: Record<string, string> }[],
): Promise<Record<string, number>> {
  const out = await cloudwatch.send(
    new GetMetricDataCommand({
      StartTime: started,
      EndTime: new Date(Date.now() + 60_000),
      MetricDataQueries: queries.map((q) => ({
        Id: q.id,
        MetricStat: {
          Metric: {
            Namespace: q.namespace,
            MetricName: q.metric,
            Dimensions: Object.entries(q.dimensions).map(([Name, Value]): Dimension => ({ Name, Value })),
          },
          Period: 60,
          Stat: 'Sum',
        },
      })),
    }),
  );
  const results = out.MetricDataResults as MetricDataResult[];
  expect(results.map((r) => r.Id)).toEqual(queries.map((q) => q.id));
  for (const r of results) {
    expect(r.StatusCode).toBe('Complete');
    expect(r.Timestamps?.length).toBe(r.Values?.length);
    for (const t of r.Timestamps ?? []) expect(t.getTime() % 60_000).toBe(0);
  }
  return Object.fromEntries(results.map((r) => [r.Id, (r.Values ?? []).reduce((a, b) => a + b, 0)]));
}

describe('AWS/Lambda', () => {
  it('count a version’s invocations and errors (crashes and timeouts too) by function, alias and executed version', async () => {
    writeFileSync(
      join(dir, 'echo.mjs'),
      'export const handler = async (event) => { if (event.fail) throw new Error("asked to"); return event; };\n',
    );
    stack.lambda.createFunction({ name: 'echo', bundle: join(dir, 'echo.mjs'), handler: 'index.handler', env: {}, timeoutSeconds: 5 });
    const v1 = stack.lambda.publishVersion('echo');
    const v2 = stack.lambda.publishVersion('echo');
    stack.lambda.setAlias('echo', 'live', v1, { [v2]: 0.5 });
    stack.faults.lambda({ function: 'echo', version: v2, action: 'crash', times: 2 });
    stack.faults.lambda({ function: 'echo', version: v2, action: 'timeout', times: 1 });
    const ran: Record<string, { invocations: number; errors: number }> = {
      [v1]: { invocations: 0, errors: 0 },
      [v2]: { invocations: 0, errors: 0 },
    };
    for (let i = 0; i < 40; i++) {
      const fail = i % 10 === 0;
      const result = await stack.lambda.invoke(LambdaHost.arn('echo', 'live'), { fail });
      const count = ran[result.executedVersion]!;
      count.invocations += 1;
      if (result.functionError) count.errors += 1;
      if (result.executedVersion === v1) expect(result.functionError !== undefined).toBe(fail);
    }
    // The injected faults hit version 2 only, and all of them while it ran at least three times.
    expect(ran[v2]!.invocations).toBeGreaterThanOrEqual(3);
    expect(ran[v2]!.errors).toBeGreaterThanOrEqual(3);
    await stack.lambda.invoke('echo', { fail: true });

    const resource = { FunctionName: 'echo', Resource: 'echo:live' };
    const got = await sums([
      { id: 'all', namespace: 'AWS/Lambda', metric: 'Invocations', dimensions: { FunctionName: 'echo' } },
      { id: 'allErrors', namespace: 'AWS/Lambda', metric: 'Errors', dimensions: { FunctionName: 'echo' } },
      { id: 'alias', namespace: 'AWS/Lambda', metric: 'Invocations', dimensions: resource },
      { id: 'v1', namespace: 'AWS/Lambda', metric: 'Invocations', dimensions: { ...resource, ExecutedVersion: v1 } },
      { id: 'v1Errors', namespace: 'AWS/Lambda', metric: 'Errors', dimensions: { ...resource, ExecutedVersion: v1 } },
      { id: 'v2', namespace: 'AWS/Lambda', metric: 'Invocations', dimensions: { ...resource, ExecutedVersion: v2 } },
      { id: 'v2Errors', namespace: 'AWS/Lambda', metric: 'Errors', dimensions: { ...resource, ExecutedVersion: v2 } },
    ]);
    expect(got).toEqual({
      all: 41,
      allErrors: ran[v1]!.errors + ran[v2]!.errors + 1,
      alias: 40,
      v1: ran[v1]!.invocations,
      v1Errors: ran[v1]!.errors,
      v2: ran[v2]!.invocations,
      v2Errors: ran[v2]!.errors,
    });
  });

  it('refuse queries CloudWatch refuses, with its error', async () => {
    await expect(
      cloudwatch.send(
        new GetMetricDataCommand({
          StartTime: started,
          EndTime: new Date(),
          MetricDataQueries: [
            { Id: 'q', MetricStat: { Metric: { Namespace: 'AWS/Lambda', MetricName: 'Errors' }, Period: 45, Stat: 'Sum' } },
          ],
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterValueException', $metadata: { httpStatusCode: 400 } });
  });
});

describe('AWS/ApiGateway', () => {
  it('count the API’s requests, its 4XX and its 5XX answers (a crashed function is a 502)', async () => {
    const api = new ApiClient(stack.url);
    const before = await sums(apiQueries());
    expect((await api.get('/v1')).status).toBe(200);
    expect((await api.get('/v1/nodes/no-such-node')).status).toBe(404);
    stack.faults.lambda({ function: 'api', action: 'crash' });
    expect((await api.get('/v1')).status).toBe(502);
    const after = await sums(apiQueries());
    expect({ count: after.count! - before.count!, e4: after.e4! - before.e4!, e5: after.e5! - before.e5! }).toEqual({
      count: 3,
      e4: 1,
      e5: 1,
    });
  });
});

function apiQueries() {
  const dimensions = { ApiName: 'ironless-api', Stage: 'local' };
  return [
    { id: 'count', namespace: 'AWS/ApiGateway', metric: 'Count', dimensions },
    { id: 'e4', namespace: 'AWS/ApiGateway', metric: '4XXError', dimensions },
    { id: 'e5', namespace: 'AWS/ApiGateway', metric: '5XXError', dimensions },
  ];
}
