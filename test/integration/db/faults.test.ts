/**
 * The stores on DynamoDB Local behind the fault-injecting proxy (`local/dynamodb-proxy.ts`), through
 * the AWS SDK as the functions use it: a name claim is never lost to a write whose answer was lost,
 * and a node with more dependents than one transaction holds is deleted dependents first, so a
 * delete that fails midway orphans nothing; a write that meets a transaction under way on its item
 * (DynamoDB's TransactionConflict, which the SDK does not retry by itself) is sent again, and past
 * the retries is a lost race, never a raw DynamoDB error.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  ConcurrentUpdate,
  DatabaseUnavailable,
  DuplicateName,
  MACAlreadyExists,
  NodeLocked,
  NodeNotFound,
  PortNotFound,
} from '../../../functions/common/errors';
import { selectRelease } from '../../../functions/common/releases';
import { createDocumentClient } from '../../../functions/db/client';
import { TABLE_CODECS } from '../../../functions/db/codecs';
import { dbsyncOnlineDataMigrations } from '../../../functions/db/dbsync';
import { type Command, type DocumentClient, GetCommand, TransactWriteCommand } from '../../../functions/db/dynamo';
import { guard } from '../../../functions/db/keys';
import { type Stores, createStores } from '../../../functions/db/stores';
import { Port } from '../../../functions/objects/port';
import { DynamoDbProxy } from '../../../local/dynamodb-proxy';
import { makeNode } from '../../unit/helpers/builders';
import { LOCAL_CREDENTIALS, type TestDynamo, startDynamo } from '../helpers/dynamo';
import { batchWrite, nodeItems } from '../helpers/seed';

let db: TestDynamo;
let proxy: DynamoDbProxy;
let sdk: DynamoDBClient;
let client: DocumentClient;
let stores: Stores;

beforeAll(async () => {
  db = await startDynamo();
  proxy = new DynamoDbProxy(db.endpoint);
  // Through the proxy, as the conductor's client (its attempts), with the stores' error mapping.
  sdk = new DynamoDBClient({ endpoint: await proxy.start(), region: 'us-east-1', credentials: LOCAL_CREDENTIALS, maxAttempts: 3 });
  client = createDocumentClient(sdk);
  stores = createStores({ client, tables: db.tables, release: selectRelease('') });
}, 60_000);
afterEach(() => proxy.clearFaults());
afterAll(async () => {
  sdk?.destroy();
  await proxy?.stop();
  await db?.stop();
});

const guardOf = async (key: string) =>
  (await db.client.send(new GetCommand({ TableName: db.tables.uniques, Key: { key }, ConsistentRead: true }))).Item;

describe('a create of a named node', () => {
  it('succeeds when every attempt of its node put was applied but answered 500, its name claimed by it', async () => {
    proxy.addFault({ action: 'server-error-after', operations: ['PutItem'], tables: ['nodes'] });
    const node = await stores.nodes.create(makeNode({ name: 'f-applied' }));
    proxy.clearFaults();
    expect(proxy.injected.get('server-error-after')).toBe(3);
    expect(await guardOf(guard.nodeName('f-applied'))).toMatchObject({ owner: node.uuid });
    expect((await stores.nodes.getByName('f-applied')).uuid).toBe(node.uuid);
  });

  it('gives its claims back when the node put was throttled on every attempt: the name is free at once', async () => {
    proxy.addFault({ action: 'throughput', operations: ['PutItem'], tables: ['nodes'] });
    await expect(stores.nodes.create(makeNode({ name: 'f-throttled', instance_uuid: randomUUID() }))).rejects.toBeInstanceOf(
      DatabaseUnavailable,
    );
    proxy.clearFaults();
    expect(await guardOf(guard.nodeName('f-throttled'))).toBeUndefined();
    await stores.nodes.create(makeNode({ name: 'f-throttled' }));
  });

  it('keeps its claim while a node put of unknown outcome may still land (500s, node not written)', async () => {
    proxy.addFault({ action: 'server-error', operations: ['PutItem'], tables: ['nodes'] });
    const node = makeNode({ name: 'f-unknown' });
    const err = await stores.nodes.create(node).catch((e: unknown) => e);
    proxy.clearFaults();
    expect(err).toBeInstanceOf(DatabaseUnavailable);
    expect((err as DatabaseUnavailable).outcomeUnknown).toBe(true);
    expect(await guardOf(guard.nodeName('f-unknown'))).toMatchObject({ owner: node.uuid });
    await expect(stores.nodes.create(makeNode({ name: 'f-unknown' }))).rejects.toBeInstanceOf(DuplicateName);
  });

  it('gives back a claim applied but answered 500 when the create fails before its node is sent', async () => {
    proxy.addFault({ action: 'server-error-after', operations: ['PutItem'], tables: ['uniques'] });
    await expect(stores.nodes.create(makeNode({ name: 'f-claim-lost' }))).rejects.toBeInstanceOf(DatabaseUnavailable);
    proxy.clearFaults();
    expect(await guardOf(guard.nodeName('f-claim-lost'))).toBeUndefined();
  });
});

describe('a write that meets a transaction under way on its item', () => {
  it('is sent again: a node save and a port create (its transaction checks the node) each pass on a later attempt', async () => {
    const node = await stores.nodes.create(makeNode({ name: 'f-conflict' }));
    proxy.addFault({ action: 'transaction-conflict', operations: ['PutItem'], tables: ['nodes'], times: 2 });
    node.extra = { met: 'a transaction' };
    await stores.nodes.save(node);
    expect(proxy.injected.get('transaction-conflict')).toBe(2);
    expect((await stores.nodes.get(node.uuid)).extra).toEqual({ met: 'a transaction' });

    proxy.addFault({ action: 'transaction-conflict', operations: ['TransactWriteItems'], tables: ['ports'], times: 1 });
    const port = await stores.ports.create(new Port({ uuid: randomUUID(), node_uuid: node.uuid, address: '52:54:00:aa:00:01' }));
    expect(proxy.injected.get('transaction-conflict')).toBe(3);
    expect((await stores.ports.get(port.uuid)).node_uuid).toBe(node.uuid);
  });

  it('is a lost race past the retries: the save a ConcurrentUpdate, the lock a NodeLocked, the node unchanged', async () => {
    const node = await stores.nodes.create(makeNode({ name: 'f-conflict-always' }));
    proxy.addFault({ action: 'transaction-conflict', operations: ['PutItem', 'UpdateItem'], tables: ['nodes'] });
    node.extra = { lost: true };
    await expect(stores.nodes.save(node)).rejects.toBeInstanceOf(ConcurrentUpdate);
    await expect(stores.nodes.reserve(node.uuid, { host: 'c1', token: randomUUID(), ttlSeconds: 60 })).rejects.toBeInstanceOf(NodeLocked);
    proxy.clearFaults();
    const stored = await stores.nodes.get(node.uuid);
    expect(stored.extra).toEqual({});
    expect(stored.reservation).toBeNull();
  });
});

describe('online data migrations meeting transactions under way', () => {
  it('count the items still held as conflicts, not as a failure, and migrate them on the next run', async () => {
    const table = (await db.freshTables()).nodes;
    await batchWrite(db.client, table, nodeItems(30));
    const ctx = { client, tables: [{ table, codec: TABLE_CODECS.nodes }], release: selectRelease('') };
    proxy.addFault({ action: 'transaction-conflict', operations: ['TransactWriteItems', 'PutItem'], tables: [table] });
    const held = await dbsyncOnlineDataMigrations(ctx, { maxCount: 30 });
    proxy.clearFaults();
    expect(held.exitCode).toBe(1);
    expect(held.data?.migrations?.[0]).toMatchObject({ total: 30, migrated: 0, conflicts: 30 });
    const next = await dbsyncOnlineDataMigrations(ctx);
    expect(next.exitCode).toBe(0);
    expect(next.data?.migrations?.[0]).toMatchObject({ total: 30, migrated: 30, conflicts: 0 });
  });
});

describe('deleting a node with more than 100 items', () => {
  const PORTS = 120;
  const mac = (node: number, i: number) =>
    `52:54:0${node}:00:${Math.floor(i / 256)
      .toString(16)
      .padStart(2, '0')}:${(i % 256).toString(16).padStart(2, '0')}`;

  async function nodeWithPorts(n: number): Promise<{ uuid: string; ports: string[] }> {
    const node = await stores.nodes.create(makeNode({ name: `f-many-${n}` }));
    const ports: string[] = [];
    for (let i = 0; i < PORTS; i++) {
      const port = await stores.ports.create(
        new Port({ uuid: randomUUID(), node_uuid: node.uuid, address: mac(n, i), name: `f-${n}-eth${i}` }),
      );
      ports.push(port.uuid);
    }
    return { uuid: node.uuid, ports };
  }

  it('deletes every port, with its MAC and name, and the node last', async () => {
    const { uuid, ports } = await nodeWithPorts(1);
    await stores.nodes.destroy(await stores.nodes.get(uuid));
    await expect(stores.nodes.get(uuid)).rejects.toBeInstanceOf(NodeNotFound);
    await expect(stores.ports.get(ports[0]!)).rejects.toBeInstanceOf(PortNotFound);
    expect(await guardOf(guard.portAddress(mac(1, PORTS - 1)))).toBeUndefined();
    expect(await guardOf(guard.nodeName('f-many-1'))).toBeUndefined();
  }, 120_000);

  it('orphans nothing when a transaction fails midway: the node and its remaining ports stay whole, a second delete finishes', async () => {
    const { uuid, ports } = await nodeWithPorts(2);
    // The stores' client, with the second transaction of the delete failing (DynamoDB unavailable).
    let transactions = 0;
    const failing = {
      send: (command: Command<unknown, unknown>) => {
        if (command instanceof TransactWriteCommand && ++transactions === 2)
          return Promise.reject(new DatabaseUnavailable('injected: the second transaction', false));
        return client.send(command);
      },
    } as unknown as DocumentClient;
    const failingStores = createStores({ client: failing, tables: db.tables, release: selectRelease('') });
    await expect(failingStores.nodes.destroy(await stores.nodes.get(uuid))).rejects.toBeInstanceOf(DatabaseUnavailable);

    // The node is still there, with its name; each port is either gone with its guards, or whole.
    const node = await stores.nodes.get(uuid);
    expect((await stores.nodes.getByName('f-many-2')).uuid).toBe(uuid);
    let gone = 0;
    for (const [i, port] of ports.entries()) {
      const found = await stores.ports.get(port).catch((e: unknown) => e);
      if (found instanceof PortNotFound) {
        gone++;
        expect(await guardOf(guard.portAddress(mac(2, i)))).toBeUndefined();
        expect(await guardOf(guard.portName(`f-2-eth${i}`))).toBeUndefined();
      } else {
        expect((found as Port).node_uuid).toBe(uuid);
        expect(await guardOf(guard.portAddress(mac(2, i)))).toMatchObject({ owner: port });
      }
    }
    expect(gone).toBeGreaterThan(0);
    expect(gone).toBeLessThan(PORTS);

    await stores.nodes.destroy(node);
    await expect(stores.nodes.get(uuid)).rejects.toBeInstanceOf(NodeNotFound);
    // Every MAC can be used again, none claimed by an orphan.
    const other = await stores.nodes.create(makeNode());
    for (let i = 0; i < PORTS; i += 17)
      await stores.ports.create(new Port({ uuid: randomUUID(), node_uuid: other.uuid, address: mac(2, i) }));
    await expect(stores.ports.create(new Port({ uuid: randomUUID(), node_uuid: other.uuid, address: mac(2, 0) }))).rejects.toBeInstanceOf(
      MACAlreadyExists,
    );
  }, 120_000);
});
