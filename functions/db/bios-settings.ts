/**
 * The BIOS settings store (Ironic's `bios_settings` table and `BIOSSettingList`): one item per
 * setting, keyed by the node's UUID and the setting's name, so a node's settings are one Query.
 *
 * Settings are written only by the conductor while it holds the node's lock (caching, the bios
 * steps) and read by the API: `sync` needs no conditions. It leaves the stored settings exactly
 * the given ones (Ironic's `sync_node_setting` followed by create/save/delete), keeping
 * `created_at` of those that stay.
 *
 * Costs: list 1 query (a page per 1 MB); get 1 read; sync 1 query and 1 write per changed
 * setting (batches of 25); destroy 1 query and 1 write per setting.
 */
import { NodePartitionTable } from './batch';
import { GetCommand } from './dynamo';
import { BIOSSettingNotFound } from '#common/errors';
import { BIOS_REGISTRY_FIELDS, BIOSSetting, type BiosSettingValues } from '#objects/bios-setting';
import type { Dict } from '#objects/fields';
import { type Bookkeeping, type ObjectCodec, encodeItem } from './items';
import { newSortId } from './keys';
import type { StoreContext } from './table';

export type { BiosSettingValues };

/** What a sync changed, by setting name (Ironic's create/update/delete/unchanged lists). */
export interface BiosSyncResult {
  readonly created: string[];
  readonly updated: string[];
  readonly deleted: string[];
  readonly unchanged: string[];
}

export interface BiosSettingStore {
  /** The node's settings, by name. */
  list(nodeUuid: string): Promise<BIOSSetting[]>;
  /** One setting; BIOSSettingNotFound (404) when the node has none of that name. */
  get(nodeUuid: string, name: string): Promise<BIOSSetting>;
  /** Make the node's stored settings exactly `settings`. */
  sync(nodeUuid: string, settings: readonly BiosSettingValues[]): Promise<BiosSyncResult>;
  /** Delete every setting of the node (the node is going, or its BIOS was reset). */
  destroyAll(nodeUuid: string): Promise<void>;
}

export const BIOS_SETTING_CODEC: ObjectCodec<BIOSSetting> = {
  cls: BIOSSetting,
  keyName: 'node_uuid',
  derive: () => ({}),
  guards: () => [],
};

/** Whether a stored setting differs from what was read (its value or a registry field). */
export function settingChanged(stored: BIOSSetting, read: BiosSettingValues): boolean {
  if (stored.value !== read.value) return true;
  return BIOS_REGISTRY_FIELDS.some((field) => JSON.stringify(stored[field] ?? null) !== JSON.stringify(read[field] ?? null));
}

export class DynamoBiosSettingStore extends NodePartitionTable<BIOSSetting> implements BiosSettingStore {
  constructor(ctx: StoreContext) {
    super(ctx, 'bios_settings', BIOS_SETTING_CODEC);
  }

  async get(nodeUuid: string, name: string): Promise<BIOSSetting> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { node_uuid: nodeUuid, name }, ConsistentRead: true }),
    );
    if (Item === undefined) throw new BIOSSettingNotFound(nodeUuid, name);
    return this.decode(Item);
  }

  async sync(nodeUuid: string, settings: readonly BiosSettingValues[]): Promise<BiosSyncResult> {
    const stored = new Map((await this.list(nodeUuid)).map((s) => [s.name, s]));
    const now = this.now();
    const stamp = new Date(now).toISOString();
    const result: BiosSyncResult = { created: [], updated: [], deleted: [], unchanged: [] };
    const requests: Dict[] = [];
    const given = new Set<string>();
    for (const read of settings) {
      given.add(read.name);
      const old = stored.get(read.name);
      if (old !== undefined && !settingChanged(old, read)) {
        result.unchanged.push(read.name);
        continue;
      }
      const setting = new BIOSSetting({ ...registryNulls(), ...read, node_uuid: nodeUuid });
      setting.created_at = old?.created_at ?? stamp;
      setting.updated_at = old === undefined ? null : stamp;
      (old === undefined ? result.created : result.updated).push(read.name);
      const book = { rev: (old?.storeMeta?.rev ?? 0) + 1, sortId: old?.storeMeta?.sortId ?? newSortId(now), guards: [] };
      requests.push({ PutRequest: { Item: this.encode(setting, book) } });
    }
    for (const name of stored.keys()) {
      if (given.has(name)) continue;
      result.deleted.push(name);
      requests.push({ DeleteRequest: { Key: { node_uuid: nodeUuid, name } } });
    }
    await this.batchWrite(requests);
    return result;
  }

  async destroyAll(nodeUuid: string): Promise<void> {
    const names = (await this.list(nodeUuid)).map((s) => s.name);
    await this.batchWrite(names.map((name) => ({ DeleteRequest: { Key: { node_uuid: nodeUuid, name } } })));
  }

  private encode(setting: BIOSSetting, book: Bookkeeping): Dict {
    return encodeItem(BIOS_SETTING_CODEC, setting, this.release.objectVersion(BIOSSetting.objName), book);
  }
}

function registryNulls(): Dict {
  return Object.fromEntries(BIOS_REGISTRY_FIELDS.map((field) => [field, null]));
}
