/**
 * An attempt: one invocation's work on one node, for one RPC message or one step. Each attempt gets
 * a deadline from the invocation's remaining time (and, for a step, from the step timeout Step
 * Functions holds it to), and guards the node copy it acts with (`#drivers/guard`): before each
 * request to the BMC or the agent the deadline is checked and the node's revision is read back. A
 * write by anyone else since this copy last wrote (a retry of the step, the failure path, a
 * periodic task taking the node over) means the attempt was given up on: it is fenced and acts no
 * more. Its own saves are fenced by the same revision, on which every node write is conditional.
 */
import { DatabaseUnavailable } from '#common/errors';
import { ActionRefused, type ActionGuard, guardActions, isDeadlineRefusal } from '#drivers/guard';
import type { Node } from '#objects/node';
import type { ConductorContext } from './context';

/** Kept back from an invocation's remaining time: to save the node, hand its lock back and answer. */
const INVOCATION_MARGIN_MS = 5_000;
/**
 * Kept back from a step's timeout: Step Functions starts the step's clock before the invocation
 * (and its cold start) begins, so the step stops acting this much before the clock runs out.
 */
const STEP_MARGIN_MS = 5_000;

/** At most a quarter of a short budget goes to the margin (tests run with timeouts of seconds). */
function margin(budgetMs: number, wanted: number): number {
  return Math.min(wanted, Math.floor(budgetMs / 4));
}

/** The deadline of work in an invocation with `remainingMs` left (Lambda's getRemainingTimeInMillis). */
export function invocationDeadline(remainingMs: number, now: number = Date.now()): number {
  return now + remainingMs - margin(remainingMs, INVOCATION_MARGIN_MS);
}

/** The deadline of a step task: the invocation's, and within the step timeout Step Functions enforces. */
export function stepDeadline(remainingMs: number, stepTimeoutSeconds: number, now: number = Date.now()): number {
  const stepMs = stepTimeoutSeconds * 1000;
  return Math.min(invocationDeadline(remainingMs, now), now + stepMs - margin(stepMs, STEP_MARGIN_MS));
}

/** The guard of an attempt on `node` (a copy it holds the lock with): its deadline and its fence. */
export function attemptGuard(ctx: ConductorContext, node: Node, what: string): ActionGuard {
  const deadline = ctx.deadline;
  return {
    remainingMs: () => (deadline === undefined ? Number.POSITIVE_INFINITY : deadline - Date.now()),
    async check() {
      if (deadline !== undefined && Date.now() >= deadline) {
        throw new ActionRefused('deadline', `${what} on node ${node.uuid} ran out of time before it could finish`);
      }
      const stored = await ctx.nodes.revision(node.uuid);
      if (stored !== node.storeMeta?.rev) {
        ctx.log.warn('Fenced: the node was taken over; no further action', { node: node.uuid, what, rev: node.storeMeta?.rev, stored });
        throw new ActionRefused('fenced', `${what} on node ${node.uuid} was taken over by another operation and stopped`);
      }
    },
  };
}

/** Guard the node copy an attempt acts with; returns it. */
export function guarded(ctx: ConductorContext, node: Node, what: string): Node {
  guardActions(node, attemptGuard(ctx, node, what));
  return node;
}

/**
 * Whether a failure should go back to SQS for another delivery rather than be recorded: the
 * message ran out of time, or DynamoDB could not serve it (throttling or errors beyond the
 * client's retries; the fence's revision read included), and it is not on its last delivery.
 */
export function shouldRetry(ctx: ConductorContext, err: unknown): boolean {
  return (isDeadlineRefusal(err) || err instanceof DatabaseUnavailable) && ctx.finalDelivery !== true;
}
