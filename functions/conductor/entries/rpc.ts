/**
 * RPC entry: SQS batches of casts from the API. Each record is one RPC message; failures are
 * reported per record (partial batch response) so one bad node does not redeliver its neighbours.
 * A message this conductor cannot handle (unknown method, newer RPC version) fails every time and
 * so ends in the queue's DLQ after its retries, with a log line saying why.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { compareVersions } from '#objects/base';
import { RPC_API_VERSION, type RpcMessage, isRpcMessage } from '#rpc/messages';
import type { ConductorContext } from '../context';
import { doNodeDeploy } from '../flows/deploy';
import { doNodeTearDown, doNodeVerify, doProvide } from '../flows/provision';

export class UnsupportedMessage extends Error {
  override readonly name = 'UnsupportedMessage';
}

/** Handle one RPC message. Exported for tests; the SQS entry below wraps it. */
export async function handleMessage(ctx: ConductorContext, message: RpcMessage): Promise<void> {
  if (compareVersions(message.rpc, RPC_API_VERSION) > 0) {
    throw new UnsupportedMessage(`RPC version ${message.rpc} of ${message.method} is newer than this conductor's ${RPC_API_VERSION}`);
  }
  const log = ctx.log;
  log.appendKeys({ request_id: message.context?.request_id, rpc_method: message.method });
  try {
    switch (message.method) {
      case 'do_node_deploy': {
        const args = (message as RpcMessage<'do_node_deploy'>).args;
        await doNodeDeploy(ctx, { ...args, message_id: message.message_id });
        return;
      }
      case 'do_node_tear_down': {
        const args = (message as RpcMessage<'do_node_tear_down'>).args;
        await doNodeTearDown(ctx, { ...args, message_id: message.message_id });
        return;
      }
      case 'do_provisioning_action': {
        const args = (message as RpcMessage<'do_provisioning_action'>).args;
        const actionArgs = { ...args, message_id: message.message_id };
        if (args.action === 'manage') return await doNodeVerify(ctx, actionArgs);
        if (args.action === 'provide') return await doProvide(ctx, actionArgs);
        throw new UnsupportedMessage(`do_provisioning_action: unknown action "${args.action}"`);
      }
      default:
        throw new UnsupportedMessage(`Unknown RPC method "${(message as { method: string }).method}"`);
    }
  } finally {
    log.removeKeys(['request_id', 'rpc_method']);
  }
}

export async function handleSqsBatch(ctx: ConductorContext, event: SQSEvent): Promise<SQSBatchResponse> {
  const processor = new BatchProcessor(EventType.SQS);
  return processPartialResponse(
    event,
    async (record: SQSRecord) => {
      let message: unknown;
      try {
        message = JSON.parse(record.body);
      } catch {
        message = undefined;
      }
      if (!isRpcMessage(message)) {
        ctx.log.error('Dropping to DLQ: not an RPC message', { messageId: record.messageId, body: record.body.slice(0, 500) });
        throw new UnsupportedMessage('not an RPC message');
      }
      try {
        await handleMessage(ctx, message);
      } catch (err) {
        const level = err instanceof UnsupportedMessage ? 'error' : 'warn';
        ctx.log[level]('RPC message failed; SQS will redeliver it, then move it to the DLQ', {
          messageId: record.messageId,
          method: message.method,
          receiveCount: record.attributes.ApproximateReceiveCount,
          error: String(err),
        });
        throw err;
      }
    },
    processor,
  );
}
