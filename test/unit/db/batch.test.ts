import { describe, expect, it } from '@jest/globals';
import { DatabaseUnavailable } from '#common/errors';
import { batchWriteAll, queryPartition } from '#db/batch';
import type { DocumentClient } from '#db/dynamo';

type Dict = Record<string, unknown>;

/** A client whose BatchWriteItem leaves the last `unprocessed(call)` requests of each call unprocessed. */
function throttlingClient(unprocessed: (call: number) => number) {
  const calls: Dict[][] = [];
  const client = {
    send: async (command: { operation: string; input: Dict }) => {
      const requests = (command.input.RequestItems as Record<string, Dict[]>).t!;
      calls.push(requests);
      const left = unprocessed(calls.length);
      return { UnprocessedItems: left > 0 ? { t: requests.slice(requests.length - left) } : {} };
    },
  } as unknown as DocumentClient;
  return { client, calls };
}

const puts = (n: number) => Array.from({ length: n }, (_, i) => ({ PutRequest: { Item: { id: i } } }));

describe('batchWriteAll', () => {
  it('writes 25 requests per call and resends what DynamoDB left unprocessed, after a growing jittered wait', async () => {
    const waits: number[] = [];
    const { client, calls } = throttlingClient((call) => (call === 1 ? 10 : call === 2 ? 4 : 0));
    await batchWriteAll(client, 't', puts(30), { backoffMs: 100, sleep: async (ms) => void waits.push(ms) });
    expect(calls.map((c) => c.length)).toEqual([25, 10, 4, 5]);
    expect(calls[1]).toEqual(calls[0]!.slice(15));
    // One wait before each resend, none before a chunk's first call; each within its bound.
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeLessThanOrEqual(200);
    expect(waits[1]).toBeLessThanOrEqual(400);
  });

  it('gives up as DatabaseUnavailable when a chunk stays unprocessed', async () => {
    const { client, calls } = throttlingClient(() => 1);
    const write = batchWriteAll(client, 't', puts(3), { attempts: 4, sleep: async () => undefined });
    await expect(write).rejects.toBeInstanceOf(DatabaseUnavailable);
    expect(calls).toHaveLength(4);
  });

  it('sends nothing for no requests', async () => {
    const { client, calls } = throttlingClient(() => 0);
    await batchWriteAll(client, 't', []);
    expect(calls).toHaveLength(0);
  });
});

describe('queryPartition', () => {
  it('follows LastEvaluatedKey until the partition is read, consistently', async () => {
    const inputs: Dict[] = [];
    const pages = [{ Items: [{ a: 1 }, { a: 2 }], LastEvaluatedKey: { a: 2 } }, { Items: [{ a: 3 }] }];
    const client = {
      send: async (command: { input: Dict }) => {
        inputs.push(command.input);
        return pages[inputs.length - 1];
      },
    } as unknown as DocumentClient;
    expect(await queryPartition(client, 'tbl', 'node_uuid', 'n1')).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }]);
    expect(inputs[0]).toMatchObject({ TableName: 'tbl', ExpressionAttributeValues: { ':k': 'n1' }, ConsistentRead: true });
    expect(inputs[1]).toMatchObject({ ExclusiveStartKey: { a: 2 } });
  });
});
