/**
 * The codec of every table that holds versioned objects, by table: what dbsync checks and
 * migrates. The table → object pairing itself is declared in `schema.ts` (`object`).
 */
import type { VersionedObject } from '#objects/base';
import { ALLOCATION_CODEC } from './allocations';
import { BIOS_SETTING_CODEC } from './bios-settings';
import { FIRMWARE_COMPONENT_CODEC } from './firmware-components';
import { CHASSIS_CODEC } from './chassis';
import { CONDUCTOR_CODEC } from './conductors';
import { DEPLOY_TEMPLATE_CODEC } from './deploy-templates';
import { INSPECTION_RULE_CODEC } from './inspection-rules';
import type { ObjectCodec } from './items';
import { NODE_HISTORY_CODEC } from './node-history';
import { NODE_INVENTORY_CODEC } from './node-inventory';
import { NODE_CODEC } from './nodes';
import { PORTGROUP_CODEC } from './portgroups';
import { PORT_CODEC } from './ports';
import { RUNBOOK_CODEC } from './runbooks';
import type { TableName } from './schema';
import { VOLUME_CONNECTOR_CODEC } from './volume-connectors';
import { VOLUME_TARGET_CODEC } from './volume-targets';

export type ObjectTableName = Exclude<TableName, 'uniques'>;

export const TABLE_CODECS: Readonly<Record<ObjectTableName, ObjectCodec<VersionedObject>>> = {
  nodes: NODE_CODEC as unknown as ObjectCodec<VersionedObject>,
  ports: PORT_CODEC as unknown as ObjectCodec<VersionedObject>,
  portgroups: PORTGROUP_CODEC as unknown as ObjectCodec<VersionedObject>,
  chassis: CHASSIS_CODEC as unknown as ObjectCodec<VersionedObject>,
  conductors: CONDUCTOR_CODEC as unknown as ObjectCodec<VersionedObject>,
  deploy_templates: DEPLOY_TEMPLATE_CODEC as unknown as ObjectCodec<VersionedObject>,
  runbooks: RUNBOOK_CODEC as unknown as ObjectCodec<VersionedObject>,
  allocations: ALLOCATION_CODEC as unknown as ObjectCodec<VersionedObject>,
  node_history: NODE_HISTORY_CODEC as unknown as ObjectCodec<VersionedObject>,
  node_inventory: NODE_INVENTORY_CODEC as unknown as ObjectCodec<VersionedObject>,
  volume_connectors: VOLUME_CONNECTOR_CODEC as unknown as ObjectCodec<VersionedObject>,
  volume_targets: VOLUME_TARGET_CODEC as unknown as ObjectCodec<VersionedObject>,
  bios_settings: BIOS_SETTING_CODEC as unknown as ObjectCodec<VersionedObject>,
  firmware_components: FIRMWARE_COMPONENT_CODEC as unknown as ObjectCodec<VersionedObject>,
  inspection_rules: INSPECTION_RULE_CODEC as unknown as ObjectCodec<VersionedObject>,
};

/** A table of versioned objects as dbsync sees it: its physical name and codec. */
export interface VersionedTable {
  /** Physical table name. */
  readonly table: string;
  readonly codec: ObjectCodec<VersionedObject>;
}

/** The versioned tables of this release, with their physical names. */
export function versionedTables(names: Readonly<Record<TableName, string>>): VersionedTable[] {
  return (Object.keys(TABLE_CODECS) as ObjectTableName[]).map((name) => ({ table: names[name], codec: TABLE_CODECS[name] }));
}
