/**
 * The two volume resources as the shared controller (volume-common.ts) sees them: Ironic 21.4's
 * CONNECTOR_SCHEMA and TARGET_SCHEMA, the default list fields, the sort columns, the patchable
 * fields, and how each is built, stored and shown.
 */
import type { VolumeStore } from '#db/volume-connectors';
import type { VersionedObject } from '#objects/base';
import type { Dict } from '#objects/fields';
import { VolumeConnector } from '#objects/volume-connector';
import { VolumeTarget } from '#objects/volume-target';
import type { ApiContext } from '../context';
import { type SortSpec, columns } from '../resource-list';
import type { JsonSchema } from '../validation';
import { CONNECTOR_LIST_FIELDS, TARGET_LIST_FIELDS, type VolumeViewOptions, connectorView, targetView } from '../views/volume';

export interface VolumeItem extends VersionedObject {
  uuid: string;
  node_uuid: string;
}

export interface VolumeKind<T extends VolumeItem> {
  /** `connectors` or `targets`: the list's key and the path segment. */
  readonly plural: 'connectors' | 'targets';
  /** The body's name in schema errors (`connector`), and the path argument's (`connector_uuid`). */
  readonly singular: 'connector' | 'target';
  /** How the conductor names it in InvalidStateRequested ("volume connector update"). */
  readonly label: string;
  readonly schema: JsonSchema;
  readonly listFields: readonly string[];
  readonly sort: SortSpec;
  readonly patchable: readonly string[];
  store(ctx: ApiContext): VolumeStore<T>;
  build(values: Dict): T;
  view(item: T, options: VolumeViewOptions): Record<string, unknown>;
}

export const CONNECTORS: VolumeKind<VolumeConnector> = {
  plural: 'connectors',
  singular: 'connector',
  label: 'volume connector',
  schema: {
    type: 'object',
    properties: {
      connector_id: { type: 'string' },
      extra: { type: ['object', 'null'] },
      node_uuid: { type: 'string' },
      type: { type: 'string' },
      uuid: { type: ['string', 'null'] },
    },
    required: ['connector_id', 'node_uuid', 'type'],
    additionalProperties: false,
  },
  listFields: CONNECTOR_LIST_FIELDS,
  sort: { invalid: ['extra'], columns: columns(['uuid', 'type', 'connector_id', 'created_at', 'updated_at'], { node_id: 'node_uuid' }) },
  patchable: ['connector_id', 'extra', 'node_uuid', 'type'],
  store: (ctx) => ctx.stores.volumeConnectors,
  build: (values) => new VolumeConnector(values),
  view: connectorView,
};

export const TARGETS: VolumeKind<VolumeTarget> = {
  plural: 'targets',
  singular: 'target',
  label: 'volume target',
  schema: {
    type: 'object',
    properties: {
      boot_index: { type: 'integer' },
      extra: { type: ['object', 'null'] },
      node_uuid: { type: 'string' },
      properties: { type: ['object', 'null'] },
      uuid: { type: ['string', 'null'] },
      volume_id: { type: 'string' },
      volume_type: { type: 'string' },
    },
    required: ['boot_index', 'node_uuid', 'volume_id', 'volume_type'],
    additionalProperties: false,
  },
  listFields: TARGET_LIST_FIELDS,
  sort: {
    invalid: ['extra', 'properties'],
    columns: columns(['uuid', 'volume_type', 'boot_index', 'volume_id', 'created_at', 'updated_at'], { node_id: 'node_uuid' }),
  },
  patchable: ['boot_index', 'extra', 'node_uuid', 'properties', 'volume_id', 'volume_type'],
  store: (ctx) => ctx.stores.volumeTargets,
  build: (values) => new VolumeTarget(values),
  view: targetView,
};
