/**
 * A local stack started from a build with a manifest (`ironless build` writes one) runs that
 * release: it creates the manifest's tables, tags its functions with the release, and tells tools
 * about itself in `<data>/stack.json` — function names, queues, table prefix, the API's metric
 * dimensions and the CloudWatch endpoint an upgrade needs.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { LambdaClient, ListTagsCommand } from '@aws-sdk/client-lambda';
import { type BuildManifest, readBuildManifest } from '../../local/build-manifest';
import { LambdaHost } from '../../local/lambda-host';
import type { LocalStack } from '../../local/stack';
import type { LocalStackInfo } from '../../local/stack-info';
import { TABLES } from '../../functions/db/schema';
import { startStack } from './helpers/stack';

const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
let stack: LocalStack;
let dir: string;
let info: LocalStackInfo;

const manifest: BuildManifest = {
  release: '2026.4',
  commit: '0123456789abcdef0123456789abcdef01234567',
  dirty: false,
  builtAt: '2026-11-25T09:00:00.000Z',
  mapping: { '2026.4': { api: '1.88', rpc: '1.60', objects: { Node: ['1.1'] } } },
  // The release's tables: the schema's and one the schema does not have.
  tables: { ...TABLES, widgets: { envVar: 'WIDGETS_TABLE', partitionKey: 'id', indexes: [] } },
  functions: ['api', 'conductor', 'dbsync', 'authorizer', 'ui'],
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ironless-manifest-'));
  const build = join(dir, 'build');
  mkdirSync(build);
  const built = process.env.IRONLESS_BUILD_DIR as string;
  for (const entry of readdirSync(built)) if (entry !== 'manifest.json') symlinkSync(join(built, entry), join(build, entry));
  writeFileSync(join(build, 'manifest.json'), JSON.stringify(manifest));
  stack = await startStack({ buildDir: build, inMemory: false, dataDir: join(dir, 'data') });
  info = JSON.parse(readFileSync(join(dir, 'data', 'stack.json'), 'utf8')) as LocalStackInfo;
});

afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('reads the manifest back as it was written, and none from a build without one', () => {
  expect(readBuildManifest(join(dir, 'build'))).toEqual(manifest);
  expect(readBuildManifest(dir)).toBeUndefined();
});

it('creates the manifest’s tables', async () => {
  const ddb = new DynamoDBClient({ endpoint: info.endpoints.dynamodb, region: 'us-east-1', credentials: CREDENTIALS });
  const names = (await ddb.send(new ListTablesCommand({}))).TableNames ?? [];
  ddb.destroy();
  expect(names).toContain('ironless-widgets');
  expect(names).toContain('ironless-nodes');
});

it('tags every function with the manifest’s release', async () => {
  const lambda = new LambdaClient({ endpoint: info.endpoints.aws, region: 'us-east-1', credentials: CREDENTIALS });
  for (const name of ['api', 'conductor', 'dbsync', 'ui'])
    expect((await lambda.send(new ListTagsCommand({ Resource: LambdaHost.arn(name) }))).Tags).toEqual({ 'ironless:release': '2026.4' });
  lambda.destroy();
});

it('describes itself in stack.json for tools that upgrade it', () => {
  expect(info).toMatchObject({
    tablePrefix: 'ironless',
    lambda: { api: 'api', conductor: 'conductor', dbsync: 'dbsync', ui: 'ui' },
    api: { name: 'ironless-api', stage: 'local' },
    endpoints: { aws: stack.endpoints.aws, cloudwatch: stack.endpoints.aws, sqs: stack.endpoints.sqs },
    functions: { dbsync: LambdaHost.arn('dbsync', 'live') },
  });
  expect(info.lambda.authorizer).toBeUndefined();
  expect(info.queues).toEqual(stack.queues.map(({ group, url, dlqUrl }) => ({ group, url, dlqUrl })));
  expect(info.queues.length).toBeGreaterThan(0);
  expect(info.queues[0]?.dlqUrl).toMatch(/-dlq$/);
});
