/**
 * The conductor's RPC queues: one per conductor group, each with a dead-letter queue beside it.
 * The CDK stack and the local stack both build their queues from these settings.
 */

export interface QueueSettings {
  /**
   * How long a received message stays hidden: longer than a conductor invocation (so a message
   * is not delivered again while its first delivery still runs), and shorter than a node lock's
   * lifetime (`validateSettings`), so a delivery that ran out of time and gave its lock back is
   * followed by one that finds the lock still the message's, and can do the work. AWS's "six times
   * the function timeout" would always come after the lock expired: no retry could succeed.
   */
  readonly visibilityTimeoutSeconds: number;
  /** Receives before a message moves to the DLQ. */
  readonly maxReceiveCount: number;
  readonly retentionSeconds: number;
  readonly dlqRetentionSeconds: number;
  /** Messages per conductor invocation. */
  readonly batchSize: number;
}

/** Receives before a message moves to the DLQ (its last delivery fails rather than asks for another). */
export const MAX_RECEIVE_COUNT = 5;

/** Beyond the conductor's timeout, before a failed message is delivered again: a fifth of it, 1 to 30 s. */
export function visibilityMarginSeconds(conductorTimeoutSeconds: number): number {
  return Math.min(30, Math.max(1, Math.floor(conductorTimeoutSeconds / 5)));
}

export function queueSettings(conductorTimeoutSeconds: number): QueueSettings {
  return {
    visibilityTimeoutSeconds: conductorTimeoutSeconds + visibilityMarginSeconds(conductorTimeoutSeconds),
    maxReceiveCount: MAX_RECEIVE_COUNT,
    retentionSeconds: 4 * 24 * 3600,
    dlqRetentionSeconds: 14 * 24 * 3600,
    batchSize: 10,
  };
}

/** The key of a group in CONDUCTOR_QUEUES and in resource names: "" is the default group. */
export function groupLabel(group: string): string {
  return group === '' ? 'default' : group;
}
