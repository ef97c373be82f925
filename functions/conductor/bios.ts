/**
 * The conductor's side of BIOS settings: the store port bios interfaces write through, and
 * Ironic's `node_cache_bios_settings`, which verification and the start of cleaning call: the
 * settings are read from the hardware and stored; a driver without BIOS support is skipped and a
 * failure only logged, never failing what called it.
 */
import type { NodeBiosSettings, Task } from '#drivers/base';
import { rethrowRefusal } from '#drivers/guard';
import { loadDriver } from '#drivers/registry';
import { UnsupportedDriverExtension } from '#common/errors';
import type { ConductorContext } from './context';

/** The node's settings in the store, for `task.biosSettings`. */
export function biosSettingsPort(ctx: ConductorContext, nodeUuid: string): NodeBiosSettings {
  return {
    async replace(settings) {
      const result = await ctx.stores.biosSettings.sync(nodeUuid, settings);
      ctx.log.debug('BIOS settings stored', {
        node: nodeUuid,
        created: result.created.length,
        updated: result.updated.length,
        deleted: result.deleted.length,
      });
    },
  };
}

/** A task that can write the node's BIOS settings. */
export function biosTask(ctx: ConductorContext, task: Task): Task {
  return task.biosSettings ? task : { ...task, biosSettings: biosSettingsPort(ctx, task.node.uuid) };
}

/** Ironic's node_cache_bios_settings: cache what the bios interface reads; never fails the caller. */
export async function cacheBiosSettings(ctx: ConductorContext, task: Task): Promise<void> {
  try {
    await loadDriver(task.node).bios.cacheBiosSettings(biosTask(ctx, task));
  } catch (err) {
    rethrowRefusal(err);
    if (err instanceof UnsupportedDriverExtension) {
      ctx.log.debug('BIOS settings are not supported for node, skipping', { node: task.node.uuid });
      return;
    }
    ctx.log.warn('Caching of bios settings failed on node', { node: task.node.uuid, error: String(err) });
  }
}
