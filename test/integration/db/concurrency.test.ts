/**
 * Writers racing on DynamoDB Local: on one node exactly one of two writers wins and the other gets
 * a 409 (ConcurrentUpdate, or NodeLocked against a lock); many writers that retry lose nothing;
 * a unique value raced for is taken once.
 */
import { randomUUID } from 'node:crypto';
import { ConcurrentUpdate, DuplicateName, type IronicError, MACAlreadyExists, NodeLocked } from '../../../functions/common/errors';
import { DynamoNodeStore } from '../../../functions/db/nodes';
import { DynamoPortStore } from '../../../functions/db/ports';
import { Port } from '../../../functions/objects/port';
import { makeNode } from '../../unit/helpers/builders';
import { type TestDynamo, startDynamo } from '../helpers/dynamo';

let db: TestDynamo;
let nodes: DynamoNodeStore;

beforeAll(async () => {
  db = await startDynamo();
  nodes = new DynamoNodeStore(db.context());
}, 60_000);
afterAll(async () => db?.stop());

function outcomes(results: PromiseSettledResult<unknown>[]) {
  const won = results.filter((r) => r.status === 'fulfilled').length;
  const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
  return { won, errors };
}

describe('racing writers', () => {
  it('two writers on one node: exactly one wins, the other gets 409 ConcurrentUpdate', async () => {
    const node = await nodes.create(makeNode());
    const [a, b] = await Promise.all([nodes.get(node.uuid), nodes.get(node.uuid)]);
    a.extra = { writer: 'a' };
    b.extra = { writer: 'b' };
    const { won, errors } = outcomes(await Promise.allSettled([nodes.save(a), nodes.save(b)]));
    expect(won).toBe(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(ConcurrentUpdate);
    expect((errors[0] as IronicError).code).toBe(409);
    const stored = await nodes.get(node.uuid);
    expect(stored.storeMeta?.rev).toBe(2);
    expect(['a', 'b']).toContain(stored.extra.writer);
  });

  it('two conductors reserving one node: exactly one holds it, the other gets 409 NodeLocked', async () => {
    const node = await nodes.create(makeNode());
    const owner = (n: number) => ({ host: `conductor:${n}`, token: `t${n}`, ttlSeconds: 60 });
    const { won, errors } = outcomes(await Promise.allSettled([1, 2, 3, 4].map((n) => nodes.reserve(node.uuid, owner(n)))));
    expect(won).toBe(1);
    expect(errors).toHaveLength(3);
    for (const err of errors) expect(err).toBeInstanceOf(NodeLocked);
  });

  it('many writers that retry on 409 lose no update: a counter ends at the number of writers', async () => {
    const node = await nodes.create(makeNode({ extra: { count: 0 } }));
    const WRITERS = 20;
    let retries = 0;
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, i) => {
        for (;;) {
          const copy = await nodes.get(node.uuid);
          copy.extra = { ...copy.extra, count: (copy.extra.count as number) + 1, [`w${i}`]: true };
          try {
            await nodes.save(copy);
            return;
          } catch (err) {
            if (!(err instanceof ConcurrentUpdate)) throw err;
            retries++;
          }
        }
      }),
    );
    const stored = await nodes.get(node.uuid);
    expect(stored.extra.count).toBe(WRITERS);
    expect(Object.keys(stored.extra).filter((k) => k.startsWith('w'))).toHaveLength(WRITERS);
    expect(stored.storeMeta?.rev).toBe(1 + WRITERS);
    // The writers did race: some had to retry (a test that never races proves nothing).
    expect(retries).toBeGreaterThan(0);
  });

  it('a writer without the lock cannot write a node another holds, even with a fresh copy', async () => {
    const node = await nodes.create(makeNode());
    const holder = await nodes.reserve(node.uuid, { host: 'conductor:1', token: 'held', ttlSeconds: 60 });
    const other = await nodes.get(node.uuid);
    other.extra = { sneaky: true };
    await expect(nodes.save(other, { lockFor: { host: 'api', token: 'mine', ttlSeconds: 60 } })).rejects.toThrow(NodeLocked);
    holder.extra = { by: 'holder' };
    await nodes.save(holder, { release: true });
    expect((await nodes.get(node.uuid)).extra).toEqual({ by: 'holder' });
  });

  it('a name raced for by many creates is taken once', async () => {
    const { won, errors } = outcomes(
      await Promise.allSettled(Array.from({ length: 8 }, () => nodes.create(makeNode({ name: 'contested' })))),
    );
    expect(won).toBe(1);
    // Losers see the name taken, or (a transaction conflict) a 409 asking them to retry.
    for (const err of errors) expect(err instanceof DuplicateName || err instanceof ConcurrentUpdate).toBe(true);
    expect((await nodes.getByName('contested')).name).toBe('contested');
  });

  it('a MAC address raced for by many ports is taken once', async () => {
    const ports = new DynamoPortStore(db.context());
    const node = await nodes.create(makeNode());
    const make = () => ports.create(new Port({ uuid: randomUUID(), node_uuid: node.uuid, address: '52:54:00:ff:ff:01' }));
    const { won, errors } = outcomes(await Promise.allSettled(Array.from({ length: 8 }, make)));
    expect(won).toBe(1);
    for (const err of errors) expect(err instanceof MACAlreadyExists || err instanceof ConcurrentUpdate).toBe(true);
  });
});
