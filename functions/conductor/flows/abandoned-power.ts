/**
 * Power actions a dead conductor left behind (Ironic's `clear_node_target_power_state`, run when a
 * conductor restarts). The API sets `target_power_state` and locks the node for the power message;
 * if the invocation handling it is killed and its lock expires — or another verb takes the expired
 * lock — the target would stay set and the node would refuse power requests forever. Such a node
 * gets its target cleared with Ironic's last_error, by the power-state sync that reads it anyway. A late redelivery of the message then finds
 * the node not locked for it and does nothing, so the action never runs twice.
 */
import { ConcurrentUpdate, NodeLocked } from '#common/errors';
import { newUuid } from '#common/ids';
import type { Node } from '#objects/node';
import type { ConductorContext } from '../context';
import { lockOwner } from '../lock';

export const ABANDONED_POWER_ERROR = 'Pending power operation was aborted due to conductor restart';

/** A node whose power target outlived the lock of the invocation that set it. */
export function abandoned(node: Node, now: number): boolean {
  if (node.target_power_state === null) return false;
  const expires = node.storeMeta?.lockExpiresAt;
  return node.reservation === null || expires === undefined || expires < now;
}

/**
 * Clear the abandoned power target of a node the power sync read (it reads every node anyway, so
 * this costs no read of its own); false if someone works on the node now.
 */
export async function clearAbandonedPowerAction(ctx: ConductorContext, candidate: Node): Promise<boolean> {
  try {
    const node = await ctx.nodes.reserve(candidate.uuid, lockOwner(ctx, `periodic:${newUuid()}`));
    if (node.target_power_state === null) {
      await ctx.nodes.release(node);
      return false;
    }
    node.target_power_state = null;
    node.last_error = ABANDONED_POWER_ERROR;
    await ctx.nodes.save(node, { release: true });
    ctx.log.warn('Cleared the target power state of a node whose power action was abandoned', { node: node.uuid });
    return true;
  } catch (err) {
    if (err instanceof NodeLocked || err instanceof ConcurrentUpdate) return false; // someone works on it now
    throw err;
  }
}
