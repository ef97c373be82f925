/**
 * The DynamoDB tables: keys, indexes and the environment variable that carries each physical name.
 * This is the single source of truth that the CDK stack (`lib/`), the local stack (`local/`) and the
 * store (`functions/db`) all read, so names, keys and indexes cannot drift apart.
 *
 * Key attributes that are not object fields start with `_`: they are derived by the store on every
 * write (see `keys.ts`), so objects never carry index plumbing and an index can change without
 * touching an object version.
 */

export interface IndexDef {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey?: string;
}

export interface TableDef {
  /** Environment variable through which functions learn the table's physical name. */
  readonly envVar: string;
  readonly partitionKey: string;
  readonly sortKey?: string;
  readonly indexes: readonly IndexDef[];
  /** Attribute holding an epoch-seconds expiry, if items expire. */
  readonly ttlAttribute?: string;
}

export const TABLES = {
  /**
   * Nodes by uuid. Every index sorts by `_id`, a creation-ordered id, so lists come back in
   * Ironic's default order (by database id) and a marker is a position in that order.
   */
  nodes: {
    envVar: 'NODES_TABLE',
    partitionKey: 'uuid',
    indexes: [
      // All nodes in one ordered partition: the list without a selective filter. (Name and
      // instance lookups go through the uniqueness guards: consistent, no index needed.)
      { name: 'byId', partitionKey: '_all', sortKey: '_id' },
      { name: 'byShard', partitionKey: '_shard', sortKey: '_id' },
      { name: 'byConductorGroup', partitionKey: '_group', sortKey: '_id' },
      { name: 'byProvisionState', partitionKey: '_pstate', sortKey: '_id' },
    ],
  },
  /**
   * Guards for unique values (node names, instance uuids, MAC addresses): one item per value,
   * written in the same transaction as the item that owns it, with attribute_not_exists.
   */
  uniques: {
    envVar: 'UNIQUES_TABLE',
    partitionKey: 'key',
    indexes: [],
  },
} as const satisfies Record<string, TableDef>;

export type TableName = keyof typeof TABLES;

/**
 * Every index projects keys only: an index entry is rewritten only when its keys change, not on
 * every save of a node (which would multiply the cost of each write by the number of indexes).
 * Lists read the keys from the index and the items with BatchGetItem.
 */
export const INDEX_PROJECTION = 'KEYS_ONLY';

export function tableDef(name: TableName): TableDef {
  return TABLES[name];
}

/** Physical table names from the environment, failing with the variable's name when one is missing. */
export function tableNamesFromEnv(env: Readonly<Record<string, string | undefined>>): Record<TableName, string> {
  const names = {} as Record<TableName, string>;
  for (const name of Object.keys(TABLES) as TableName[]) {
    const variable = TABLES[name].envVar;
    const value = env[variable];
    if (!value) throw new Error(`Environment variable ${variable} is required`);
    names[name] = value;
  }
  return names;
}
