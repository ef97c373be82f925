/**
 * The conductor's side of firmware components: the store port firmware interfaces record through,
 * and Ironic's `node_cache_firmware_components`, which the start of cleaning and servicing call:
 * the firmware interface validates, then reads the versions from the hardware and records them; a
 * driver without firmware support is skipped and a failure only logged, never failing the caller.
 */
import type { NodeFirmwareComponents, Task } from '#drivers/base';
import { rethrowRefusal } from '#drivers/guard';
import { loadDriver } from '#drivers/registry';
import { UnsupportedDriverExtension } from '#common/errors';
import type { ConductorContext } from './context';

/** The node's components in the store, for `task.firmwareComponents`. */
export function firmwareComponentsPort(ctx: ConductorContext, nodeUuid: string): NodeFirmwareComponents {
  return {
    async record(readings) {
      const result = await ctx.stores.firmwareComponents.sync(nodeUuid, readings);
      ctx.log.debug('Firmware components stored', {
        node: nodeUuid,
        created: result.created.length,
        updated: result.updated.length,
        unchanged: result.unchanged.length,
      });
    },
  };
}

/** Ironic's node_cache_firmware_components: cache what the firmware interface reads; never fails the caller. */
export async function cacheFirmwareComponents(ctx: ConductorContext, task: Task): Promise<void> {
  const withPort = task.firmwareComponents ? task : { ...task, firmwareComponents: firmwareComponentsPort(ctx, task.node.uuid) };
  try {
    const firmware = loadDriver(task.node).firmware;
    await firmware.validate(withPort);
    await firmware.cacheFirmwareComponents(withPort);
  } catch (err) {
    rethrowRefusal(err);
    if (err instanceof UnsupportedDriverExtension) {
      ctx.log.warn('Firmware Components are not supported for node, skipping', { node: task.node.uuid });
      return;
    }
    ctx.log.error('Caching of firmware components failed on node', { node: task.node.uuid, error: String(err) });
  }
}
