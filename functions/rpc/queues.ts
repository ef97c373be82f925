/**
 * The conductor's RPC queues: one per conductor group, each with a dead-letter queue beside it.
 * The CDK stack and the local stack both build their queues from these settings.
 */

export interface QueueSettings {
  /** How long a received message stays hidden: at least six times the conductor's timeout (AWS guidance). */
  readonly visibilityTimeoutSeconds: number;
  /** Receives before a message moves to the DLQ. */
  readonly maxReceiveCount: number;
  readonly retentionSeconds: number;
  readonly dlqRetentionSeconds: number;
  /** Messages per conductor invocation. */
  readonly batchSize: number;
}

export function queueSettings(conductorTimeoutSeconds: number): QueueSettings {
  return {
    visibilityTimeoutSeconds: conductorTimeoutSeconds * 6,
    maxReceiveCount: 5,
    retentionSeconds: 4 * 24 * 3600,
    dlqRetentionSeconds: 14 * 24 * 3600,
    batchSize: 10,
  };
}

/** The key of a group in CONDUCTOR_QUEUES and in resource names: "" is the default group. */
export function groupLabel(group: string): string {
  return group === '' ? 'default' : group;
}
