/**
 * The node store on DynamoDB Local: lookups, unique names and instances, the lock, lists through
 * the indexes with Ironic's marker semantics, and the chassis foreign key.
 */
import { randomUUID } from 'node:crypto';
import {
  ChassisNotEmpty,
  ChassisNotFound,
  ConcurrentUpdate,
  DuplicateName,
  InstanceAssociated,
  NodeAlreadyExists,
  NodeLocked,
  NodeNotFound,
} from '../../../functions/common/errors';
import { DynamoChassisStore } from '../../../functions/db/chassis';
import { type Command, type DocumentClient, GetCommand, PutCommand } from '../../../functions/db/dynamo';
import { guard } from '../../../functions/db/keys';
import { DynamoNodeStore, type NodeFilter } from '../../../functions/db/nodes';
import { ABANDONED_CLAIM_MS } from '../../../functions/db/table';
import { Chassis } from '../../../functions/objects/chassis';
import type { Node } from '../../../functions/objects/node';
import { makeNode } from '../../unit/helpers/builders';
import { type TestDynamo, startDynamo } from '../helpers/dynamo';

let db: TestDynamo;
let nodes: DynamoNodeStore;

beforeAll(async () => {
  db = await startDynamo();
  nodes = new DynamoNodeStore(db.context());
}, 60_000);
afterAll(async () => db?.stop());

const owner = (token: string) => ({ host: `conductor:${token}`, token, ttlSeconds: 60 });

describe('DynamoNodeStore', () => {
  it('creates a node with a name and finds it by uuid, name and instance', async () => {
    const instance = randomUUID();
    const node = await nodes.create(makeNode({ name: 'n-find', instance_uuid: instance }));
    expect(node.storeMeta?.rev).toBe(1);
    expect((await nodes.get(node.uuid)).name).toBe('n-find');
    expect((await nodes.getByName('n-find')).uuid).toBe(node.uuid);
    expect((await nodes.getByIdent('n-find')).uuid).toBe(node.uuid);
    expect((await nodes.getByInstance(instance)).uuid).toBe(node.uuid);
    await expect(nodes.getByName('nope')).rejects.toThrow(new NodeNotFound('nope'));
  });

  it('keeps names and instances unique, and moves the guards when they change', async () => {
    const a = await nodes.create(makeNode({ name: 'n-unique' }));
    await expect(nodes.create(makeNode({ name: 'n-unique' }))).rejects.toThrow(DuplicateName);
    await expect(nodes.create(makeNode({ uuid: a.uuid }))).rejects.toThrow(NodeAlreadyExists);
    const instance = randomUUID();
    await nodes.create(makeNode({ instance_uuid: instance }));
    a.instance_uuid = instance;
    await expect(nodes.save(a)).rejects.toThrow(InstanceAssociated);
    const fresh = await nodes.get(a.uuid);
    fresh.name = 'n-renamed';
    await nodes.save(fresh);
    await expect(nodes.getByName('n-unique')).rejects.toThrow(NodeNotFound);
    await nodes.create(makeNode({ name: 'n-unique' })); // the old name is free again
    await nodes.destroy(await nodes.get(a.uuid));
    await nodes.create(makeNode({ name: 'n-renamed' }));
  });

  it('claims a name before writing the node, gives it back when the node cannot be written, and takes over an abandoned claim', async () => {
    const guardOf = async (name: string) =>
      (await db.client.send(new GetCommand({ TableName: db.tables.uniques, Key: { key: guard.nodeName(name) }, ConsistentRead: true })))
        .Item;
    const claimBy = (name: string, owner: string, claimedAt: number) =>
      db.client.send(new PutCommand({ TableName: db.tables.uniques, Item: { key: guard.nodeName(name), owner, claimed_at: claimedAt } }));

    const a = await nodes.create(makeNode({ name: 'n-claim-a' }));
    expect(await guardOf('n-claim-a')).toEqual({ key: guard.nodeName('n-claim-a'), owner: a.uuid, claimed_at: expect.any(Number) });
    // A node that cannot be written (its uuid is taken) leaves no claim on its new name behind.
    await expect(nodes.create(makeNode({ uuid: a.uuid, name: 'n-claim-b' }))).rejects.toThrow(NodeAlreadyExists);
    expect(await guardOf('n-claim-b')).toBeUndefined();
    // The same uuid and name again: its own claim, the node exists — NodeAlreadyExists, guard kept.
    await expect(nodes.create(makeNode({ uuid: a.uuid, name: 'n-claim-a' }))).rejects.toThrow(NodeAlreadyExists);
    expect((await guardOf('n-claim-a'))?.owner).toBe(a.uuid);

    // A create that died between its writes: a claim with no node.
    const ghost = randomUUID();
    await claimBy('n-claim-c', ghost, Date.now() - 60_000);
    await expect(nodes.create(makeNode({ name: 'n-claim-c' }))).rejects.toThrow(DuplicateName); // perhaps still under way
    await expect(nodes.getByName('n-claim-c')).rejects.toThrow(NodeNotFound);
    await claimBy('n-claim-c', ghost, Date.now() - ABANDONED_CLAIM_MS - 1000);
    const c = await nodes.create(makeNode({ name: 'n-claim-c' }));
    expect((await guardOf('n-claim-c'))?.owner).toBe(c.uuid);
    expect((await nodes.getByName('n-claim-c')).uuid).toBe(c.uuid);

    // An old claim whose node exists is that node's name, however old.
    await claimBy('n-claim-a', a.uuid, Date.now() - ABANDONED_CLAIM_MS - 1000);
    await expect(nodes.create(makeNode({ name: 'n-claim-a' }))).rejects.toThrow(DuplicateName);
    expect((await guardOf('n-claim-a'))?.owner).toBe(a.uuid);
  });

  it('keeps the name of a node created by a repeat of a create that then fails', async () => {
    // The first create claims the name, then waits before writing its node; a repeat of it (same
    // uuid and name) finds its own claim and writes the node; the first then finds the node there.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let held = false;
    const gated = {
      send: (command: Command<unknown, unknown>) => {
        const first = !held && command instanceof PutCommand && command.input.TableName === db.tables.nodes;
        if (first) held = true;
        return first ? gate.then(() => db.client.send(command)) : db.client.send(command);
      },
    } as unknown as DocumentClient;
    const slow = new DynamoNodeStore({ ...db.context(), client: gated });
    const node = makeNode({ name: 'n-claim-repeat' });
    const first = slow.create(makeNode({ uuid: node.uuid, name: 'n-claim-repeat' }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await nodes.create(node);
    open();
    await expect(first).rejects.toThrow(NodeAlreadyExists);
    expect((await nodes.getByName('n-claim-repeat')).uuid).toBe(node.uuid);
  });

  it('refuses to save a stale copy (no lost update) and a node locked by someone else (409)', async () => {
    const node = await nodes.create(makeNode());
    const copy1 = await nodes.get(node.uuid);
    const copy2 = await nodes.get(node.uuid);
    copy1.extra = { by: 1 };
    await nodes.save(copy1);
    copy2.extra = { by: 2 };
    await expect(nodes.save(copy2)).rejects.toThrow(ConcurrentUpdate);

    const locked = await nodes.reserve(node.uuid, owner('a'));
    expect(locked.reservation).toBe('conductor:a');
    await expect(nodes.reserve(node.uuid, owner('b'))).rejects.toThrow(
      `Node ${node.uuid} is locked by host conductor:a, please retry after the current operation is completed.`,
    );
    const other = await nodes.get(node.uuid);
    other.extra = { by: 3 };
    await expect(nodes.save(other)).rejects.toThrow(NodeLocked);
    locked.extra = { by: 'holder' };
    await nodes.save(locked, { release: true });
    const after = await nodes.get(node.uuid);
    expect(after.extra).toEqual({ by: 'holder' });
    expect(after.reservation).toBeNull();
  });

  it('lets a node be taken once its lock has expired', async () => {
    let now = Date.now();
    const clocked = new DynamoNodeStore({ ...db.context(), now: () => now });
    const node = await clocked.create(makeNode());
    await clocked.reserve(node.uuid, { ...owner('dead'), ttlSeconds: 5 });
    await expect(clocked.reserve(node.uuid, owner('b'))).rejects.toThrow(NodeLocked);
    now += 6_000;
    expect((await clocked.reserve(node.uuid, owner('b'))).reservation).toBe('conductor:b');
  });

  it('needs the chassis a node names, and keeps a chassis with nodes', async () => {
    const chassisStore = new DynamoChassisStore(db.context());
    const missing = randomUUID();
    await expect(nodes.create(makeNode({ chassis_uuid: missing }))).rejects.toThrow(new ChassisNotFound(missing));
    const chassis = await chassisStore.create(new Chassis({ uuid: randomUUID(), description: 'rack 1' }));
    const node = await nodes.create(makeNode({ chassis_uuid: chassis.uuid }));
    const page = await nodes.list({ chassisUuid: chassis.uuid }, { limit: 10 });
    expect(page.nodes.map((n) => n.uuid)).toEqual([node.uuid]);
    await expect(chassisStore.destroy(await chassisStore.get(chassis.uuid))).rejects.toThrow(ChassisNotEmpty);
    await nodes.destroy(await nodes.get(node.uuid));
    await chassisStore.destroy(await chassisStore.get(chassis.uuid));
    await expect(chassisStore.get(chassis.uuid)).rejects.toThrow(ChassisNotFound);
  });
});

describe('DynamoNodeStore.list', () => {
  let listed: DynamoNodeStore;
  let all: Node[];

  beforeAll(async () => {
    listed = new DynamoNodeStore({ ...db.context(), tables: await db.freshTables() });
    all = [];
    // Created one by one, so creation order is the order of this array.
    for (let i = 0; i < 12; i++) {
      all.push(
        await listed.create(
          makeNode({
            name: `l-${String(i).padStart(2, '0')}`,
            provision_state: i % 3 === 0 ? 'active' : 'available',
            owner: i % 4 === 0 ? 'p1' : null,
            lessee: i % 6 === 1 ? 'p1' : null,
            maintenance: i === 5,
            shard: i < 6 ? 'a' : 'b',
            instance_uuid: i % 3 === 0 ? randomUUID() : null,
            driver: i === 7 ? 'redfish' : 'fake-hardware',
            resource_class: i % 2 === 0 ? 'gold' : 'silver',
          }),
        ),
      );
    }
  }, 30_000);

  const uuids = (ns: Node[]) => ns.map((n) => n.uuid);
  const expected = (pred: (n: Node) => boolean) => uuids(all.filter(pred));
  /** Every page of a list, following markers as a client would. */
  async function pages(filter: NodeFilter, limit: number, sortKey?: string, sortDir?: 'asc' | 'desc'): Promise<string[][]> {
    const out: string[][] = [];
    let marker: string | undefined;
    for (;;) {
      const page = await listed.list(filter, { limit, marker, sortKey, sortDir });
      out.push(uuids(page.nodes));
      if (!page.more) return out;
      marker = page.nodes[page.nodes.length - 1]?.uuid;
    }
  }

  it('pages through all nodes in creation order, each page after the previous marker', async () => {
    expect((await pages({}, 5)).flat()).toEqual(uuids(all));
    expect((await pages({}, 5, undefined, 'desc')).flat()).toEqual(uuids(all).reverse());
  });

  it.each<[string, NodeFilter, (n: Node) => boolean]>([
    ['provision state', { provisionState: 'active' }, (n) => n.provision_state === 'active'],
    ['owner', { owner: 'p1' }, (n) => n.owner === 'p1'],
    ['project (owner or lessee)', { project: 'p1' }, (n) => n.owner === 'p1' || n.lessee === 'p1'],
    ['shard', { shards: ['b'] }, (n) => n.shard === 'b'],
    ['maintenance', { maintenance: true }, (n) => n.maintenance],
    ['not in maintenance', { maintenance: false }, (n) => !n.maintenance],
    ['associated', { associated: true }, (n) => n.instance_uuid !== null],
    ['driver', { driver: 'redfish' }, (n) => n.driver === 'redfish'],
    [
      'index and the rest',
      { provisionState: 'available', resourceClass: 'gold' },
      (n) => n.provision_state === 'available' && n.resource_class === 'gold',
    ],
  ])('filters by %s, across pages', async (_label, filter, pred) => {
    expect((await pages(filter, 2)).flat()).toEqual(expected(pred));
  });

  it('finds the node of an instance without walking the list', async () => {
    const target = all[3]!;
    expect(uuids((await listed.list({ instanceUuid: target.instance_uuid! }, { limit: 10 })).nodes)).toEqual([target.uuid]);
    expect((await listed.list({ instanceUuid: randomUUID() }, { limit: 10 })).nodes).toEqual([]);
    expect((await listed.list({ instanceUuid: target.instance_uuid!, provisionState: 'available' }, { limit: 10 })).nodes).toEqual([]);
  });

  it('continues after a marker that does not match the filter, from its position', async () => {
    const marker = all[4]!; // available
    const page = await listed.list({ provisionState: 'active' }, { limit: 10, marker: marker.uuid });
    expect(uuids(page.nodes)).toEqual(expected((n) => n.provision_state === 'active' && all.indexOf(n) > 4));
  });

  it('answers NodeNotFound for a marker that does not exist', async () => {
    const missing = randomUUID();
    await expect(listed.list({}, { limit: 3, marker: missing })).rejects.toThrow(new NodeNotFound(missing));
    await expect(listed.list({}, { limit: 3, marker: missing, sortKey: 'name' })).rejects.toThrow(NodeNotFound);
  });

  it('sorts by another key with id as the tie-break, in the same direction, and pages by the marker position', async () => {
    const byClass = [...all].sort((a, b) => (a.resource_class! < b.resource_class! ? -1 : a.resource_class! > b.resource_class! ? 1 : 0));
    expect((await pages({}, 5, 'resource_class')).flat()).toEqual(uuids(byClass));
    expect((await pages({}, 5, 'resource_class', 'desc')).flat()).toEqual(uuids(byClass).reverse());
    expect((await pages({ provisionState: 'available' }, 3, 'name', 'desc')).flat()).toEqual(
      expected((n) => n.provision_state === 'available').reverse(),
    );
  });
});
