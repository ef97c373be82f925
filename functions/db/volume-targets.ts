/**
 * The volume target store. A target belongs to a node (checked in the same transaction as its
 * write); (node, boot_index) is unique, as Ironic's database constraint makes it (a guard). A
 * node's targets come from the byNode index: Nova reads them on every instance cleanup.
 */
import { VolumeTargetAlreadyExists, VolumeTargetBootIndexAlreadyExists, VolumeTargetNotFound } from '#common/volume-errors';
import { VolumeTarget } from '#objects/volume-target';
import type { ObjectCodec } from './items';
import { guard, sparseKey } from './keys';
import type { StoreContext } from './table';
import { VolumeTable, type VolumeStore } from './volume-connectors';

export type VolumeTargetStore = VolumeStore<VolumeTarget>;

export const VOLUME_TARGET_CODEC: ObjectCodec<VolumeTarget> = {
  cls: VolumeTarget,
  keyName: 'uuid',
  derive: (v) => ({ _all: 'volume_target', _node: sparseKey(v.node_uuid) }),
  guards: (v) => [guard.volumeTargetBootIndex(String(v.node_uuid), Number(v.boot_index))],
};

export class DynamoVolumeTargetStore extends VolumeTable<VolumeTarget> {
  constructor(ctx: StoreContext) {
    super(ctx, 'volume_targets', VOLUME_TARGET_CODEC, {
      notFound: (ident) => new VolumeTargetNotFound(ident),
      alreadyExists: (t) => new VolumeTargetAlreadyExists(t.uuid),
      duplicate: (_key, t) => new VolumeTargetBootIndexAlreadyExists(t.boot_index),
    });
  }
}
