/**
 * Hardware health (API 1.109, Ironic's `node_cache_health`): on each power sync, a node whose
 * management interface reads health from its BMC (redfish: the system's Status.Health) gets it
 * cached in `health`; a change is saved by the sync and leaves a `monitoring` event in the node's
 * history. Interfaces that cannot tell (fake-hardware) leave health null; a failed read is only
 * logged, as it must not stop the power sync. A conductor pinned to a release that writes Node
 * items below 1.2 (which cannot store health) leaves it alone, or every sync would see a change.
 * `[conductor]enable_health_monitoring = False` (`enableHealthMonitoring: false`) turns it off:
 * health is then neither read nor changed.
 */
import { compareVersionStrings, selectRelease } from '#common/releases';
import { loadDriver } from '#drivers/registry';
import type { Node } from '#objects/node';
import type { ConductorContext } from '../context';
import { noteHealthChange } from '../history';

/** Read the node's health into `node.health`; true when it changed (the caller saves the node). */
export async function cacheHealth(ctx: ConductorContext, node: Node): Promise<boolean> {
  if (!ctx.config.enableHealthMonitoring || !storesHealth(ctx.config.pinReleaseVersion)) return false;
  let health: string | null;
  try {
    const management = loadDriver(node).management;
    if (management.getNodeHealth === undefined) return false;
    health = await management.getNodeHealth({ node, log: ctx.log });
  } catch (err) {
    ctx.log.warn(`Could not retrieve health status for node ${node.uuid}: ${(err as Error).message}`);
    return false;
  }
  if (health === node.health) return false;
  noteHealthChange(node, node.health);
  if (health === 'Warning' || health === 'Critical') {
    ctx.log.warn(`Node ${node.uuid} health status indicates a problem: health=${health}`);
  }
  node.health = health;
  return true;
}

const stored = new Map<string, boolean>();

/** Whether the release pinned to writes Node 1.2 (health) or later. */
function storesHealth(pin: string): boolean {
  let result = stored.get(pin);
  if (result === undefined) {
    result = compareVersionStrings(selectRelease(pin).objectVersion('Node'), '1.2') >= 0;
    stored.set(pin, result);
  }
  return result;
}
