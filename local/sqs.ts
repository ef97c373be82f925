/**
 * SQS on one machine: fauxqs (in this process, over HTTP like SQS itself), the conductor queues
 * with their dead-letter queues, and event source mappings that poll a queue and invoke a Lambda
 * alias with batches, deleting only what the function did not report as failed.
 */
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type SQSClient,
  type Message,
} from '@aws-sdk/client-sqs';
import { startFauxqs, type FauxqsServer } from 'fauxqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { type QueueSettings, groupLabel } from '../functions/rpc/queues';
import { type LambdaHost, REGION } from './lambda-host';

export async function startSqs(options: { dataDir?: string } = {}): Promise<FauxqsServer> {
  return startFauxqs({ port: 0, logger: false, host: '127.0.0.1', ...(options.dataDir ? { dataDir: options.dataDir } : {}) });
}

export interface ConductorQueue {
  readonly group: string;
  readonly url: string;
  readonly arn: string;
  readonly dlqUrl: string;
  readonly dlqName: string;
}

/** Create (idempotently) one queue and its DLQ per conductor group. */
export function createConductorQueues(
  server: FauxqsServer,
  prefix: string,
  groups: readonly string[],
  settings: QueueSettings,
): ConductorQueue[] {
  return groups.map((group) => {
    const name = `${prefix}-conductor-${groupLabel(group)}`;
    const dlq = server.createQueue(`${name}-dlq`, { attributes: { MessageRetentionPeriod: String(settings.dlqRetentionSeconds) } });
    const queue = server.createQueue(name, {
      attributes: {
        VisibilityTimeout: String(settings.visibilityTimeoutSeconds),
        MessageRetentionPeriod: String(settings.retentionSeconds),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount: String(settings.maxReceiveCount) }),
      },
    });
    return { group, url: queue.queueUrl, arn: queue.queueArn, dlqUrl: dlq.queueUrl, dlqName: dlq.queueName };
  });
}

/** An SQS → Lambda event source mapping with partial batch responses (ReportBatchItemFailures). */
export class SqsEventSource {
  private running = false;
  /** A disabled mapping (Lambda's Enabled=false) receives nothing; messages wait in the queue. */
  private enabled = true;
  private readonly loops: Promise<void>[] = [];
  private readonly abort = new AbortController();
  /** Messages received for the first time (redeliveries not counted): what was sent to the queue, for benchmarks. */
  messagesReceived = 0;
  /** Invocations running now, and the most that ran at once (the mapping's concurrency, as observed). */
  private inFlight = 0;
  peakConcurrency = 0;

  constructor(
    private readonly sqs: SQSClient,
    private readonly lambda: LambdaHost,
    private readonly options: { queueUrl: string; queueArn: string; functionRef: string; batchSize: number; pollers?: number },
  ) {}

  /** The most batches this mapping delivers at once: its pollers, each delivering one at a time. */
  get maxConcurrency(): number {
    return this.options.pollers ?? 2;
  }

  start(): void {
    this.running = true;
    for (let i = 0; i < (this.options.pollers ?? 2); i++) this.loops.push(this.poll());
  }

  /** Disable or enable the mapping, as UpdateEventSourceMapping's Enabled does. */
  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
  }

  async stop(): Promise<void> {
    this.running = false;
    this.abort.abort();
    await Promise.allSettled(this.loops);
  }

  private async poll(): Promise<void> {
    while (this.running) {
      if (!this.enabled) {
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      let messages: Message[];
      try {
        const out = await this.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: this.options.queueUrl,
            MaxNumberOfMessages: this.options.batchSize,
            WaitTimeSeconds: 5,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          { abortSignal: this.abort.signal },
        );
        messages = out.Messages ?? [];
      } catch (err) {
        if (!this.running) return;
        await new Promise((r) => setTimeout(r, 500));
        void err;
        continue;
      }
      if (messages.length > 0 && !this.enabled) {
        // Disabled while this receive was waiting: hand the messages straight back.
        await this.sqs
          .send(
            new ChangeMessageVisibilityBatchCommand({
              QueueUrl: this.options.queueUrl,
              Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle as string, VisibilityTimeout: 0 })),
            }),
          )
          .catch(() => undefined);
        continue;
      }
      if (messages.length > 0) await this.deliver(messages);
    }
  }

  private async deliver(messages: Message[]): Promise<void> {
    for (const m of messages) if ((m.Attributes?.ApproximateReceiveCount ?? '1') === '1') this.messagesReceived++;
    const event: SQSEvent = { Records: messages.map((m) => this.record(m)) };
    let failed: Set<string>;
    this.inFlight++;
    this.peakConcurrency = Math.max(this.peakConcurrency, this.inFlight);
    try {
      const result = await this.lambda.invoke(this.options.functionRef, event);
      if (result.functionError) {
        failed = new Set(messages.map((m) => m.MessageId as string)); // the whole batch returns
      } else {
        const response = JSON.parse(result.payload) as { batchItemFailures?: { itemIdentifier: string }[] } | null;
        failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
      }
    } catch {
      failed = new Set(messages.map((m) => m.MessageId as string));
    } finally {
      this.inFlight--;
    }
    const done = messages.filter((m) => !failed.has(m.MessageId as string));
    if (done.length === 0) return;
    await this.sqs
      .send(
        new DeleteMessageBatchCommand({
          QueueUrl: this.options.queueUrl,
          Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle as string })),
        }),
      )
      .catch(() => undefined);
  }

  private record(m: Message): SQSRecord {
    const attrs = m.Attributes ?? {};
    return {
      messageId: m.MessageId as string,
      receiptHandle: m.ReceiptHandle as string,
      body: m.Body ?? '',
      attributes: {
        ApproximateReceiveCount: attrs.ApproximateReceiveCount ?? '1',
        SentTimestamp: attrs.SentTimestamp ?? String(Date.now()),
        SenderId: attrs.SenderId ?? 'local',
        ApproximateFirstReceiveTimestamp: attrs.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: m.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN: this.options.queueArn,
      awsRegion: REGION,
    };
  }
}
