/**
 * Node lists at 10,000 nodes on DynamoDB Local cost what they return: each filter Nova's driver,
 * metal3 and operators list by is answered from an index partition, so a page reads its keys (one
 * more, to know whether a next page exists) and its items — counted as DynamoDB counts them
 * (items a Query evaluates, items a BatchGet returns) — however large the fleet. A filter no index
 * answers is checked on the nodes of the most selective index the request names, and reads what
 * that partition holds up to the page, no more.
 */
import { randomUUID } from 'node:crypto';
import { createDocumentClient } from '../../functions/db/client';
import { createStores, type Stores } from '../../functions/db/stores';
import { newSortId } from '../../functions/db/keys';
import { encodeItem } from '../../functions/db/items';
import { NODE_CODEC } from '../../functions/db/nodes';
import type { NodeFilter } from '../../functions/db/node-filters';
import { Node } from '../../functions/objects/node';
import { selectRelease } from '../../functions/common/releases';
import { makeNode } from '../unit/helpers/builders';
import { type TestDynamo, countingClient, startDynamo } from './helpers/dynamo';
import { batchWrite } from './helpers/seed';

const FLEET = 10_000;
const SHARDS = 10; // 1,000 nodes each
const GROUPS = 4; // 2,500 nodes each
const OWNERS = 100; // 100 nodes each
const inMaintenance = (i: number) => i % 50 === 3; // 200 nodes
const associated = (i: number) => i % 10 === 1; // 1,000 nodes, active

let db: TestDynamo;
let stores: Stores;
/** Returns the items read since the last call, and starts counting again. */
let resetRead: () => number;

beforeAll(async () => {
  db = await startDynamo();
  const counter = countingClient(db);
  const raw = counter.raw;
  resetRead = counter.reset;
  const tables = await db.freshTables();
  stores = createStores({ client: createDocumentClient(raw), tables, release: selectRelease('') });
  const now = Date.now();
  const items = Array.from({ length: FLEET }, (_, i) => {
    const node = makeNode({
      uuid: randomUUID(),
      driver: 'fake-hardware',
      provision_state: associated(i) ? 'active' : 'available',
      instance_uuid: associated(i) ? randomUUID() : null,
      shard: `shard-${i % SHARDS}`,
      conductor_group: `group-${i % GROUPS}`,
      owner: `project-${i % OWNERS}`,
      maintenance: inMaintenance(i),
      power_state: 'power off',
    });
    return encodeItem(NODE_CODEC, node, Node.VERSION, { rev: 1, sortId: newSortId(now + i), guards: [] });
  });
  await batchWrite(db.client, tables.nodes, items);
}, 180_000);
afterAll(async () => db?.stop());

/** List one page and count the items DynamoDB read for it. */
async function page(filter: NodeFilter, limit: number, marker?: string) {
  resetRead();
  const result = await stores.nodes.list(filter, { limit, ...(marker ? { marker } : {}) });
  return { ...result, read: resetRead() };
}

/** A page's keys (plus one) and its items, and the marker's position when given. */
const bound = (limit: number, marker = false) => 2 * limit + 1 + (marker ? 1 : 0);

it.each<[string, NodeFilter, number]>([
  ['a shard (Nova with [ironic]shard)', { shards: ['shard-3'] }, FLEET / SHARDS],
  ['a conductor group', { conductorGroup: 'group-2' }, FLEET / GROUPS],
  ['a provision state', { provisionState: 'active' }, FLEET / 10],
  ['nodes in maintenance', { maintenance: true }, FLEET / 50],
  ['an owner', { owner: 'project-7' }, FLEET / OWNERS],
  ['associated nodes', { associated: true }, FLEET / 10],
  ['the whole fleet', {}, FLEET],
])(
  'lists %s a page at a time, each page reading only itself',
  async (_what, filter, total) => {
    const limit = 1000;
    const first = await page(filter, limit);
    expect(first.nodes).toHaveLength(Math.min(limit, total));
    expect(first.read).toBeLessThanOrEqual(bound(Math.min(limit, total)));
    expect(first.more).toBe(total > limit);
    if (total > limit) {
      const second = await page(filter, limit, first.nodes.at(-1)!.uuid);
      expect(second.nodes).toHaveLength(Math.min(limit, total - limit));
      expect(second.nodes[0]!.uuid).not.toBe(first.nodes.at(-1)!.uuid);
      expect(second.read).toBeLessThanOrEqual(bound(limit, true));
    }
  },
  60_000,
);

it('costs as much per node to list a 1,000-node shard of 10,000 as to list a partition of 100', async () => {
  const shard = await page({ shards: ['shard-5'] }, 1000);
  const all = await page({ owner: 'project-1' }, 100);
  expect(shard.nodes.every((n) => n.shard === 'shard-5')).toBe(true);
  // Per node returned, the shard reads what a list of a partition of its own size reads.
  expect(shard.read / shard.nodes.length).toBeLessThanOrEqual((all.read / all.nodes.length) * 1.05);
}, 60_000);

it('answers a filter no index serves from the narrowest index named, reading no more than that partition', async () => {
  // Nova's shard list narrowed to nodes without an instance: the shard index, then a check per node.
  const free = await page({ shards: ['shard-1'], associated: false }, 1000);
  expect(free.nodes).toHaveLength(0); // i % 10 === 1: every node of shard-1 is associated
  expect(free.more).toBe(false);
  expect(free.read).toBeLessThanOrEqual(2 * (FLEET / SHARDS) + 1);
  const small = await page({ shards: ['shard-2'], maintenance: false }, 10);
  expect(small.nodes).toHaveLength(10);
  expect(small.nodes.every((n) => n.shard === 'shard-2' && !n.maintenance)).toBe(true);
  // The partition's keys (small items, cheap in read units) and one BatchGet of 100 nodes.
  expect(small.read).toBeLessThanOrEqual(FLEET / SHARDS + 1 + 100);
}, 60_000);
