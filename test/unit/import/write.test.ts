/**
 * The writes of `ironless fleet import` on an in-memory DynamoDB: the items are those an API
 * create writes, nodes keep the file's order, BatchWriteItem's unprocessed items are sent again,
 * and a node whose unique value was taken meanwhile fails alone and leaves nothing behind.
 */
import { checkFileNodes } from '../../../bin/import/nodes-file';
import { planImport } from '../../../bin/import/plan';
import { type WriteOptions, buildUnits, writeUnits } from '../../../bin/import/write';
import { newNode } from '../../../functions/api/node-create';
import { newPort } from '../../../functions/api/controllers/port-common';
import { parseVersion } from '../../../functions/api/microversion';
import { selectRelease } from '../../../functions/common/releases';
import { guard } from '../../../functions/db/keys';
import { DynamoNodeStore } from '../../../functions/db/nodes';
import { DynamoPortStore } from '../../../functions/db/ports';
import { TABLES, type TableName } from '../../../functions/db/schema';
import { MemoryDynamo } from '../helpers/memory-dynamo';

const VERSION = parseVersion(selectRelease('').apiMaxVersion)!;
const tables = Object.fromEntries(Object.keys(TABLES).map((name) => [name, `t-${name}`])) as Record<TableName, string>;
const keys = Object.fromEntries(Object.entries(TABLES).map(([name, def]) => [`t-${name}`, def.partitionKey]));
const NOW = Date.parse('2026-11-27T12:00:00Z');

function target(db: MemoryDynamo) {
  const ctx = { client: db.client, tables, release: selectRelease(''), now: () => NOW };
  return { client: db.client, nodes: new DynamoNodeStore(ctx), ports: new DynamoPortStore(ctx) };
}

/** Plan against an empty table and write, as the CLI does. */
async function importInto(db: MemoryDynamo, bodies: Record<string, unknown>[], options: Partial<WriteOptions> = {}) {
  const checked = checkFileNodes(bodies, VERSION);
  expect(checked.errors).toEqual([]);
  const t = target(db);
  const plan = await planImport(checked.nodes, {
    nodes: async () => [],
    ports: async () => [],
    chassis: async () => new Set(),
    guardOwners: async () => new Map(),
    served: async () => undefined,
  });
  return writeUnits(t, buildUnits(t, plan.writes, NOW), { concurrency: 4, backoffMs: 1, ...options });
}

const withoutCreation = (item: Record<string, unknown> | undefined) => {
  const { _id, created_at, ...rest } = item ?? {};
  return { ...rest, _id: typeof _id, created_at: typeof created_at };
};

it('writes the very items an API create writes: attributes, version, index keys, guards', async () => {
  const body = {
    driver: 'fake-hardware',
    name: 'n-1',
    uuid: '00000000-0000-4000-8000-000000000001',
    shard: 's1',
    conductor_group: 'Rack-A',
  };
  const port = { address: '52:54:00:AA:00:01', name: 'p-1' };
  const imported = new MemoryDynamo(keys);
  const outcome = await importInto(imported, [{ ...body, ports: [port] }]);
  expect(outcome).toEqual({ createdNodes: 1, createdPorts: 1, items: 5, failed: [] });

  const api = new MemoryDynamo(keys);
  const stores = target(api);
  await stores.nodes.create(newNode({ ...body }, body.uuid, body.conductor_group, VERSION));
  const created = await stores.ports.create(newPort({ ...port, address: port.address.toLowerCase() }, body.uuid));

  const portUuid = [...imported.tables.get(tables.ports)!.keys()][0]!;
  expect(withoutCreation(imported.item(tables.nodes, body.uuid))).toEqual(withoutCreation(api.item(tables.nodes, body.uuid)));
  expect({ ...withoutCreation(imported.item(tables.ports, portUuid)), uuid: 'x' }).toEqual({
    ...withoutCreation(api.item(tables.ports, created.uuid)),
    uuid: 'x',
  });
  expect(imported.item(tables.nodes, body.uuid)).toMatchObject({
    version: expect.any(String),
    provision_state: 'enroll',
    _group: 'g#rack-a',
  });
  expect(imported.item(tables.uniques, guard.nodeName('n-1'))).toEqual({ key: guard.nodeName('n-1'), owner: body.uuid });
  expect(imported.item(tables.uniques, guard.portAddress('52:54:00:aa:00:01'))).toEqual({
    key: guard.portAddress('52:54:00:aa:00:01'),
    owner: portUuid,
  });
});

it('keeps the file’s order in the creation order lists follow', async () => {
  const db = new MemoryDynamo(keys);
  const bodies = Array.from({ length: 60 }, (_, i) => ({
    driver: 'fake-hardware',
    uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  }));
  await importInto(db, bodies);
  const ids = bodies.map((b) => String(db.item(tables.nodes, b.uuid)?._id));
  expect([...ids].sort()).toEqual(ids);
});

it('puts nodes without unique values with BatchWriteItem, sending unprocessed items again', async () => {
  const db = new MemoryDynamo(keys);
  db.unprocessedBatches = 3;
  const outcome = await importInto(
    db,
    Array.from({ length: 30 }, () => ({ driver: 'fake-hardware' })),
    { concurrency: 1 },
  );
  expect(outcome.createdNodes).toBe(30);
  expect(outcome.failed).toEqual([]);
  expect(db.tables.get(tables.nodes)?.size).toBe(30);
  const batches = db.sent.filter((s) => s.operation === 'BatchWriteItem');
  expect(batches.length).toBe(2 + 3);
  expect(db.sent.some((s) => s.operation === 'TransactWriteItems')).toBe(false);
});

it('reports the nodes DynamoDB keeps leaving unprocessed, and says to import again', async () => {
  const db = new MemoryDynamo(keys);
  db.unprocessedBatches = 100;
  const outcome = await importInto(db, [{ driver: 'fake-hardware' }, { driver: 'fake-hardware' }], { batchAttempts: 3 });
  expect(outcome.createdNodes).toBe(1);
  expect(outcome.failed).toEqual([
    { index: 1, ident: expect.any(String), message: 'DynamoDB left the write unprocessed 3 times (throttling): import the file again.' },
  ]);
});

it('packs them into transactions instead when batch writes are off (DynamoDB Local)', async () => {
  const db = new MemoryDynamo(keys);
  const outcome = await importInto(
    db,
    Array.from({ length: 150 }, () => ({ driver: 'fake-hardware' })),
    { batchWrites: false },
  );
  expect(outcome.createdNodes).toBe(150);
  expect(db.sent.map((s) => s.operation)).toEqual(['TransactWriteItems', 'TransactWriteItems']);
});

it('fails only the node whose MAC another create took meanwhile, writing nothing of it', async () => {
  const db = new MemoryDynamo(keys);
  db.put(tables.uniques, { key: guard.portAddress('52:54:00:00:00:02'), owner: 'someone-else' });
  const bodies = [1, 2, 3].map((i) => ({
    driver: 'fake-hardware',
    name: `n-${i}`,
    uuid: `00000000-0000-4000-8000-00000000000${i}`,
    ports: [{ address: `52:54:00:00:00:0${i}` }],
  }));
  const outcome = await importInto(db, bodies);
  expect(outcome.createdNodes).toBe(2);
  expect(outcome.failed).toEqual([{ index: 1, ident: 'n-2', message: 'A port with MAC address 52:54:00:00:00:02 already exists.' }]);
  expect(db.item(tables.nodes, bodies[1]!.uuid)).toBeUndefined();
  expect(db.item(tables.uniques, guard.nodeName('n-2'))).toBeUndefined();
  expect(db.item(tables.nodes, bodies[2]!.uuid)).toBeDefined();
  expect(db.tables.get(tables.ports)?.size).toBe(2);
});
