/**
 * Work Ironic's conductor spawns after answering a call (`task.spawn_after`): the call takes the
 * node's lock, validates and refuses what it refuses (all answered to the API), and the work runs
 * after the answer with the lock still held, releasing it when done. A Lambda cannot work after it
 * has answered, so the call hands its lock over to a message for the work (`rpc:<message id>`, as
 * the API does for its own casts; see `claim.ts`) and casts that message to the node's conductor
 * group's queue; the conductor that receives it claims the node, does the work and lets go.
 *
 * NOTE: a conductor capped below the cast's RPC version (pinned during a rolling upgrade, when a
 * conductor of the release before could receive the message and not know it) runs the work within
 * the call instead, as before RPC 1.5; so does a context without an RPC client (unit tests).
 */
import { newUuid } from '#common/ids';
import type { Node } from '#objects/node';
import type { RequestContext, RpcMethods } from '#rpc/messages';
import type { ConductorContext } from './context';
import { lockOwner } from './lock';

/** The casts a call spawns. */
export type SpawnMethod = 'do_attach_virtual_media' | 'do_detach_virtual_media' | 'do_vendor_passthru';

/** Whether this conductor may cast `method`, or must run its work within the call. */
export function canSpawn(ctx: ConductorContext, method: SpawnMethod): boolean {
  return ctx.rpc?.canSend(method) === true;
}

function client(ctx: ConductorContext): NonNullable<ConductorContext['rpc']> {
  if (ctx.rpc === undefined) throw new Error('This conductor has no RPC client to cast with');
  return ctx.rpc;
}

/**
 * Hand the lock `node` holds (for this call) over to a new message for `method`, saving whatever
 * `node` carries unsaved in the same write, and cast the message. Should the cast fail, the lock
 * is released (what was saved stays, as Ironic's call saves before spawning) and the error raised.
 */
export async function spawnLocked<M extends SpawnMethod>(
  ctx: ConductorContext,
  node: Node,
  method: M,
  args: (lockToken: string) => RpcMethods[M],
  context: RequestContext,
): Promise<void> {
  const rpc = client(ctx);
  const messageId = newUuid();
  const lockToken = `rpc:${messageId}`;
  const message = rpc.message(method, args(lockToken), context, messageId);
  await ctx.nodes.save(node, { lockFor: lockOwner(ctx, lockToken) });
  try {
    await rpc.cast(node.conductor_group, message);
  } catch (err) {
    ctx.log.error('Could not cast the work of the call; releasing the node', { node: node.uuid, method, error: String(err) });
    await ctx.nodes
      .save(node, { release: true })
      .catch((e: unknown) => ctx.log.error('Could not release a node lock', { node: node.uuid, error: String(e) }));
    throw err;
  }
  ctx.log.info('Cast the work of the call, the node locked for it', { node: node.uuid, method, message_id: messageId });
}

/** Cast work that needs no lock (Ironic's shared task spawning it). */
export async function spawnShared<M extends SpawnMethod>(
  ctx: ConductorContext,
  node: Node,
  method: M,
  args: RpcMethods[M],
  context: RequestContext,
): Promise<void> {
  const rpc = client(ctx);
  const message = rpc.message(method, args, context);
  await rpc.cast(node.conductor_group, message);
  ctx.log.info('Cast the work of the call', { node: node.uuid, method, message_id: message.message_id });
}
