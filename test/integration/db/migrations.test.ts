/**
 * Online data migrations on DynamoDB Local: Node 1.0 items brought to the latest (NODE), whose instance_name is
 * computed from instance_info's display_name. 20,000 nodes (some 20 MB, many Scan pages and
 * batches) migrate and the counts are right, a
 * second run migrates none, --max-count runs resume, the services read both versions meanwhile
 * and lose nothing they write, and the release after this one refuses to upgrade until it is done.
 */
import { randomInt } from 'node:crypto';
import { GetCommand, QueryCommand } from '../../../functions/db/dynamo';
import { ConcurrentUpdate } from '../../../functions/common/errors';
import { selectRelease } from '../../../functions/common/releases';
import { type DbsyncContext, dbsyncOnlineDataMigrations } from '../../../functions/db/dbsync';
import { countToMigrate } from '../../../functions/db/migrations';
import { RELEASE_MAPPING, type ReleaseMappings } from '../../../functions/common/releases';
import { dbsyncUpgrade } from '../../../functions/db/dbsync';
import { TABLE_CODECS } from '../../../functions/db/codecs';
import { DynamoNodeStore } from '../../../functions/db/nodes';
import { type TestDynamo, startDynamo } from '../helpers/dynamo';
import { batchWrite, nodeItems } from '../helpers/seed';

let db: TestDynamo;
const release = selectRelease('');
const nodes = (table: string) => ({ table, codec: TABLE_CODECS.nodes });
/** The Node version this release writes (1.1 added instance_name; later versions other fields). */
const NODE = RELEASE_MAPPING.master!.objects.Node![0]!;
/**
 * The fleet the first test migrates. 100,000 until 2026-11-27 (266 s of CI, 190 s of it the
 * migration at about 525 items/s); 20,000 exercise the same pages, batches and counts.
 */
const FLEET = 20_000;

/**
 * The release after this one, as its mapping will be: this release's row under a name, and no
 * row (so no version) of the releases before it: Node 1.0 is no longer readable.
 */
function releaseAfterThis(): ReleaseMappings {
  const objects = Object.fromEntries(Object.entries(RELEASE_MAPPING.master!.objects).map(([name, versions]) => [name, [versions[0]!]]));
  const next = { ...RELEASE_MAPPING.master!, objects };
  return { '2026.4': next, master: next };
}

beforeAll(async () => {
  db = await startDynamo();
}, 60_000);
afterAll(async () => db?.stop());

async function contextWithNodes(count: number): Promise<{ ctx: DbsyncContext; table: string; uuids: string[] }> {
  const table = (await db.freshTables()).nodes;
  // Every other node has an instance whose display name becomes its instance_name.
  const items = nodeItems(count).map((item, i) => (i % 2 === 0 ? { ...item, instance_info: { display_name: `vm-${i}` } } : item));
  await batchWrite(db.client, table, items);
  return { ctx: { client: db.client, tables: [nodes(table)], release }, table, uuids: items.map((i) => String(i.uuid)) };
}

describe('online data migrations', () => {
  it(
    `migrate ${FLEET.toLocaleString('en')} nodes, report (total, migrated), and migrate none on a second run`,
    async () => {
      const started = Date.now();
      const { ctx, table, uuids } = await contextWithNodes(FLEET);
      const seeded = Date.now();

      const first = await dbsyncOnlineDataMigrations(ctx);
      const migrated = Date.now();
      expect(first.exitCode).toBe(0);
      expect(first.data?.migrations).toEqual([
        { object: 'Node', table, latest: NODE, total: FLEET, migrated: FLEET, conflicts: 0, unreadable: 0 },
      ]);
      expect(first.lines).toEqual([
        `update_to_latest_versions(Node) migrated ${FLEET} of ${FLEET} objects.`,
        'Data migrations have completed.',
      ]);
      expect(await countToMigrate(db.client, table, NODE)).toBe(0);

      // Items say the same in the new form, keep their revision and stay in their indexes.
      const { Item } = await db.client.send(new GetCommand({ TableName: table, Key: { uuid: uuids[12_344] } }));
      expect(Item).toMatchObject({ version: NODE, instance_name: 'vm-12344', extra: { rack: 'r1', slot: 12_344 }, rev: 1, _all: 'node' });
      expect(Item).toMatchObject({ _pstate: 'available', instance_info: { display_name: 'vm-12344' } });
      const { Item: unnamed } = await db.client.send(new GetCommand({ TableName: table, Key: { uuid: uuids[12_345] } }));
      expect(unnamed).toMatchObject({ version: NODE, extra: { rack: 'r1', slot: 12_345 } });
      expect(unnamed).not.toHaveProperty('instance_name');
      const indexed = await db.client.send(
        new QueryCommand({
          TableName: table,
          IndexName: 'byProvisionState',
          KeyConditionExpression: '#p = :p',
          ExpressionAttributeNames: { '#p': '_pstate' },
          ExpressionAttributeValues: { ':p': 'available' },
          Select: 'COUNT',
          Limit: 5,
        }),
      );
      expect(indexed.Count).toBe(5);

      const second = await dbsyncOnlineDataMigrations(ctx);
      expect(second.exitCode).toBe(0);
      expect(second.lines[0]).toBe('update_to_latest_versions(Node) migrated 0 of 0 objects.');
      console.log(
        `${FLEET.toLocaleString('en')} nodes: seeded in ${((seeded - started) / 1000).toFixed(1)} s, migrated in ${((migrated - seeded) / 1000).toFixed(1)} s ` +
          `(${Math.round(FLEET / ((migrated - seeded) / 1000))} items/s), second run ${((Date.now() - migrated) / 1000).toFixed(1)} s`,
      );
    },
    10 * 60_000,
  );

  it('stop at --max-count with exit 1 and resume where they stopped', async () => {
    const { ctx } = await contextWithNodes(250);
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await dbsyncOnlineDataMigrations(ctx, { maxCount: 100 }));
    expect(runs.map((r) => r.exitCode)).toEqual([1, 1, 0]);
    expect(runs.map((r) => r.lines[0])).toEqual([
      'update_to_latest_versions(Node) migrated 100 of 250 objects.',
      'update_to_latest_versions(Node) migrated 100 of 150 objects.',
      'update_to_latest_versions(Node) migrated 50 of 50 objects.',
    ]);
    expect(runs[0]!.lines[1]).toBe('Data migrations have not completed. Please re-run.');
    expect((await dbsyncOnlineDataMigrations(ctx, { maxCount: 0 })).exitCode).toBe(127);
  });

  it('leave the services reading both versions while they run, an old item computed on load', async () => {
    const { ctx, table, uuids } = await contextWithNodes(10);
    expect((await dbsyncOnlineDataMigrations(ctx, { maxCount: 4 })).exitCode).toBe(1);
    const store = new DynamoNodeStore({ client: db.client, tables: { ...db.tables, nodes: table }, release });
    const versions = new Set<unknown>();
    for (const [i, uuid] of uuids.entries()) {
      const { Item } = await db.client.send(new GetCommand({ TableName: table, Key: { uuid } }));
      versions.add(Item!.version);
      const node = await store.get(uuid);
      expect(node.instance_name).toBe(i % 2 === 0 ? `vm-${i}` : null);
    }
    expect(versions).toEqual(new Set(['1.0', NODE]));
  });

  it('must be done before the release after this one upgrades: its dbsync upgrade refuses (exit 2) until then', async () => {
    const { ctx, table } = await contextWithNodes(30);
    const after = { ...ctx, release: selectRelease('', releaseAfterThis()) };
    const refused = await dbsyncUpgrade(after);
    expect(refused.exitCode).toBe(2);
    expect(refused.errors).toEqual([
      'The database is not compatible with this release of Ironless (master). Please run "ironless dbsync online-data-migrations" using the previous release.',
      `  30 Node item(s) in ${table} at version 1.0; this release reads ${NODE}`,
    ]);
    expect((await dbsyncOnlineDataMigrations(ctx, { maxCount: 20 })).exitCode).toBe(1);
    expect((await dbsyncUpgrade(after)).errors[1]).toBe(`  10 Node item(s) in ${table} at version 1.0; this release reads ${NODE}`);
    expect((await dbsyncOnlineDataMigrations(ctx)).exitCode).toBe(0);
    expect(await dbsyncUpgrade(after)).toMatchObject({ exitCode: 0, errors: [] });
  });

  it('lose no update of a service writing the same nodes meanwhile', async () => {
    const { ctx, uuids } = await contextWithNodes(2_000);
    // A service of the new release, unpinned, counting in `extra` with conditional writes.
    const service = new DynamoNodeStore({ client: db.client, tables: { ...db.tables, nodes: ctx.tables[0]!.table }, release });
    const hot = uuids.slice(0, 20);
    const increments = new Map<string, number>();
    let running = true;
    const writers = Array.from({ length: 4 }, async () => {
      while (running) {
        const uuid = hot[randomInt(hot.length)]!;
        const node = await service.get(uuid);
        node.extra = { ...node.extra, count: Number(node.extra.count ?? 0) + 1 };
        try {
          await service.save(node);
          increments.set(uuid, (increments.get(uuid) ?? 0) + 1);
        } catch (err) {
          if (!(err instanceof ConcurrentUpdate)) throw err;
        }
      }
    });
    const outcome = await dbsyncOnlineDataMigrations(ctx);
    running = false;
    await Promise.all(writers);
    expect(outcome.exitCode).toBe(0);
    const [result] = outcome.data!.migrations!;
    // Nodes the service rewrote first (at NODE) were left to it; everything ends at NODE. The writers
    // start before the run counts, so a hot node they rewrote already is not in its total.
    expect(result!.total).toBeGreaterThanOrEqual(2_000 - hot.length);
    expect(result!.total).toBeLessThanOrEqual(2_000);
    expect(result!.migrated).toBeLessThanOrEqual(result!.total);
    expect(await countToMigrate(db.client, ctx.tables[0]!.table, NODE)).toBe(0);
    for (const [i, uuid] of hot.entries()) {
      const node = await service.get(uuid);
      expect(node.extra.count ?? 0).toBe(increments.get(uuid) ?? 0);
      expect(node.extra.rack).toBe('r1');
      expect(node.instance_name).toBe(i % 2 === 0 ? `vm-${i}` : null);
    }
  });
});
