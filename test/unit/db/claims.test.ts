/**
 * Creates that claim unique values and then put their item (`claims.ts`), with DynamoDB failing at
 * chosen points: a claim is never lost while its item may exist, a create whose item was written
 * succeeds, and claims are given back when the item certainly was not written.
 */
import { randomUUID } from 'node:crypto';
import { DatabaseUnavailable, DuplicateName } from '../../../functions/common/errors';
import { selectRelease } from '../../../functions/common/releases';
import { ABANDONED_CLAIM_MS } from '../../../functions/db/claims';
import { guard } from '../../../functions/db/keys';
import { DynamoNodeStore } from '../../../functions/db/nodes';
import { TABLES, type TableName } from '../../../functions/db/schema';
import { makeNode } from '../helpers/builders';
import { MemoryDynamo } from '../helpers/memory-dynamo';

const tables = Object.fromEntries(Object.keys(TABLES).map((name) => [name, `t-${name}`])) as Record<TableName, string>;
const keys = Object.fromEntries(Object.entries(TABLES).map(([name, def]) => [`t-${name}`, def.partitionKey]));
const NOW = Date.parse('2026-11-25T00:00:00Z');

let db: MemoryDynamo;
let nodes: DynamoNodeStore;
let now: number;
beforeEach(() => {
  db = new MemoryDynamo(keys);
  now = NOW;
  nodes = new DynamoNodeStore({ client: db.client, tables, release: selectRelease(''), now: () => now });
});

const isPut = (table: string) => (operation: string, input: Record<string, unknown>) =>
  operation === 'PutItem' && input.TableName === table;
const guardOf = (name: string) => db.item(tables.uniques, guard.nodeName(name));

describe('a create whose node put fails', () => {
  it('succeeds when the put was applied and only its answer lost, keeping its claim', async () => {
    db.fail({ match: isPut(tables.nodes), when: 'after' });
    const node = await nodes.create(makeNode({ name: 'n-after' }));
    expect(guardOf('n-after')).toMatchObject({ owner: node.uuid });
    expect((await nodes.getByName('n-after')).uuid).toBe(node.uuid);
  });

  it('succeeds when the SDK’s retry of an applied put failed its condition on the first attempt’s write', async () => {
    db.fail({ match: isPut(tables.nodes), when: 'retried' });
    const node = await nodes.create(makeNode({ name: 'n-retried' }));
    expect(guardOf('n-retried')).toMatchObject({ owner: node.uuid });
  });

  it('keeps its claim while the put may still land, and the name is free once the claim is abandoned', async () => {
    db.fail({ match: isPut(tables.nodes), when: 'lost' });
    const lost = makeNode({ name: 'n-lost' });
    await expect(nodes.create(lost)).rejects.toBeInstanceOf(DatabaseUnavailable);
    expect(guardOf('n-lost')).toMatchObject({ owner: lost.uuid, claimed_at: NOW });
    // Until then another create of the name is refused, as one still under way would be.
    await expect(nodes.create(makeNode({ name: 'n-lost' }))).rejects.toBeInstanceOf(DuplicateName);
    now = NOW + ABANDONED_CLAIM_MS + 1;
    const next = await nodes.create(makeNode({ name: 'n-lost' }));
    expect(guardOf('n-lost')).toMatchObject({ owner: next.uuid });
  });

  it('gives its claims back when the put was refused (throttled), so the name is free at once', async () => {
    db.fail({ match: isPut(tables.nodes), when: 'before' });
    const instance = randomUUID();
    await expect(nodes.create(makeNode({ name: 'n-throttled', instance_uuid: instance }))).rejects.toBeInstanceOf(DatabaseUnavailable);
    expect(guardOf('n-throttled')).toBeUndefined();
    expect(db.item(tables.uniques, guard.nodeInstance(instance))).toBeUndefined();
    const retried = await nodes.create(makeNode({ name: 'n-throttled' }));
    expect(guardOf('n-throttled')).toMatchObject({ owner: retried.uuid });
  });

  it('leaves the claims of another create of the same node (a repeat racing it) where they are', async () => {
    const node = makeNode({ name: 'n-repeat' });
    // The repeat claimed the name earlier and wrote the node meanwhile.
    db.put(tables.uniques, { key: guard.nodeName('n-repeat'), owner: node.uuid, claimed_at: NOW - 5 });
    db.put(tables.nodes, { uuid: node.uuid, _id: 'the-repeat', _guards: [guard.nodeName('n-repeat')], rev: 1 });
    await expect(nodes.create(node)).rejects.toThrow('already exists');
    expect(guardOf('n-repeat')).toMatchObject({ owner: node.uuid, claimed_at: NOW - 5 });
  });
});

describe('a create whose claim put fails', () => {
  it('gives back a claim whose put was applied, when the create fails before its node is sent', async () => {
    const instance = randomUUID();
    // The name's claim is applied but its answer lost; the instance's claim is never reached.
    db.fail({
      match: (op, input) => isPut(tables.uniques)(op, input) && (input.Item as { key: string }).key.startsWith('node/name/'),
      when: 'after',
    });
    await expect(nodes.create(makeNode({ name: 'n-claim-lost', instance_uuid: instance }))).rejects.toBeInstanceOf(DatabaseUnavailable);
    expect(guardOf('n-claim-lost')).toBeUndefined();
    expect(db.tables.get(tables.nodes)?.size ?? 0).toBe(0);
  });

  it('knows its own claim in a retried claim put (same owner, same claim time) and gives it back', async () => {
    db.fail({ match: isPut(tables.uniques), when: 'retried' });
    db.fail({ match: isPut(tables.nodes), when: 'before' });
    await expect(nodes.create(makeNode({ name: 'n-own' }))).rejects.toBeInstanceOf(DatabaseUnavailable);
    expect(guardOf('n-own')).toBeUndefined();
  });

  it('counts a claim of its own written by a retried put as held, and creates the node with it', async () => {
    db.fail({ match: isPut(tables.uniques), when: 'retried' });
    const node = await nodes.create(makeNode({ name: 'n-own-ok' }));
    expect(guardOf('n-own-ok')).toMatchObject({ owner: node.uuid, claimed_at: NOW });
  });
});
