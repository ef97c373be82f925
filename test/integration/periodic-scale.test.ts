/**
 * The periodic tasks at 10,000 nodes on DynamoDB Local: no invocation walks the fleet. Each
 * invocation reads at most a page of nodes (counted as DynamoDB counts them: items evaluated by a
 * Query or Scan, items returned by a BatchGet or a Get) and hands the rest on; following the
 * cursors it hands on, the chain still checks every node.
 */
import { randomUUID } from 'node:crypto';
import { failStuckNodes } from '../../functions/conductor/flows/stuck';
import { failTimedOutWaits } from '../../functions/conductor/flows/timeouts';
import { syncPowerStates } from '../../functions/conductor/flows/power-sync';
import { manageNodeHistory } from '../../functions/conductor/history';
import { PERIODIC_PAGE_SIZE } from '../../functions/conductor/flows/periodic-pages';
import type { ConductorContext } from '../../functions/conductor/context';
import { createDocumentClient } from '../../functions/db/client';
import { createStores } from '../../functions/db/stores';
import { newSortId } from '../../functions/db/keys';
import { encodeItem } from '../../functions/db/items';
import { NODE_HISTORY_CODEC } from '../../functions/db/node-history';
import { NodeHistory } from '../../functions/objects/node-history';
import { selectRelease } from '../../functions/common/releases';
import { makeConductorContext } from '../unit/helpers/builders';
import { type TestDynamo, countingClient, startDynamo } from './helpers/dynamo';
import { batchWrite, nodeItems } from './helpers/seed';

const FLEET = 10_000;
/** Nodes left stuck in `deploying` by a dead conductor (no lock), one in 40, spread over the fleet. */
const stuck = (i: number) => i % 40 === 7;
/** Nodes waiting for their ramdisk far past the callback timeout, one in 60. */
const timedOut = (i: number) => i % 60 === 11;
const STUCK = Array.from({ length: FLEET }, (_, i) => i).filter(stuck).length;
const TIMED_OUT = Array.from({ length: FLEET }, (_, i) => i).filter(timedOut).length;
/** Nodes with more history than the maximum kept. */
const LONG_HISTORY = 40;

let db: TestDynamo;
let ctx: ConductorContext;
/** Returns the items read since the last call, and starts counting again. */
let resetRead: () => number;
/** Returns the read units consumed since the last call, and starts counting again. */
let readUnits: () => number;

beforeAll(async () => {
  db = await startDynamo();
  console.log('dynamo up');
  const counter = countingClient(db);
  const raw = counter.raw;
  resetRead = counter.reset;
  readUnits = counter.readUnits;
  const tables = await db.freshTables();
  const stores = createStores({ client: createDocumentClient(raw), tables, release: selectRelease('') });
  const base = makeConductorContext({ callbackTimeoutSeconds: 60 });
  ctx = { ...base, nodes: stores.nodes, stores };

  const longAgo = new Date(Date.now() - 86_400_000).toISOString();
  const items = nodeItems(FLEET, { power_state: 'power off' }).map((item, i) => {
    if (stuck(i)) return { ...item, provision_state: 'deploying', _pstate: 'deploying', target_provision_state: 'active' };
    if (timedOut(i))
      return {
        ...item,
        provision_state: 'wait call-back',
        _pstate: 'wait call-back',
        target_provision_state: 'active',
        provision_updated_at: longAgo,
      };
    return item;
  });
  await batchWrite(db.client, tables.nodes, items);
  const history = items.slice(0, LONG_HISTORY).flatMap((node, n) =>
    Array.from({ length: 5 }, (_, i) =>
      encodeItem(
        NODE_HISTORY_CODEC,
        new NodeHistory({
          uuid: randomUUID(),
          node_uuid: String(node.uuid),
          event: `e${i}`,
          severity: 'INFO',
          created_at: new Date().toISOString(),
        }),
        '1.0',
        { rev: 1, sortId: newSortId(Date.now() - 10_000 + n * 10 + i), guards: [] },
      ),
    ),
  );
  await batchWrite(db.client, tables.node_history, history);
}, 180_000);
afterAll(async () => db?.stop());

/**
 * Run a task as the scheduler and its own hand-offs would: the first invocation without a cursor,
 * then one per cursor handed on. Returns each invocation's result and the items it read.
 */
async function chain<R>(invoke: (cursor: string | undefined, continueAt: (c: string) => Promise<void>) => Promise<R>) {
  const runs: { result: R; read: number; units: number }[] = [];
  const cursors: (string | undefined)[] = [undefined];
  while (cursors.length > 0) {
    const cursor = cursors.shift();
    resetRead();
    readUnits();
    const result = await invoke(cursor, async (next) => {
      cursors.push(next);
    });
    runs.push({ result, read: resetRead(), units: readUnits() });
  }
  return runs;
}

/**
 * Nodes of a page, read twice (the index, then the items; the index Query reads one more to know
 * whether there are more), and a few Queries of empty states.
 */
const BOUND = 2 * (PERIODIC_PAGE_SIZE + 1) + 10;

it('fails every stuck node of 10,000, no invocation reading more than a page', async () => {
  const runs = await chain((cursor, continueAt) => failStuckNodes(ctx, { ...(cursor ? { cursor } : {}), continueAt }));
  expect(runs.reduce((n, r) => n + r.result.failed, 0)).toBe(STUCK);
  expect(Math.max(...runs.map((r) => r.read))).toBeLessThanOrEqual(BOUND);
  expect(runs.length).toBeGreaterThanOrEqual(Math.ceil(STUCK / PERIODIC_PAGE_SIZE));
}, 120_000);

it('fails every timed-out wait, no invocation reading more than a page', async () => {
  const runs = await chain((cursor, continueAt) => failTimedOutWaits(ctx, { ...(cursor ? { cursor } : {}), continueAt }));
  expect(runs.reduce((n, r) => n + r.result.failed, 0)).toBe(TIMED_OUT);
  expect(Math.max(...runs.map((r) => r.read))).toBeLessThanOrEqual(BOUND);
}, 120_000);

/** Invocations of a walk through every node: a full last page still hands on a cursor, to an empty page. */
const expectWholeFleetWalk = (runs: readonly unknown[]) => {
  expect(runs.length).toBeGreaterThanOrEqual(FLEET / PERIODIC_PAGE_SIZE);
  expect(runs.length).toBeLessThanOrEqual(FLEET / PERIODIC_PAGE_SIZE + 1);
};

it('syncs the power state of all 10,000 nodes a page per invocation, paying read units by the bytes read', async () => {
  const runs = await chain((marker, continueAt) => syncPowerStates(ctx, { ...(marker ? { marker } : {}), continueAt }));
  expectWholeFleetWalk(runs);
  // Every node not in a wait state whose power is excluded from the sync is checked once.
  expect(runs.reduce((n, r) => n + r.result.checked, 0)).toBeGreaterThan(FLEET - STUCK - TIMED_OUT - 1);
  expect(Math.max(...runs.map((r) => r.read))).toBeLessThanOrEqual(PERIODIC_PAGE_SIZE);
  // A page is scanned, charged half a unit per 4 KB read: these nodes take well under 1 KB each,
  // so a page costs a fraction of the half unit per node that reading each item would.
  const bytes = JSON.stringify(nodeItems(1, { power_state: 'power off' })[0]).length;
  expect(bytes).toBeLessThan(1024);
  expect(Math.min(...runs.slice(0, -1).map((r) => r.units))).toBeGreaterThan(0);
  expect(Math.max(...runs.map((r) => r.units))).toBeLessThanOrEqual(Math.ceil((PERIODIC_PAGE_SIZE * 1024) / 4096) / 2);
}, 300_000);

it("trims every node's history a page of nodes per invocation, never scanning the history table", async () => {
  const runs = await chain((cursor, continueAt) =>
    manageNodeHistory(
      { nodes: ctx.nodes, history: ctx.stores.nodeHistory, log: ctx.log },
      { maxEntries: 2, minimumDays: 0 },
      {
        ...(cursor ? { cursor } : {}),
        continueAt,
      },
    ),
  );
  expectWholeFleetWalk(runs);
  expect(runs.reduce((n, r) => n + r.result.deleted, 0)).toBe(LONG_HISTORY * 3);
  // A page of nodes and each node's own records (five for the first forty).
  expect(Math.max(...runs.map((r) => r.read))).toBeLessThanOrEqual(PERIODIC_PAGE_SIZE + LONG_HISTORY * 5);
}, 300_000);
