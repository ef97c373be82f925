/** One RPC queue per conductor group, each with its dead-letter queue (`functions/rpc/queues.ts`). */
import { Duration } from 'aws-cdk-lib';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Queue, QueueEncryption, RedrivePermission } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { groupLabel, type QueueSettings } from '../../functions/rpc/queues';

export interface ConductorQueuesProps {
  readonly groups: readonly string[];
  readonly settings: QueueSettings;
}

export class ConductorQueues extends Construct {
  /** Conductor group → its queue. */
  readonly queues: ReadonlyMap<string, Queue>;
  /** Conductor group → its dead-letter queue. */
  readonly deadLetterQueues: ReadonlyMap<string, Queue>;

  constructor(scope: Construct, id: string, props: ConductorQueuesProps) {
    super(scope, id);
    const queues = new Map<string, Queue>();
    const dlqs = new Map<string, Queue>();
    for (const group of props.groups) {
      const label = groupLabel(group);
      const dlq = new Queue(this, `${label}Dlq`, {
        retentionPeriod: Duration.seconds(props.settings.dlqRetentionSeconds),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        // Says what the queue is (a DLQ, as Control Tower's CT.SQS.PR.1 reads it). SQS allows any
        // queue of the account to redrive into it without the policy too; naming the one source
        // queue would need its ARN, which depends on this queue: a cycle.
        redriveAllowPolicy: { redrivePermission: RedrivePermission.ALLOW_ALL },
      });
      dlqs.set(group, dlq);
      queues.set(
        group,
        new Queue(this, label, {
          visibilityTimeout: Duration.seconds(props.settings.visibilityTimeoutSeconds),
          retentionPeriod: Duration.seconds(props.settings.retentionSeconds),
          encryption: QueueEncryption.SQS_MANAGED,
          enforceSSL: true,
          deadLetterQueue: { queue: dlq, maxReceiveCount: props.settings.maxReceiveCount },
        }),
      );
    }
    this.queues = queues;
    this.deadLetterQueues = dlqs;
  }

  /** CONDUCTOR_QUEUES: group → queue URL, as JSON. */
  environmentValue(): string {
    return JSON.stringify(Object.fromEntries([...this.queues].map(([group, queue]) => [group, queue.queueUrl])));
  }

  grantSend(grantee: IGrantable): void {
    for (const queue of this.queues.values()) queue.grantSendMessages(grantee);
  }
}
