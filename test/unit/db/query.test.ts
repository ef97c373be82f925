import { describe, expect, it } from '@jest/globals';
import { CHASSIS_CODEC } from '#db/chassis';
import type { DocumentClient } from '#db/dynamo';
import { listObjects } from '#db/query';

type Dict = Record<string, unknown>;

/**
 * A table of `count` chassis in one index partition, answering Query with keys and BatchGetItem
 * with items after `delayMs`; it records the calls and how many BatchGets were in flight at most.
 */
function fakeTable(count: number, delayMs = 5) {
  const items = Array.from({ length: count }, (_, i) => ({
    uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    _id: String(i).padStart(8, '0'),
    version: '1.0',
    extra: {},
    created_at: '2026-11-27T00:00:00+00:00',
    description: `chassis ${i}`,
  }));
  const calls: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const client = {
    send: async (command: { operation: string; input: Dict }) => {
      calls.push(command.operation);
      if (command.operation === 'Query') {
        const limit = command.input.Limit as number;
        const start = (command.input.ExclusiveStartKey as Dict | undefined)?._id as string | undefined;
        const from = start === undefined ? 0 : items.findIndex((it) => it._id === start) + 1;
        const page = items.slice(from, from + limit);
        const last = page.at(-1);
        return {
          Items: page.map((it) => ({ uuid: it.uuid, _id: it._id })),
          LastEvaluatedKey: from + limit < items.length && last ? { _id: last._id } : undefined,
        };
      }
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, delayMs));
      inFlight--;
      const keys = (command.input.RequestItems as Record<string, { Keys: Dict[] }>).chassis!.Keys.map((k) => k.uuid);
      return { Responses: { chassis: items.filter((it) => keys.includes(it.uuid)) } };
    },
  } as unknown as DocumentClient;
  return { client, calls, items, maxInFlight: () => maxInFlight };
}

const from = { indexes: [{ index: 'all', keyName: 'p', value: 'all' }] };
const notFound = (m: string) => new Error(`no ${m}`);

describe('listObjects in creation order', () => {
  it('reads a page of 1,000 with one Query and its ten BatchGets in parallel', async () => {
    const table = fakeTable(1500);
    const page = await listObjects({
      client: table.client,
      table: 'chassis',
      codec: CHASSIS_CODEC,
      from,
      page: { limit: 1000 },
      markerNotFound: notFound,
    });
    expect(page.items.map((c) => c.uuid)).toEqual(table.items.slice(0, 1000).map((it) => it.uuid));
    expect(page.more).toBe(true);
    expect(table.calls.filter((c) => c === 'Query')).toHaveLength(1);
    expect(table.calls.filter((c) => c === 'BatchGetItem')).toHaveLength(10);
    expect(table.maxInFlight()).toBeGreaterThan(1);
  });

  it('says there is no next page when the last key was read', async () => {
    const table = fakeTable(40);
    const page = await listObjects({
      client: table.client,
      table: 'chassis',
      codec: CHASSIS_CODEC,
      from,
      page: { limit: 40 },
      markerNotFound: notFound,
    });
    expect(page.items).toHaveLength(40);
    expect(page.more).toBe(false);
  });

  it('with a filter the index cannot answer, reads a BatchGet of keys at a time until the page is full', async () => {
    const table = fakeTable(1000);
    const page = await listObjects({
      client: table.client,
      table: 'chassis',
      codec: CHASSIS_CODEC,
      from,
      page: { limit: 10 },
      matches: (c) => Number(c.description?.split(' ')[1]) % 20 === 0,
      markerNotFound: notFound,
    });
    expect(page.items.map((c) => c.description)).toEqual(Array.from({ length: 10 }, (_, i) => `chassis ${i * 20}`));
    expect(table.calls.filter((c) => c === 'BatchGetItem')).toHaveLength(2);
  });
});
