/**
 * Two releases side by side on one table, as in a rolling upgrade: the same Widget service built
 * twice, as the older release (Widget 1.0) and as the newer one (Widget 1.1: extra renamed to
 * meta), each bundle its own process with its own release mapping. A newer writer pinned to the
 * older release writes items the older release reads; an item saved newer and then older stays
 * readable; the older release refuses (dbsync exit 2) what only the newer can read.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '../../../functions/db/dynamo';
import { build } from 'esbuild';
import { PROJECT_ROOT, bundleOptions } from '../../../lib/bundling';
import { type TestDynamo, startDynamo } from '../helpers/dynamo';

const run = promisify(execFile);
const FIXTURE = join(PROJECT_ROOT, 'test/fixtures/widget');
const OUT = join(PROJECT_ROOT, 'dist/test-fixtures/widget');

let db: TestDynamo;
let table: string;
const bundles: Record<'older' | 'newer', string> = { older: '', newer: '' };

/** Build the entry as one release: `./release` resolves to that release's Widget and mapping. */
async function bundle(name: 'older' | 'newer', releaseFile: string): Promise<string> {
  const outdir = join(OUT, name);
  await build({
    ...bundleOptions('test/fixtures/widget/entry.ts', outdir),
    minify: false,
    sourcemap: false,
    plugins: [
      {
        name: 'release',
        setup(b) {
          b.onResolve({ filter: /^\.\/release$/ }, () => ({ path: join(FIXTURE, releaseFile) }));
        },
      },
    ],
  });
  return join(outdir, 'index.mjs');
}

beforeAll(async () => {
  [db, bundles.older, bundles.newer] = await Promise.all([
    startDynamo(),
    bundle('older', 'widget-1.0.ts'),
    bundle('newer', 'widget-1.1.ts'),
  ]);
  table = `widgets-${randomUUID().slice(0, 8)}`;
  await db.raw.send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'uuid', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'uuid', KeyType: 'HASH' }],
    }),
  );
}, 120_000);
afterAll(async () => db?.stop());

interface Reply {
  readonly code: number;
  readonly body: Record<string, unknown>;
}

/** Run a release's service once: `older`, `newer` unpinned, or `newer` pinned to the older release. */
async function service(who: 'older' | 'newer' | 'newer-pinned', ...args: string[]): Promise<Reply> {
  const bundleFile = bundles[who === 'older' ? 'older' : 'newer'];
  const env = {
    PATH: process.env.PATH,
    DYNAMODB_ENDPOINT: db.endpoint,
    WIDGETS_TABLE: table,
    UNIQUES_TABLE: db.tables.uniques,
    PIN_RELEASE_VERSION: who === 'newer-pinned' ? '2026.1' : '',
  };
  try {
    const { stdout } = await run(process.execPath, [bundleFile, ...args], { env });
    return { code: 0, body: JSON.parse(stdout) };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string };
    return { code: failed.code ?? -1, body: JSON.parse(failed.stdout ?? '{}') };
  }
}

const stored = async (uuid: string) => (await db.client.send(new GetCommand({ TableName: table, Key: { uuid } }))).Item ?? {};

describe('a newer release pinned to the older one, beside the older release', () => {
  const uuid = randomUUID();

  it('writes items at the older version, which the older release reads', async () => {
    const created = await service('newer-pinned', 'create', uuid, JSON.stringify({ meta: { rack: 'r1' }, colour: 'blue' }));
    expect(created.body).toMatchObject({ release: '2026.1', widgetVersion: '1.1', meta: { rack: 'r1' } });
    const item = await stored(uuid);
    expect(item).toMatchObject({ version: '1.0', extra: { rack: 'r1' } });
    expect(item).not.toHaveProperty('meta');
    expect(item).not.toHaveProperty('colour');

    const read = await service('older', 'get', uuid);
    expect(read).toMatchObject({ code: 0, body: { release: 'master', widgetVersion: '1.0', extra: { rack: 'r1' } } });
  });

  it('reads what the older release writes', async () => {
    expect((await service('older', 'update', uuid, JSON.stringify({ extra: { rack: 'r2' } }))).code).toBe(0);
    expect((await service('newer-pinned', 'get', uuid)).body).toMatchObject({ meta: { rack: 'r2' } });
    expect((await service('newer', 'get', uuid)).body).toMatchObject({ meta: { rack: 'r2' } });
  });

  it('exchanges objects over RPC at the older version', async () => {
    const sent = await service('newer-pinned', 'send', uuid);
    expect(sent.body).toMatchObject({ name: 'Widget', version: '1.0', data: { uuid, extra: { rack: 'r2' } } });
    const { release: _r, widgetVersion: _w, ...primitive } = sent.body;
    expect((await service('older', 'receive', JSON.stringify(primitive))).body).toMatchObject({ extra: { rack: 'r2' } });
  });

  it('keeps an item saved newer and then older readable by both (upgrade steps 3.1–3.4)', async () => {
    await service('newer', 'update', uuid, JSON.stringify({ meta: { rack: 'r3' }, colour: 'red' }));
    expect(await stored(uuid)).toMatchObject({ version: '1.1', meta: { rack: 'r3' }, colour: 'red' });
    await service('newer-pinned', 'update', uuid, JSON.stringify({ meta: { rack: 'r4' } }));
    const older = await stored(uuid);
    expect(older).toMatchObject({ version: '1.0', extra: { rack: 'r4' } });
    expect(older).not.toHaveProperty('meta');
    expect((await service('older', 'get', uuid)).body).toMatchObject({ extra: { rack: 'r4' } });
    expect((await service('newer', 'get', uuid)).body).toMatchObject({ meta: { rack: 'r4' } });
  });

  it('leaves the older release refusing items only the newer reads: get fails, dbsync upgrade exits 2', async () => {
    const newer = randomUUID();
    await service('newer', 'create', newer, JSON.stringify({ meta: { rack: 'r9' } }));
    expect(await service('older', 'get', newer)).toEqual({
      code: 1,
      body: { error: 'IncompatibleObjectVersion', message: 'Version 1.1 of Widget is not supported, supported version is 1.0' },
    });
    const refused = await service('older', 'upgrade');
    expect(refused.code).toBe(2);
    expect(refused.body.errors).toEqual([
      'The database is not compatible with this release of Ironless (master). Please run "ironless dbsync online-data-migrations" using the previous release.',
      `  1 Widget item(s) in ${table} at version 1.1; this release reads 1.0`,
    ]);
    // The newer release reads everything, and its online migrations bring every item to 1.1.
    expect((await service('newer', 'upgrade')).code).toBe(0);
    const migrated = await service('newer', 'migrate');
    expect(migrated.code).toBe(0);
    expect(migrated.body.lines).toEqual(['update_to_latest_versions(Widget) migrated 1 of 1 objects.', 'Data migrations have completed.']);
    expect(await stored(uuid)).toMatchObject({ version: '1.1', meta: { rack: 'r4' } });
  });
});
