/** The plan's reads (`TableLookups`) from DynamoDB: batched reads of the stores' tables. */
import { DynamoChassisStore } from '#db/chassis';
import { DynamoConductorStore } from '#db/conductors';
import { BatchGetCommand } from '#db/dynamo';
import type { DynamoNodeStore } from '#db/nodes';
import type { DynamoPortStore } from '#db/ports';
import type { StoreContext } from '#db/table';
import type { Dict } from '#objects/fields';
import type { TableLookups } from './plan';
import { pool } from './write';

/** Keys per BatchGetItem. */
const BATCH_GET_MAX = 100;

export function dynamoLookups(
  ctx: StoreContext,
  stores: { readonly nodes: DynamoNodeStore; readonly ports: DynamoPortStore },
  concurrency: number,
): TableLookups {
  return {
    nodes: (uuids) => getManyPooled((keys) => stores.nodes.getMany(keys), uuids, concurrency),
    ports: (uuids) => getManyPooled((keys) => stores.ports.getMany(keys), uuids, concurrency),
    chassis: async (uuids) => {
      const chassis = new DynamoChassisStore(ctx);
      return new Set((await getManyPooled((keys) => chassis.getMany(keys), uuids, concurrency)).map((c) => c.uuid));
    },
    guardOwners: async (keys) => {
      const owners = new Map<string, string>();
      const jobs = [];
      for (let i = 0; i < keys.length; i += BATCH_GET_MAX) {
        const chunk = keys.slice(i, i + BATCH_GET_MAX);
        jobs.push(async () => {
          let pending: Dict[] | undefined = chunk.map((key) => ({ key }));
          for (let round = 0; pending !== undefined && pending.length > 0; round++) {
            if (round > 0) await new Promise((r) => setTimeout(r, Math.random() * Math.min(5000, 50 * 2 ** round)));
            const result = await ctx.client.send(
              new BatchGetCommand({ RequestItems: { [ctx.tables.uniques]: { Keys: pending, ConsistentRead: true } } }),
            );
            for (const item of result.Responses?.[ctx.tables.uniques] ?? []) owners.set(String(item.key), String(item.owner));
            pending = result.UnprocessedKeys?.[ctx.tables.uniques]?.Keys as Dict[] | undefined;
          }
        });
      }
      await pool(jobs, concurrency);
      return owners;
    },
    served: async () => {
      const { items } = await new DynamoConductorStore(ctx).list({}, { limit: 1000 });
      if (items.length === 0) return undefined;
      return items.flatMap((c) => (c.drivers ?? []).map((driver) => ({ driver, group: c.conductor_group })));
    },
  };
}

/**
 * `getMany` of many keys with `concurrency` BatchGetItem requests in flight (a store's `getMany`
 * keeps at most 4): one request of up to 100 keys per job; the results keep the keys' order.
 */
export async function getManyPooled<T>(
  getMany: (keys: readonly string[]) => Promise<T[]>,
  keys: readonly string[],
  concurrency: number,
): Promise<T[]> {
  const found: T[][] = [];
  const jobs = [];
  for (let i = 0, chunk = 0; i < keys.length; i += BATCH_GET_MAX, chunk++) {
    const slice = keys.slice(i, i + BATCH_GET_MAX);
    jobs.push(async () => {
      found[chunk] = await getMany(slice);
    });
  }
  await pool(jobs, concurrency);
  return found.flat();
}
