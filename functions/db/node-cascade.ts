/**
 * What goes with a node when it is destroyed (Ironic's `destroy_node`): its ports, portgroups,
 * allocations, volume connectors and targets, with the unique-value guards they own, its history
 * and its inventory.
 *
 * The node's own delete (conditional on its revision and lock) and its dependents' deletes form
 * one transaction when they fit in one (100 items: a node with dozens of ports). Otherwise the
 * dependents go first, in transactions of whole dependents (an item with its guards, never one
 * without the other), each with a check of the node under the very condition its delete will
 * have; the node goes last, with what is left. Whatever fails midway, no dependent outlives its
 * node, and no guard its item: the node remains, with fewer dependents, and a repeated delete
 * finishes the job. History records own no guards and are deleted last, in batches, then the
 * inventory (one item keyed by the node's UUID) the BIOS settings and the firmware components (each the node's partition).
 *
 * Dependents are found through the `byNode` indexes, which are eventually consistent: a port
 * added in the same instant as the delete can outlive the node (Ironic's foreign key has no
 * DynamoDB equivalent).
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
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
const DEPENDENT_TABLES = [
  'ports',
  'portgroups',
  'allocations',
  'volume_connectors',
  'volume_targets',
] as const satisfies readonly TableName[];

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

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** DynamoDB's limit on the items of one transaction. */
export const MAX_TRANSACTION_ITEMS = 100;

/**
 * The transactions that destroy a node, in order: `last` (the node's delete and its guards') goes
 * in the final one; each dependent (its delete and its guards', `groups`) whole in one of them,
 * as many as fit in the final one and the rest before it, each earlier one with `check` (the
 * node's condition) first.
 */
export function cascadeTransactions(
  last: readonly TransactItem[],
  check: TransactItem,
  groups: readonly (readonly TransactItem[])[],
): TransactItem[][] {
  const final = [...last];
  const before: TransactItem[][] = [];
  for (const group of groups) {
    if (group.length > MAX_TRANSACTION_ITEMS - 1)
      throw new Error(`A dependent of ${group.length} items cannot be deleted in one transaction`);
    if (final.length + group.length <= MAX_TRANSACTION_ITEMS) {
      final.push(...group);
      continue;
    }
    const open = before[before.length - 1];
    if (open !== undefined && open.length + group.length <= MAX_TRANSACTION_ITEMS) open.push(...group);
    else before.push([check, ...group]);
  }
  return [...before, final];
}
