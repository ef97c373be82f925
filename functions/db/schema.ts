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
  /** The versioned object every item of the table holds (dbsync checks and migrates these). */
  readonly object?: string;
  /** Attribute holding an epoch-seconds expiry, if items expire. */
  readonly ttlAttribute?: string;
}

/** The index every object table has: all items in one partition, in creation order. */
const BY_ID = { name: 'byId', partitionKey: '_all', sortKey: '_id' } as const;

export const TABLES = {
  /**
   * Nodes by uuid. Every index sorts by `_id`, a creation-ordered id, so lists come back in
   * Ironic's default order (by database id) and a marker is a position in that order. Ironic
   * indexes owner, lessee, driver, provision_state, conductor_group, resource_class and shard;
   * here the filters its users send on hot paths get an index: nova lists `associated=True` and
   * by shard or conductor group, project-scoped users list by owner or lessee, conductors by
   * provision state. Indexes marked sparse hold only nodes that have the value (a node in
   * maintenance, with an owner…), so they cost nothing for the others. resource_class, fault,
   * retired and the rest are applied after reading.
   */
  nodes: {
    envVar: 'NODES_TABLE',
    partitionKey: 'uuid',
    object: 'Node',
    indexes: [
      // All nodes in one ordered partition: the list without a selective filter. (Name and
      // instance lookups go through the uniqueness guards: consistent, no index needed.)
      BY_ID,
      { name: 'byShard', partitionKey: '_shard', sortKey: '_id' },
      { name: 'byConductorGroup', partitionKey: '_group', sortKey: '_id' },
      { name: 'byProvisionState', partitionKey: '_pstate', sortKey: '_id' },
      { name: 'byDriver', partitionKey: '_driver', sortKey: '_id' },
      { name: 'byOwner', partitionKey: '_owner', sortKey: '_id' }, // sparse
      { name: 'byLessee', partitionKey: '_lessee', sortKey: '_id' }, // sparse
      { name: 'byMaintenance', partitionKey: '_maint', sortKey: '_id' }, // sparse: maintenance=true only
      { name: 'byAssociated', partitionKey: '_assoc', sortKey: '_id' }, // sparse: with an instance only
      { name: 'byChassis', partitionKey: '_chassis', sortKey: '_id' }, // sparse
    ],
  },
  /** Ports by uuid; by node (the node's ports), by portgroup. Addresses and names: guards. */
  ports: {
    envVar: 'PORTS_TABLE',
    partitionKey: 'uuid',
    object: 'Port',
    indexes: [
      BY_ID,
      { name: 'byNode', partitionKey: '_node', sortKey: '_id' },
      { name: 'byPortgroup', partitionKey: '_portgroup', sortKey: '_id' }, // sparse
    ],
  },
  /** Portgroups by uuid; by node. Names and addresses: guards. */
  portgroups: {
    envVar: 'PORTGROUPS_TABLE',
    partitionKey: 'uuid',
    object: 'Portgroup',
    indexes: [BY_ID, { name: 'byNode', partitionKey: '_node', sortKey: '_id' }],
  },
  chassis: {
    envVar: 'CHASSIS_TABLE',
    partitionKey: 'uuid',
    object: 'Chassis',
    indexes: [BY_ID],
  },
  /** Conductors by hostname (a conductor function version). */
  conductors: {
    envVar: 'CONDUCTORS_TABLE',
    partitionKey: 'hostname',
    object: 'Conductor',
    indexes: [BY_ID],
  },
  /** Deploy templates by uuid. Names (matched against node traits): guards. */
  deploy_templates: {
    envVar: 'DEPLOY_TEMPLATES_TABLE',
    partitionKey: 'uuid',
    object: 'DeployTemplate',
    indexes: [BY_ID],
  },
  /** Runbooks by uuid (API 1.92). Names: guards. New after release 2026.3, which does not serve them. */
  runbooks: {
    envVar: 'RUNBOOKS_TABLE',
    partitionKey: 'uuid',
    object: 'Runbook',
    indexes: [BY_ID],
  },
  /** Allocations by uuid; by node; by state (the conductor picks up `allocating` ones). Names: guards. */
  allocations: {
    envVar: 'ALLOCATIONS_TABLE',
    partitionKey: 'uuid',
    object: 'Allocation',
    indexes: [
      BY_ID,
      { name: 'byNode', partitionKey: '_node', sortKey: '_id' }, // sparse
      { name: 'byState', partitionKey: '_state', sortKey: '_id' },
    ],
  },
  /** Node history records by uuid; a node's records in order through byNode. */
  node_history: {
    envVar: 'NODE_HISTORY_TABLE',
    partitionKey: 'uuid',
    object: 'NodeHistory',
    indexes: [{ name: 'byNode', partitionKey: '_node', sortKey: '_id' }],
  },
  /**
   * What in-band inspection found, one item per node keyed by its UUID (Ironic's node_inventory
   * table, kept apart from the node so the node item stays small). New after release 2026.3: only
   * the `agent` inspect interface writes it, which a service pinned to 2026.3 never runs.
   */
  node_inventory: {
    envVar: 'NODE_INVENTORY_TABLE',
    partitionKey: 'node_uuid',
    object: 'NodeInventory',
    indexes: [],
  },
  /**
   * Volume connectors by uuid; a node's through byNode (Nova lists them on every instance cleanup).
   * (type, connector_id) is unique among all connectors: a guard. New after release 2026.3.
   */
  volume_connectors: {
    envVar: 'VOLUME_CONNECTORS_TABLE',
    partitionKey: 'uuid',
    object: 'VolumeConnector',
    indexes: [BY_ID, { name: 'byNode', partitionKey: '_node', sortKey: '_id' }],
  },
  /** Volume targets by uuid; a node's through byNode. (node, boot_index) is unique: a guard. New after 2026.3. */
  volume_targets: {
    envVar: 'VOLUME_TARGETS_TABLE',
    partitionKey: 'uuid',
    object: 'VolumeTarget',
    indexes: [BY_ID, { name: 'byNode', partitionKey: '_node', sortKey: '_id' }],
  },
  /**
   * A node's BIOS settings (Ironic's bios_settings table): one item per setting, the node's UUID
   * as partition key and the setting's name as sort key, so a node's settings are one Query and
   * go with the node in one. New after release 2026.3, which neither reads nor writes it.
   */
  bios_settings: {
    envVar: 'BIOS_SETTINGS_TABLE',
    partitionKey: 'node_uuid',
    sortKey: 'name',
    object: 'BIOSSetting',
    indexes: [],
  },
  /**
   * A node's firmware components (Ironic's firmware_information table): one item per component,
   * keyed like the BIOS settings by the node's UUID and the component's name. New after release
   * 2026.3, which neither reads nor writes it.
   */
  firmware_components: {
    envVar: 'FIRMWARE_COMPONENTS_TABLE',
    partitionKey: 'node_uuid',
    sortKey: 'component',
    object: 'FirmwareComponent',
    indexes: [],
  },
  /**
   * Inspection rules by uuid (Ironic's inspection_rules table), listed in creation order through
   * byId. New after release 2026.3, which neither reads nor writes it.
   */
  inspection_rules: {
    envVar: 'INSPECTION_RULES_TABLE',
    partitionKey: 'uuid',
    object: 'InspectionRule',
    indexes: [BY_ID],
  },
  /**
   * Guards for unique values (node names and instance uuids, port and portgroup addresses and
   * names, template, runbook and allocation names, volume connector ids and target boot indexes): one item per value, `{key, owner}`, written in the
   * same transaction as the item that owns it, with attribute_not_exists.
   */
  uniques: {
    envVar: 'UNIQUES_TABLE',
    partitionKey: 'key',
    indexes: [],
  },
} as const satisfies Record<string, TableDef>;

export type TableName = keyof typeof TABLES;

/**
 * Adding an index after a release: derive its key in the table's codec, and bump the object's
 * VERSION with a history step that changes no field ("Version 1.N: items carry _x for byX"), so
 * `dbsync online-data-migrations` rewrites every item (re-deriving its index keys). Items written
 * by the previous release lack the key until then: do not read the index while pinned to it.
 *
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

/**
 * The CloudFormation output of the CDK stack carrying a table's physical name ("nodes" →
 * "NodesTable"), which `ironless dbsync --stack NAME` reads.
 */
export function tableOutputKey(table: string): string {
  const pascal = table
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
  return `${pascal}Table`;
}
