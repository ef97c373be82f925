/** Seeding tables directly with BatchWriteItem: many items fast, bypassing stores and the API. */
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, type DocumentClient } from '../../../functions/db/dynamo';
import type { Dict } from '../../../functions/objects/fields';
import { encodeItem } from '../../../functions/db/items';
import { newSortId } from '../../../functions/db/keys';
import { NODE_CODEC } from '../../../functions/db/nodes';
import { makeNode } from '../../unit/helpers/builders';

/** Write items 25 to a request, `concurrency` requests at a time, retrying unprocessed ones. */
export async function batchWrite(client: DocumentClient, table: string, items: readonly Dict[], concurrency = 16): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const start = next;
        next += 25;
        if (start >= items.length) return;
        let requests: Dict[] | undefined = items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
        while (requests !== undefined && requests.length > 0) {
          const result = await client.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
          requests = result.UnprocessedItems?.[table] as Dict[] | undefined;
        }
      }
    }),
  );
}

/**
 * `count` node items as the shipped release (Node 1.0) stores them, with their index keys and
 * bookkeeping: one real item, copied with new uuids and creation ids.
 */
export function nodeItems(count: number, overrides: Dict = {}): Dict[] {
  const template = encodeItem(
    NODE_CODEC,
    makeNode({ driver: 'fake-hardware', provision_state: 'available', extra: { rack: 'r1', slot: 4 }, properties: { cpus: 8 } }),
    '1.0',
    { rev: 1, sortId: '', guards: [] },
  );
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => ({
    ...template,
    uuid: randomUUID(),
    _id: newSortId(now + i),
    extra: { rack: 'r1', slot: i },
    ...overrides,
  }));
}
