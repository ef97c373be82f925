/**
 * `ironless dbsync` as an operator runs it against a local stack: it finds the running stack
 * through `<data>/stack.json`, reports versions, refuses (exit 2) an item this release cannot
 * read, migrates, and works on the data of a stopped stack too; the stack's dbsync function
 * answers the same. A cold start with an unknown PIN_RELEASE_VERSION fails with a clear message.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { RELEASE_MAPPING } from '../../functions/common/releases';
import { DeleteCommand, GetCommand, PutCommand } from '../../functions/db/dynamo';
import { createDocumentClient } from '../../functions/db/client';
import { PROJECT_ROOT } from '../../lib/bundling';
import { LambdaHost } from '../../local/lambda-host';
import type { LocalStack } from '../../local/stack';
import type { LocalStackInfo } from '../../local/stack-info';
import { ApiClient, startStack } from './helpers/stack';

const execFileAsync = promisify(execFile);
/** The Node version this release writes. */
const NODE = RELEASE_MAPPING.master!.objects.Node![0]!;
let dataDir: string;
let stack: LocalStack | undefined;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function dbsync(...args: string[]): Promise<Run> {
  return dbsyncWith({}, ...args);
}

async function dbsyncWith(env: Record<string, string>, ...args: string[]): Promise<Run> {
  try {
    const { stdout, stderr } = await execFileAsync(
      process.execPath,
      [
        '--disable-warning=ExperimentalWarning',
        '--import',
        'tsx',
        join(PROJECT_ROOT, 'bin/ironless.ts'),
        'dbsync',
        '--data',
        dataDir,
        ...args,
      ],
      { cwd: PROJECT_ROOT, env: { ...process.env, PIN_RELEASE_VERSION: '', ...env } },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ironless-dbsync-'));
  stack = await startStack({ inMemory: false, dataDir });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('ironless dbsync on a local stack', () => {
  let uuid: string;
  const badUuid = '00000000-0000-4000-8000-000000000bad';
  const oldUuid = '00000000-0000-4000-8000-0000000000a1';
  const items = () => {
    const info = JSON.parse(readFileSync(join(dataDir, 'stack.json'), 'utf8')) as LocalStackInfo;
    const client = createDocumentClient(
      new DynamoDBClient({
        endpoint: info.endpoints.dynamodb,
        region: 'us-east-1',
        credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
      }),
    );
    return { client, table: info.tables.nodes };
  };

  it('finds the running stack through <data>/stack.json', async () => {
    const info = JSON.parse(readFileSync(join(dataDir, 'stack.json'), 'utf8')) as LocalStackInfo;
    expect(info).toMatchObject({
      pid: process.pid,
      url: stack!.url,
      tables: stack!.tables,
      functions: { dbsync: LambdaHost.arn('dbsync', 'live') },
    });
    const created = await new ApiClient(stack!.url).request('POST', '/v1/nodes', { driver: 'fake-hardware' });
    expect(created.status).toBe(201);
    uuid = created.body.uuid;

    const version = await dbsync('version', '--json');
    expect(version.code).toBe(0);
    const report = JSON.parse(version.stdout);
    const { api, rpc } = RELEASE_MAPPING.master!;
    expect(report.data).toMatchObject({ release: 'master', pinned: false, api, rpc });
    expect(report.data.objects.find((o: { object: string }) => o.object === 'Node')).toMatchObject({
      table: stack!.tables.nodes,
      writes: NODE,
      reads: RELEASE_MAPPING.master!.objects.Node,
      inUse: { [NODE]: 1 },
      pending: 0,
    });
  }, 60_000);

  it('shows a Node 1.0 item (as 2026.3 wrote it) as pending, and migrates it to the latest version with its instance_name', async () => {
    const { client, table } = items();
    const old = { uuid: oldUuid, version: '1.0', rev: 1, _id: '1', _all: 'node', driver: 'fake-hardware', provision_state: 'active' };
    await client.send(
      new PutCommand({ TableName: table, Item: { ...old, created_at: '2026-11-01T00:00:00Z', instance_info: { display_name: 'vm-1' } } }),
    );
    const version = await dbsync('version');
    expect(version.code).toBe(0);
    expect(version.stdout).toContain(`1 (to ${NODE})`);
    expect(version.stdout).toContain('Online data migrations pending: 1 item(s); run "ironless dbsync online-data-migrations".');
    const migrations = await dbsync('online-data-migrations', '--max-count', '5');
    expect(migrations.code).toBe(0);
    expect(migrations.stdout).toContain('update_to_latest_versions(Node) migrated 1 of 1 objects.');
    const { Item } = await client.send(new GetCommand({ TableName: table, Key: { uuid: oldUuid } }));
    expect(Item).toMatchObject({ version: NODE, instance_name: 'vm-1', rev: 1 });
    const json = JSON.parse((await dbsync('version', '--json')).stdout);
    expect(json.data.objects.find((o: { object: string }) => o.object === 'Node')).toMatchObject({ inUse: { [NODE]: 2 }, pending: 0 });
  }, 60_000);

  it('refuses, with exit 2 and Ironic’s message, an item this release cannot read', async () => {
    const { client, table } = items();
    await client.send(new PutCommand({ TableName: table, Item: { uuid: badUuid, version: '0.9', rev: 1, _id: '0', _all: 'node' } }));
    const upgrade = await dbsync('upgrade');
    expect(upgrade.code).toBe(2);
    expect(upgrade.stderr).toContain(
      'The database is not compatible with this release of Ironless (master). Please run "ironless dbsync online-data-migrations" using the previous release.',
    );
    expect(upgrade.stderr).toContain(
      `1 Node item(s) in ${table} at version 0.9; this release reads ${RELEASE_MAPPING.master!.objects.Node!.join(', ')}`,
    );
    expect((await dbsync('online-data-migrations')).code).toBe(2);

    // The stack's dbsync function says the same.
    const invoked = await stack!.lambda.invoke(LambdaHost.arn('dbsync', 'live'), { command: 'upgrade' });
    expect(JSON.parse(invoked.payload)).toMatchObject({ exitCode: 2 });
    await client.send(new DeleteCommand({ TableName: table, Key: { uuid: badUuid } }));
  }, 60_000);

  it('upgrades, and migrates with Ironic’s exit codes', async () => {
    const upgrade = await dbsync('upgrade');
    expect(upgrade).toMatchObject({ code: 0, stdout: 'Tables and indexes are up to date.\n' });
    const bad = await dbsync('online-data-migrations', '--max-count', '0');
    expect(bad.code).toBe(127);
    expect(bad.stderr).toContain('"max-count" must be a positive value.');
    const migrations = await dbsync('online-data-migrations');
    expect(migrations.code).toBe(0);
    expect(migrations.stdout).toContain('update_to_latest_versions(Node) migrated 0 of 0 objects.');
    expect(migrations.stdout).toContain('Data migrations have completed.');
    const invoked = await stack!.lambda.invoke(LambdaHost.arn('dbsync', 'live'), { command: 'online-data-migrations' });
    expect(JSON.parse(invoked.payload)).toMatchObject({ exitCode: 0, lines: expect.arrayContaining(['Data migrations have completed.']) });
  }, 60_000);

  it('runs a command in the dbsync function with --function (here the local stack’s Lambda endpoint)', async () => {
    const info = JSON.parse(readFileSync(join(dataDir, 'stack.json'), 'utf8')) as LocalStackInfo;
    const env = {
      AWS_ENDPOINT_URL_LAMBDA: info.endpoints.aws,
      AWS_REGION: info.region,
      AWS_ACCESS_KEY_ID: 'l',
      AWS_SECRET_ACCESS_KEY: 'l',
    };
    const version = await dbsyncWith(env, '--function', info.functions.dbsync, 'version', '--json');
    expect(version.code).toBe(0);
    expect(JSON.parse(version.stdout)).toMatchObject({ exitCode: 0, data: { release: 'master' } });
    const migrations = await dbsyncWith(env, '--function', info.functions.dbsync, 'online-data-migrations');
    expect(migrations).toMatchObject({ code: 0, stdout: expect.stringContaining('Data migrations have completed.') });
  }, 60_000);

  it('works on the data of a stopped stack', async () => {
    await stack!.stop();
    stack = undefined;
    expect(existsSync(join(dataDir, 'stack.json'))).toBe(false);
    const version = await dbsync('version', '--json');
    expect(version.code).toBe(0);
    const node = JSON.parse(version.stdout).data.objects.find((o: { object: string }) => o.object === 'Node');
    expect(node).toMatchObject({ table: 'ironless-nodes', inUse: { [NODE]: 2 } });
    expect(uuid).toBeDefined();
  }, 60_000);
});

describe('a cold start pinned to an unknown release', () => {
  it.each(['api', 'conductor', 'dbsync'])('fails the %s function with a message naming the pin', async (name) => {
    const bundle = join(process.env.IRONLESS_BUILD_DIR!, name, 'index.mjs');
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      PIN_RELEASE_VERSION: 'bobcat',
      CONDUCTOR_QUEUES: '{"":"http://q"}',
      CONDUCTOR_FUNCTION: 'conductor',
      STEPS_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:steps',
      AWS_REGION: 'us-east-1',
    };
    for (const def of [
      'NODES',
      'PORTS',
      'PORTGROUPS',
      'CHASSIS',
      'CONDUCTORS',
      'DEPLOY_TEMPLATES',
      'ALLOCATIONS',
      'NODE_HISTORY',
      'UNIQUES',
    ]) {
      env[`${def}_TABLE`] = `t-${def}`;
    }
    // The error alone: node's own report of an uncaught error starts with the throwing source line,
    // a megabyte of minified bundle that a pipe does not always deliver whole before the exit.
    const script = `try { await import(${JSON.stringify(bundle)}) } catch (err) { console.error(String(err)); process.exit(1) }`;
    const run = execFileAsync(process.execPath, ['--input-type=module', '-e', script], { env });
    await expect(run).rejects.toMatchObject({
      stderr: expect.stringContaining(
        'PIN_RELEASE_VERSION "bobcat" is not a known release; use "" for the latest or one of: 2026.2, 2026.3',
      ),
    });
  });
});
