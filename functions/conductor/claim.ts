/**
 * Taking over the node for an RPC message. The API locked the node for the message (token
 * `rpc:<message id>`); the message's work runs only while that lock is still the message's. When
 * the work is done the lock is released, so a redelivered copy of the message (SQS delivers at
 * least once) finds the lock gone or someone else's and does nothing: no action ever runs twice.
 *
 * A delivery whose work runs out of time (its invocation's deadline, see `attempt.ts`), or that
 * DynamoDB could not serve (`redelivery.ts`), gives the lock back to `rpc:<id>` before it fails
 * (`handBack`), so the next delivery can do the work; the queue's visibility timeout is shorter
 * than the lock's lifetime, so that delivery comes while the lock is still the message's.
 *
 * Two copies of a message can also arrive at once (in one batch, or in two invocations). So the
 * claim hands the lock over from `rpc:<id>` to `run:<id>` in one write conditional on the node's
 * revision and on the lock still being `rpc:<id>`: exactly one copy wins, the others find the
 * lock taken and do nothing. Should the winner die mid-action, the lock expires and the periodic
 * stuck-node check fails the node (or clears its power target), as Ironic does for a dead
 * conductor; a copy delivered later does not run the action again, since it cannot know whether
 * the first one ran it.
 */
import { ConcurrentUpdate, NodeLocked } from '#common/errors';
import type { Node } from '#objects/node';
import type { ConductorContext, FlowName } from './context';
import { resumeStart } from './flows/run-steps';
import { executionName } from './flows/step-advance';
import { lockOwner } from './lock';
import { guarded } from './attempt';

export interface MessageArgs {
  readonly node_id: string;
  readonly lock_token: string;
  readonly message_id: string;
}

/** The token the node is locked with while a message's work runs (and its steps execution holds). */
export function runToken(args: Pick<MessageArgs, 'message_id'>): string {
  return `run:${args.message_id}`;
}

/**
 * The node, reserved for this message, if the message's work is still to be done; undefined when
 * it was done already (or superseded). `flow`, when given, is the steps flow this message starts:
 * if its execution is already recorded, the start is re-issued (idempotent) instead.
 */
export async function claimForMessage(
  ctx: ConductorContext,
  args: MessageArgs,
  expectedStates: readonly string[],
  flow?: FlowName,
  /**
   * Changes to make in the claiming write itself (e.g. the planned steps), run on the node once
   * the message is known to be its to act on. It must only read elsewhere and must not throw:
   * two copies of a message may both run it, and only the one whose write wins acts.
   */
  beforeClaim?: (node: Node) => Promise<void>,
): Promise<Node | undefined> {
  const current = await ctx.nodes.get(args.node_id);
  const running = current.driver_internal_info.steps_execution;
  if (running !== undefined) {
    if (flow !== undefined && running === executionName(flow, current, args.message_id)) {
      await resumeStart(ctx, current, flow, runToken(args), args.message_id);
    } else {
      ctx.log.info('Message already handled: a steps execution runs for this node', { node: current.uuid, execution: running });
    }
    return undefined;
  }
  if (current.storeMeta?.lockHolder !== args.lock_token) {
    const why =
      current.storeMeta?.lockHolder === runToken(args)
        ? 'Message taken by another delivery of it'
        : 'Message already handled or superseded: the node is not locked for it';
    ctx.log.info(why, { node: current.uuid, lock: current.reservation });
    return undefined;
  }
  if (!expectedStates.includes(current.provision_state)) {
    ctx.log.warn('Node is locked for this message but in an unexpected state; releasing it', {
      node: current.uuid,
      state: current.provision_state,
      expected: expectedStates,
    });
    await ctx.nodes.release(await ctx.nodes.reserve(args.node_id, lockOwner(ctx, args.lock_token)));
    return undefined;
  }
  await beforeClaim?.(current);
  // Hand the lock over rpc:<id> → run:<id>, conditional on this very revision: one copy wins.
  current.storeMeta = { ...current.storeMeta!, lockOwner: args.lock_token };
  try {
    return guarded(ctx, await ctx.nodes.save(current, { lockFor: lockOwner(ctx, runToken(args)) }), `The ${args.message_id} request`);
  } catch (err) {
    if (err instanceof ConcurrentUpdate || err instanceof NodeLocked) {
      ctx.log.info('Message taken by another delivery of it', { node: current.uuid });
      return undefined;
    }
    throw err;
  }
}

/**
 * Give a message's lock back (`run:<id>` → `rpc:<id>`, with a fresh lifetime) after its work ran
 * out of time or DynamoDB could not serve it, so the delivery SQS makes next can claim it and do
 * the work: a retry that can succeed. Only while the message's own work holds the node and no
 * steps execution took it over; whatever the work changed without saving is left unsaved (the
 * retry does it again). Whether the lock was given back.
 */
export async function handBack(ctx: ConductorContext, args: MessageArgs): Promise<boolean> {
  const current = await ctx.nodes.get(args.node_id);
  if (current.storeMeta?.lockHolder !== runToken(args) || current.driver_internal_info.steps_execution !== undefined) return false;
  try {
    await ctx.nodes.reserve(args.node_id, lockOwner(ctx, args.lock_token), { takeOverFrom: runToken(args) });
    return true;
  } catch (err) {
    if (err instanceof NodeLocked) return false;
    throw err;
  }
}
