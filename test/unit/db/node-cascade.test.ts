/**
 * The transactions that destroy a node with many dependents (`cascadeTransactions`): the node goes
 * in the last one, every dependent goes whole with its guards, and every earlier transaction
 * checks the node's condition first.
 */
import { MAX_TRANSACTION_ITEMS, cascadeTransactions } from '../../../functions/db/node-cascade';

type Item = ReturnType<typeof cascadeTransactions>[number][number];

const del = (table: string, uuid: string): Item => ({ Delete: { TableName: table, Key: { uuid } } });
const guardDelete = (key: string): Item => ({ Delete: { TableName: 'uniques', Key: { key } } });
const NODE_DELETE = del('nodes', 'n1');
const NODE_CHECK: Item = { ConditionCheck: { TableName: 'nodes', Key: { uuid: 'n1' }, ConditionExpression: '#rev = :rev' } };

/** A port with its MAC and name guards: three items that must go together. */
const port = (i: number): Item[] => [del('ports', `p${i}`), guardDelete(`port/address/${i}`), guardDelete(`port/name/${i}`)];

const describeItem = (item: Item) => {
  const [kind, part] = Object.entries(item)[0] as [string, { TableName: string; Key: Record<string, string> }];
  return `${kind} ${part.TableName} ${Object.values(part.Key)[0]}`;
};

it('is one transaction when the node and its dependents fit in one', () => {
  const groups = Array.from({ length: 30 }, (_, i) => port(i));
  const transactions = cascadeTransactions([NODE_DELETE, guardDelete('node/name/x')], NODE_CHECK, groups);
  expect(transactions).toHaveLength(1);
  expect(transactions[0]).toHaveLength(92);
  expect(transactions[0]?.[0]).toBe(NODE_DELETE);
});

it('deletes the node last, after dependents deleted whole under a check of the node, never more than 100 items each', () => {
  const groups = Array.from({ length: 150 }, (_, i) => port(i));
  const transactions = cascadeTransactions([NODE_DELETE, guardDelete('node/name/x')], NODE_CHECK, groups);
  expect(transactions.length).toBeGreaterThan(1);
  const last = transactions[transactions.length - 1]!;
  expect(last[0]).toBe(NODE_DELETE);
  for (const [i, items] of transactions.entries()) {
    expect(items.length).toBeLessThanOrEqual(MAX_TRANSACTION_ITEMS);
    if (i < transactions.length - 1) {
      expect(items[0]).toBe(NODE_CHECK);
      expect(items.filter((item) => item === NODE_DELETE)).toEqual([]);
    }
    // Each port's delete is in the same transaction as its guards' deletes.
    const named = items.map(describeItem);
    for (const name of named.filter((n) => n.startsWith('Delete ports '))) {
      const n = name.slice('Delete ports p'.length);
      expect(named).toEqual(expect.arrayContaining([`Delete uniques port/address/${n}`, `Delete uniques port/name/${n}`]));
    }
  }
  // Every item is deleted exactly once.
  const all = transactions.flat().filter((item) => item !== NODE_CHECK);
  expect(all).toHaveLength(2 + 150 * 3);
  expect(new Set(all.map(describeItem)).size).toBe(all.length);
});
