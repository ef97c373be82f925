/**
 * Taking over the node for an RPC message. The API locked the node for the message (token
 * `rpc:<message id>`); the message's work runs only while that lock is still the message's. When
 * the work is done the lock is released, so a redelivered copy of the message (SQS delivers at
 * least once) finds the lock gone or someone else's and does nothing: no action ever runs twice.
 */
import type { Node } from '#objects/node';
import type { ConductorContext, FlowName } from './context';
import { executionName, resumeStart } from './flows/run-steps';
import { lockOwner } from './lock';

export interface MessageArgs {
  readonly node_id: string;
  readonly lock_token: string;
  readonly message_id: string;
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
): Promise<Node | undefined> {
  const current = await ctx.nodes.get(args.node_id);
  const running = current.driver_internal_info.steps_execution;
  if (running !== undefined) {
    if (flow !== undefined && running === executionName(flow, current, args.message_id)) {
      await resumeStart(ctx, current, flow, args.lock_token, args.message_id);
    } else {
      ctx.log.info('Message already handled: a steps execution runs for this node', { node: current.uuid, execution: running });
    }
    return undefined;
  }
  if (current.storeMeta?.lockHolder !== args.lock_token) {
    ctx.log.info('Message already handled or superseded: the node is not locked for it', { node: current.uuid, lock: current.reservation });
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
  return ctx.nodes.reserve(args.node_id, lockOwner(ctx, args.lock_token));
}
