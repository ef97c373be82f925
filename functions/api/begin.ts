/**
 * Beginning an asynchronous action: the API changes the node (its first state, a target) and locks
 * it for the conductor in one conditional write, then casts the work. The lock's token names the
 * message, so the conductor — and only the conductor handling that message — finishes the action.
 * This is what Ironic's conductor does inside its synchronous RPC call, done here so the 202 already
 * reflects the change and no other request slips in before the conductor takes over.
 */
import { newUuid } from '#common/ids';
import type { Node } from '#objects/node';
import type { RpcMethod, RpcMethods } from '#rpc/messages';
import type { ApiContext } from './context';
import type { ApiRequest } from './http';

/** The name shown as the node's reservation while the conductor works on it. */
export function conductorHost(ctx: ApiContext): string {
  return ctx.config.conductorFunction.split(':function:').pop() ?? ctx.config.conductorFunction;
}

/**
 * Apply `change` to `node`, save it locked for a new message, cast `method`. If the cast fails the
 * change is undone (so nothing is left half-done); should even that fail, the lock expires and the
 * periodic stuck-node check fails the node.
 */
export async function beginAndCast<M extends RpcMethod>(
  req: ApiRequest,
  ctx: ApiContext,
  node: Node,
  change: (node: Node) => void,
  method: M,
  args: (lockToken: string) => RpcMethods[M],
): Promise<void> {
  const before = node.toData();
  change(node);
  const messageId = newUuid();
  const lockToken = `rpc:${messageId}`;
  const message = ctx.rpc.message(method, args(lockToken), { request_id: req.requestId }, messageId);
  await ctx.nodes.save(node, { lockFor: { host: conductorHost(ctx), token: lockToken, ttlSeconds: ctx.config.lockTtlSeconds } });
  try {
    await ctx.rpc.cast(node.conductor_group, message);
  } catch (err) {
    ctx.log.error('Could not cast to the conductor; undoing the change', { node: node.uuid, method, error: String(err) });
    for (const [field, value] of Object.entries(before)) {
      if (field !== 'reservation' && field !== 'updated_at') (node as unknown as Record<string, unknown>)[field] = value;
    }
    await ctx.nodes
      .save(node, { release: true })
      .catch((undo: unknown) => ctx.log.error('Could not undo the change', { node: node.uuid, error: String(undo) }));
    throw err;
  }
  ctx.log.info('Cast to the conductor', { node: node.uuid, method, message_id: messageId });
}
