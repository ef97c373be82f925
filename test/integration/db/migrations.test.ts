/**
 * Online data migrations on DynamoDB Local, with a fixture next release whose Node 1.1 renamed
 * `extra` to `meta`: 100,000 nodes migrate and the counts are right, a second run migrates none,
 * --max-count runs resume, and services writing meanwhile lose nothing.
 */
import { randomInt } from 'node:crypto';
import { GetCommand, QueryCommand } from '../../../functions/db/dynamo';
import { ConcurrentUpdate } from '../../../functions/common/errors';
import { selectRelease } from '../../../functions/common/releases';
import { type DbsyncContext, dbsyncOnlineDataMigrations } from '../../../functions/db/dbsync';
import { countToMigrate } from '../../../functions/db/migrations';
import { ObjectTable } from '../../../functions/db/table';
import type { VersionedObject } from '../../../functions/objects/base';
import { NEXT_MAPPING, NEXT_NODE_CODEC, nextNodeTable } from '../../fixtures/next-node';
import { type TestDynamo, startDynamo } from '../helpers/dynamo';
import { batchWrite, nodeItems } from '../helpers/seed';

let db: TestDynamo;
const release = selectRelease('', NEXT_MAPPING);

beforeAll(async () => {
  db = await startDynamo();
}, 60_000);
afterAll(async () => db?.stop());

async function contextWithNodes(count: number): Promise<{ ctx: DbsyncContext; table: string; uuids: string[] }> {
  const table = (await db.freshTables()).nodes;
  const items = nodeItems(count);
  await batchWrite(db.client, table, items);
  return { ctx: { client: db.client, tables: [nextNodeTable(table)], release }, table, uuids: items.map((i) => String(i.uuid)) };
}

describe('online data migrations', () => {
  it(
    'migrate 100,000 nodes, report (total, migrated), and migrate none on a second run',
    async () => {
      const started = Date.now();
      const { ctx, table, uuids } = await contextWithNodes(100_000);
      const seeded = Date.now();

      const first = await dbsyncOnlineDataMigrations(ctx);
      const migrated = Date.now();
      expect(first.exitCode).toBe(0);
      expect(first.data?.migrations).toEqual([
        { object: 'Node', table, latest: '1.1', total: 100_000, migrated: 100_000, conflicts: 0, unreadable: 0 },
      ]);
      expect(first.lines).toEqual([
        'update_to_latest_versions(Node) migrated 100000 of 100000 objects.',
        'Data migrations have completed.',
      ]);
      expect(await countToMigrate(db.client, table, '1.1')).toBe(0);

      // Items say the same in the new form, keep their revision and stay in their indexes.
      const { Item } = await db.client.send(new GetCommand({ TableName: table, Key: { uuid: uuids[12_345] } }));
      expect(Item).toMatchObject({ version: '1.1', meta: { rack: 'r1', slot: 12_345 }, rev: 1, _all: 'node', _pstate: 'available' });
      expect(Item).not.toHaveProperty('extra');
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
        `100,000 nodes: seeded in ${((seeded - started) / 1000).toFixed(1)} s, migrated in ${((migrated - seeded) / 1000).toFixed(1)} s ` +
          `(${Math.round(100_000 / ((migrated - seeded) / 1000))} items/s), second run ${((Date.now() - migrated) / 1000).toFixed(1)} s`,
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

  it('lose no update of a service writing the same nodes meanwhile', async () => {
    const { ctx, uuids } = await contextWithNodes(2_000);
    // A service of the new release, unpinned, counting in `meta` with conditional writes.
    class Nodes extends ObjectTable<VersionedObject> {
      save(obj: VersionedObject) {
        return this.saveObject(obj);
      }
    }
    const service = new Nodes(
      { client: db.client, tables: { ...db.tables, nodes: ctx.tables[0]!.table }, release },
      'nodes',
      NEXT_NODE_CODEC,
      {
        notFound: (id) => new Error(`gone ${id}`),
        alreadyExists: () => new Error('exists'),
        duplicate: () => new Error('duplicate'),
      },
    );
    const hot = uuids.slice(0, 20);
    const increments = new Map<string, number>();
    let running = true;
    const writers = Array.from({ length: 4 }, async () => {
      while (running) {
        const uuid = hot[randomInt(hot.length)]!;
        const node = (await service.get(uuid)) as VersionedObject & { meta: Record<string, number> };
        node.meta = { ...node.meta, count: (node.meta.count ?? 0) + 1 };
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
    // Nodes the service rewrote first (at 1.1) were left to it; everything ends at 1.1. The writers
    // start before the run counts, so a hot node they rewrote already is not in its total.
    expect(result!.total).toBeGreaterThanOrEqual(2_000 - hot.length);
    expect(result!.total).toBeLessThanOrEqual(2_000);
    expect(result!.migrated).toBeLessThanOrEqual(result!.total);
    expect(await countToMigrate(db.client, ctx.tables[0]!.table, '1.1')).toBe(0);
    for (const uuid of hot) {
      const node = (await service.get(uuid)) as VersionedObject & { meta: Record<string, number> };
      expect(node.meta.count ?? 0).toBe(increments.get(uuid) ?? 0);
      expect(node.meta.rack).toBe('r1');
    }
  });
});
