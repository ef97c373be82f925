/**
 * What goes with a node when it is destroyed (Ironic's `destroy_node`): its ports, portgroups and
 * allocations, with the unique-value guards they own, its history and its inventory.
 *
 * The node's own delete (conditional on its revision and lock) and its dependents' deletes form
 * one transaction when they fit in one (100 items: a node with dozens of ports); otherwise the
 * node goes first and its dependents after. History records own no guards and are deleted last,
 * in batches, then the inventory (one item keyed by the node's UUID). Dependents are found through the `byNode` indexes, which are eventually consistent:
 * a port added in the same instant as the delete can outlive the node (Ironic's foreign key has
 * no DynamoDB equivalent).
 */
import { BatchGetCommand, type DocumentClient, QueryCommand } from './dynamo';
import type { Dict } from '#objects/fields';
import { sparseKey } from './keys';
import type { TableName } from './schema';

/** A dependent item to delete: its table, key, and the guards it owns. */
export interface Dependent {
  readonly table: string;
  readonly uuid: string;
  readonly guards: readonly string[];
}

/** Tables whose items name their node in a `byNode` index and go with it. */
const DEPENDENT_TABLES = ['ports', 'portgroups', 'allocations'] as const satisfies readonly TableName[];

export async function dependentsOf(
  client: DocumentClient,
  tables: Readonly<Record<TableName, string>>,
  nodeUuid: string,
): Promise<Dependent[]> {
  const found = await Promise.all(
    DEPENDENT_TABLES.map(async (name) => {
      const table = tables[name];
      const uuids = await keysByNode(client, table, nodeUuid);
      const out: Dependent[] = [];
      for (let i = 0; i < uuids.length; i += 100) {
        let keys: Dict[] | undefined = uuids.slice(i, i + 100).map((uuid) => ({ uuid }));
        while (keys !== undefined && keys.length > 0) {
          const result = await client.send(
            new BatchGetCommand({
              RequestItems: {
                [table]: {
                  Keys: keys,
                  ProjectionExpression: '#u, #g',
                  ExpressionAttributeNames: { '#u': 'uuid', '#g': '_guards' },
                  ConsistentRead: true,
                },
              },
            }),
          );
          for (const item of result.Responses?.[table] ?? []) {
            out.push({ table, uuid: String(item.uuid), guards: Array.isArray(item._guards) ? (item._guards as string[]) : [] });
          }
          keys = result.UnprocessedKeys?.[table]?.Keys as Dict[] | undefined;
        }
      }
      return out;
    }),
  );
  return found.flat();
}

/** Keys of a node's items in a table's `byNode` index. */
export async function keysByNode(client: DocumentClient, table: string, nodeUuid: string): Promise<string[]> {
  const uuids: string[] = [];
  let start: Dict | undefined;
  do {
    const result = await client.send(
      new QueryCommand({
        TableName: table,
        IndexName: 'byNode',
        KeyConditionExpression: '#n = :n',
        ExpressionAttributeNames: { '#n': '_node' },
        ExpressionAttributeValues: { ':n': sparseKey(nodeUuid) },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of result.Items ?? []) uuids.push(String(item.uuid));
    start = result.LastEvaluatedKey;
  } while (start !== undefined);
  return uuids;
}
