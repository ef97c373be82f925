/**
 * Retrying a message whose work DynamoDB could not serve (throttling or errors beyond the
 * client's retries). The message is not the node's failure, so it is not failed: its lock is given
 * back to the message (when its work had claimed the node and changed nothing yet, see
 * `handBack`), and SQS is asked to deliver it again after a short backoff, rather than after the
 * queue's visibility timeout, so the next delivery comes while the node's lock is still the
 * message's and can do the work.
 */
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';

/** Asking SQS to deliver a failed message again sooner than the queue's visibility timeout. */
export interface Redelivery {
  /** Make the message of `record` visible again in `seconds`. */
  after(record: SQSRecord, seconds: number): Promise<void>;
}

/** Seconds before the next delivery of a message DynamoDB could not serve: 5, 10, 20, 40, then 60, jittered. */
export function redeliveryDelaySeconds(receiveCount: number, random: () => number = Math.random): number {
  const ceiling = Math.min(60, 5 * 2 ** Math.max(0, receiveCount - 1));
  return Math.max(1, Math.round(ceiling * (0.5 + random() / 2)));
}

export class SqsRedelivery implements Redelivery {
  /**
   * `queues`: the conductor's queue URLs (CONDUCTOR_QUEUES); a record names its queue by ARN,
   * whose last part is the URL's last part.
   */
  constructor(
    private readonly sqs: SQSClient,
    private readonly queues: Readonly<Record<string, string>>,
  ) {}

  async after(record: SQSRecord, seconds: number): Promise<void> {
    const name = record.eventSourceARN.split(':').pop() ?? '';
    const queueUrl = Object.values(this.queues).find((url) => url.split('/').pop() === name);
    if (queueUrl === undefined) throw new Error(`No queue URL for ${record.eventSourceARN}`);
    await this.sqs.send(
      new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: record.receiptHandle, VisibilityTimeout: seconds }),
    );
  }
}
