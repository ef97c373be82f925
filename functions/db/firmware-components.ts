/**
 * The firmware components store (Ironic's `firmware_information` table and
 * `FirmwareComponentList`): one item per component, keyed by the node's UUID and the component's
 * name, so a node's components are one Query.
 *
 * Components are written only by the conductor while it holds the node's lock (caching, the
 * firmware `update` step) and read by the API: `sync` needs no conditions. As Ironic's
 * `sync_firmware_components` followed by create/save, a component read for the first time is
 * created with `initial_version` = `current_version`; one whose version changed keeps its
 * `initial_version` and gets the new version as both `current_version` and `last_version_flashed`;
 * components the hardware no longer reports are kept.
 *
 * Costs: list 1 query; sync 1 query and 1 write per created or changed component (batches of 25);
 * destroyAll 1 query and 1 write per component.
 */
import { NodePartitionTable } from './batch';
import { FirmwareComponent, type FirmwareComponentReading } from '#objects/firmware-component';
import type { Dict } from '#objects/fields';
import { type ObjectCodec, encodeItem } from './items';
import { newSortId } from './keys';
import type { StoreContext } from './table';

export type { FirmwareComponentReading };

/** What a sync changed, by component name (Ironic's create/update/unchanged lists). */
export interface FirmwareSyncResult {
  readonly created: string[];
  readonly updated: string[];
  readonly unchanged: string[];
}

export interface FirmwareComponentStore {
  /** The node's components, by name. */
  list(nodeUuid: string): Promise<FirmwareComponent[]>;
  /** Record what the hardware reports (see the module's comment). */
  sync(nodeUuid: string, readings: readonly FirmwareComponentReading[]): Promise<FirmwareSyncResult>;
  /** Delete every component of the node (the node is going). */
  destroyAll(nodeUuid: string): Promise<void>;
}

export const FIRMWARE_COMPONENT_CODEC: ObjectCodec<FirmwareComponent> = {
  cls: FirmwareComponent,
  keyName: 'node_uuid',
  derive: () => ({}),
  guards: () => [],
};

/** The identity a reading gives (null where the hardware does not say). */
function identityOf(read: FirmwareComponentReading): { vendor: string | null; model: string | null; serial_number: string | null } {
  return { vendor: read.vendor ?? null, model: read.model ?? null, serial_number: read.serial_number ?? null };
}

/**
 * The component as it should be stored after a reading, or undefined when it stays as it is
 * (Ironic's change test: the current version differs, a last flashed version differs from it, or
 * the vendor, model or serial number the hardware reports changed).
 */
export function applyReading(
  nodeUuid: string,
  stored: FirmwareComponent | undefined,
  read: FirmwareComponentReading,
  stamp: string,
): FirmwareComponent | undefined {
  if (stored === undefined) {
    return new FirmwareComponent({
      node_uuid: nodeUuid,
      component: read.component,
      initial_version: read.current_version,
      current_version: read.current_version,
      last_version_flashed: null,
      ...identityOf(read),
      created_at: stamp,
      updated_at: null,
    });
  }
  const versionChanged = stored.current_version !== read.current_version;
  const flashedDiffers = stored.last_version_flashed !== null && stored.last_version_flashed !== read.current_version;
  const identity = identityOf(read);
  const identityChanged =
    stored.vendor !== identity.vendor || stored.model !== identity.model || stored.serial_number !== identity.serial_number;
  if (!versionChanged && !flashedDiffers && !identityChanged) return undefined;
  const next = new FirmwareComponent(stored.values());
  if (versionChanged) {
    next.last_version_flashed = read.current_version;
    next.current_version = read.current_version;
  }
  Object.assign(next, identity);
  next.updated_at = stamp;
  next.storeMeta = stored.storeMeta;
  return next;
}

export class DynamoFirmwareComponentStore extends NodePartitionTable<FirmwareComponent> implements FirmwareComponentStore {
  constructor(ctx: StoreContext) {
    super(ctx, 'firmware_components', FIRMWARE_COMPONENT_CODEC);
  }

  async sync(nodeUuid: string, readings: readonly FirmwareComponentReading[]): Promise<FirmwareSyncResult> {
    const stored = new Map((await this.list(nodeUuid)).map((c) => [c.component, c]));
    const now = this.now();
    const stamp = new Date(now).toISOString();
    const result: FirmwareSyncResult = { created: [], updated: [], unchanged: [] };
    const requests: Dict[] = [];
    for (const read of readings) {
      const old = stored.get(read.component);
      const next = applyReading(nodeUuid, old, read, stamp);
      if (next === undefined) {
        result.unchanged.push(read.component);
        continue;
      }
      (old === undefined ? result.created : result.updated).push(read.component);
      const book = { rev: (old?.storeMeta?.rev ?? 0) + 1, sortId: old?.storeMeta?.sortId ?? newSortId(now), guards: [] };
      const version = this.release.objectVersion(FirmwareComponent.objName);
      requests.push({ PutRequest: { Item: encodeItem(FIRMWARE_COMPONENT_CODEC, next, version, book) } });
    }
    await this.batchWrite(requests);
    return result;
  }

  async destroyAll(nodeUuid: string): Promise<void> {
    const names = (await this.list(nodeUuid)).map((c) => c.component);
    await this.batchWrite(names.map((component) => ({ DeleteRequest: { Key: { node_uuid: nodeUuid, component } } })));
  }
}
