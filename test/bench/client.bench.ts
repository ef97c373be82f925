/**
 * What a DynamoDB call costs this process's CPU, by client, against DynamoDB Local: the stores'
 * client (`functions/db/dynamo.ts`: the SDK's low-level client, middleware resolved once per
 * command class, without the logger, user-agent and recursion-detection middleware, items
 * marshalled by util-dynamodb), the same SDK client as it comes, and lib-dynamodb's document
 * client. A consistent GetItem and a conditional PutItem of a node item, 4 at a time, after a
 * warm-up; each client measured twice, interleaved.
 */
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand as LibGetCommand, PutCommand as LibPutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { DocumentClient, GetCommand, PutCommand } from '../../functions/db/dynamo';
import { encodeItem } from '../../functions/db/items';
import { NODE_CODEC } from '../../functions/db/nodes';
import { createTables, startDynamoDbLocal } from '../../local/dynamodb';
import { makeNode } from '../unit/helpers/builders';
import type { Bench } from './bench';

const CALLS = Number(process.env.BENCH_CLIENT_CALLS ?? 5000);
const WARMUP = 2000;
const CONCURRENCY = 4;
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const MARSHALL = { removeUndefinedValues: true } as const;

type Call = (i: number) => Promise<unknown>;

/** CPU milliseconds of this process per call of `fn`. */
async function cpuPerCall(fn: Call): Promise<number> {
  let next = 0;
  const run = (total: number) =>
    Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < total) await fn(next++);
      }),
    );
  await run(WARMUP);
  next = 0;
  const before = process.cpuUsage();
  await run(CALLS);
  const used = process.cpuUsage(before);
  return Number(((used.user + used.system) / 1000 / CALLS).toFixed(3));
}

const bench: Bench = {
  name: 'client',
  async run({ log }) {
    const dynamo = await startDynamoDbLocal();
    const config = { endpoint: dynamo.endpoint, region: 'us-east-1', credentials };
    const setup = new DynamoDBClient(config);
    const table = (await createTables(setup, 'client')).nodes;
    const template = encodeItem(NODE_CODEC, makeNode({ name: 'bench', extra: { rack: 'r1' } }), '1.0', { rev: 1, sortId: 'x', guards: [] });
    // Node items, each measurement its own copies (a client may change what it is given).
    const copies = () => Array.from({ length: 500 }, (_, i) => ({ ...structuredClone(template), uuid: `node-${i}` }));
    let items = copies();
    const put = (item: Record<string, unknown>) => ({
      TableName: table,
      Item: item,
      ConditionExpression: 'attribute_not_exists(#u) OR #u = :u',
      ExpressionAttributeNames: { '#u': 'uuid' },
      ExpressionAttributeValues: { ':u': item.uuid },
    });
    const key = (i: number) => ({ uuid: items[i % items.length]!.uuid });

    const stores = new DocumentClient({ profile: 'api', config });
    const plain = new DynamoDBClient(config);
    // Options of its own: lib-dynamodb changes the object it is given.
    const lib = DynamoDBDocumentClient.from(new DynamoDBClient(config), { marshallOptions: { ...MARSHALL } });
    const clients: Record<string, { get: Call; put: Call }> = {
      stores: {
        get: (i) => stores.send(new GetCommand({ TableName: table, Key: key(i), ConsistentRead: true })),
        put: (i) => stores.send(new PutCommand(put(items[i % items.length]!))),
      },
      sdkAsItComes: {
        get: async (i) =>
          unmarshall((await plain.send(new GetItemCommand({ TableName: table, Key: marshall(key(i)), ConsistentRead: true }))).Item ?? {}),
        put: (i) => {
          const input = put(items[i % items.length]!);
          return plain.send(
            new PutItemCommand({
              ...input,
              Item: marshall(input.Item, MARSHALL),
              ExpressionAttributeValues: marshall(input.ExpressionAttributeValues, MARSHALL),
            }),
          );
        },
      },
      libDynamodb: {
        get: (i) => lib.send(new LibGetCommand({ TableName: table, Key: key(i), ConsistentRead: true })),
        put: (i) => lib.send(new LibPutCommand(put(items[i % items.length]!))),
      },
    };
    try {
      for (const item of items) await stores.send(new PutCommand({ TableName: table, Item: item }));
      const results: Record<string, { getItemCpuMs: number[]; putItemCpuMs: number[] }> = {};
      for (let round = 0; round < 2; round++) {
        for (const [name, client] of Object.entries(clients)) {
          log(`${name}, round ${round + 1}…`);
          results[name] ??= { getItemCpuMs: [], putItemCpuMs: [] };
          results[name].getItemCpuMs.push(await cpuPerCall(client.get));
          items = copies();
          results[name].putItemCpuMs.push(await cpuPerCall(client.put));
        }
      }
      return {
        calls: CALLS,
        concurrency: CONCURRENCY,
        cpuMsPerCall: results,
        note: 'CPU of the benchmark process (tsx, unbundled) per call, DynamoDB Local excluded.',
      };
    } finally {
      stores.destroy();
      plain.destroy();
      lib.destroy();
      setup.destroy();
      await dynamo.stop();
    }
  },
};

export default bench;
