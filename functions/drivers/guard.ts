/**
 * Guards on what the conductor does to hardware. Before every request to a BMC or a ramdisk agent
 * the clients ask the guard of the node copy they act for whether they still may act, and how long
 * they may wait for the answer:
 *
 * - a **deadline**: the work a conductor invocation does for one RPC message or one step must end
 *   before the invocation does (and a step's before Step Functions gives up on it), so no request
 *   starts past it and none waits beyond it;
 * - a **fence**: the node's revision when this copy last wrote it. Whoever takes the node over (a
 *   retry of the step, the failure path, a periodic task) writes it, which moves the revision on,
 *   so a step its execution gave up on finds itself fenced before its next request. Saves are
 *   fenced by the same revision: every node write is conditional on it.
 *
 * The guard is kept beside the node object (not on it: it is no field of the node), so it goes
 * wherever the node copy goes, through drivers that only know the node.
 */
import { DatabaseUnavailable } from '#common/errors';
import type { Node } from '#objects/node';

export type RefusalReason = 'deadline' | 'fenced';

/** An action the guard refused. Not an Ironic error: the conductor decides what it means (retry, fail the step). */
export class ActionRefused extends Error {
  override readonly name = 'ActionRefused';
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
  }
}

export interface ActionGuard {
  /** Throws ActionRefused when no more request may be sent for this node copy. */
  check(): Promise<void>;
  /** Milliseconds until the deadline (Infinity without one): the longest a request may wait. */
  remainingMs(): number;
}

const guards = new WeakMap<Node, ActionGuard>();

/** Guard every BMC and agent request made for this node copy. */
export function guardActions(node: Node, guard: ActionGuard): void {
  guards.set(node, guard);
}

/** The guard of a node copy, if it has one (periodic tasks and tests act unguarded). */
export function guardOf(node: Node): ActionGuard | undefined {
  return guards.get(node);
}

/**
 * Call before each request to the node's BMC or agent: refused (ActionRefused) when the guard says
 * so; otherwise the milliseconds the request may take (Infinity when unguarded).
 */
export async function beforeAction(node: Node): Promise<number> {
  const guard = guards.get(node);
  if (guard === undefined) return Number.POSITIVE_INFINITY;
  await guard.check();
  return Math.max(1, guard.remainingMs());
}

/** Whether an error is a refusal for lack of time (worth another delivery), rather than a fence. */
export function isDeadlineRefusal(err: unknown): err is ActionRefused {
  return err instanceof ActionRefused && err.reason === 'deadline';
}

/**
 * For code that turns failures into messages or ignores them: a refusal must go on up as it is,
 * and so must DynamoDB being unavailable (the guard's fence reads the node's revision): neither is
 * the hardware's failure.
 */
export function rethrowRefusal(err: unknown): void {
  if (err instanceof ActionRefused || err instanceof DatabaseUnavailable) throw err;
}
