/** What the API checks before an inspection starts (the `inspect` verb). */
import { TemporaryFailure } from '#common/errors';
import { loadDriver } from '#drivers/registry';
import type { Node } from '#objects/node';
import { METHOD_VERSIONS } from '#rpc/messages';
import type { ApiContext } from './context';

/**
 * An in-band inspection (the `agent` interface) may only start where its ramdisk's data can come
 * back: a service pinned below RPC continue_inspection could not cast it to a conductor, so it
 * refuses, before anything changes, as a manual clean with disable_ramdisk is refused while pinned.
 */
export function checkInBandInspection(ctx: ApiContext, node: Node): void {
  let inBand: boolean;
  try {
    inBand = loadDriver(node).inspect.inBand !== undefined;
  } catch {
    return; // an interface this release does not know: the conductor fails the inspection with its reason
  }
  if (!inBand || ctx.rpc.canSend('continue_inspection')) return;
  throw new TemporaryFailure(
    `Node ${node.uuid} cannot be inspected in band while this service is pinned to release ${ctx.release.release}: ` +
      `its ramdisk's data needs RPC ${METHOD_VERSIONS.continue_inspection} (continue_inspection), above this service's cap ${ctx.rpc.versionCap}. ` +
      'Inspect it once the upgrade is finished (unpinned), or with an out-of-band inspect interface.',
  );
}
