/**
 * RPC entry. Casts arrive as SQS batches: each record is one message; failures are reported per
 * record (partial batch response) so one bad node does not redeliver its neighbours, and a message
 * this conductor cannot handle (unknown method, newer RPC version) fails every time and so ends in
 * the queue's DLQ after its retries, with a log line saying why. Calls arrive as direct invocations
 * (`{entry: 'call', message}`) and are answered with their result or the Ironic error to raise.
 * A message DynamoDB could not serve is retried soon, with its node's lock given back (`retryLater`).
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { DatabaseUnavailable, isIronicError } from '#common/errors';
import { compareVersions } from '#objects/base';
import { type CallReply, RPC_API_VERSION, type RpcMessage, type RpcMethods, isRpcMessage } from '#rpc/messages';
import { isDeadlineRefusal } from '#drivers/guard';
import { MAX_RECEIVE_COUNT } from '#rpc/queues';
import { type MessageArgs, handBack } from '../claim';
import type { ConductorContext } from '../context';
import { redeliveryDelaySeconds } from '../redelivery';
import { doAbort } from '../flows/abort';
import { doAllocate } from '../flows/allocate';
import { doDirectAction, isDirectAction } from '../flows/actions';
import { doNodeDeploy } from '../flows/deploy';
import { doHeartbeat } from '../flows/heartbeat';
import { doContinueInspection, doInspect } from '../flows/inspection';
import { changeNodePowerState } from '../flows/power';
import { doManualClean, doNodeTearDown, doProvide } from '../flows/provision';
import {
  changeNodeBootMode,
  changeNodeSecureBoot,
  getBootDevice,
  getSupportedBootDevices,
  injectNmi,
  setBootDevice,
} from '../flows/management';
import { doNodeService, doUnhold } from '../flows/service';
import { getConsoleInformation, setConsoleMode } from '../flows/console';
import { getIndicatorState, getSupportedIndicators, setIndicatorState } from '../flows/indicators';
import { doVendorPassthru, driverVendorPassthru, vendorPassthru } from '../flows/vendor';
import { attachVirtualMedia, detachVirtualMedia, doAttachVirtualMedia, doDetachVirtualMedia, getVirtualMedia } from '../flows/vmedia';
import { validateDriverInterfaces } from '../flows/validate';
import { vifAttach, vifDetach, vifList } from '../flows/vifs';

export class UnsupportedMessage extends Error {
  override readonly name = 'UnsupportedMessage';
}

function checkVersion(message: RpcMessage): void {
  if (compareVersions(message.rpc, RPC_API_VERSION) > 0) {
    throw new UnsupportedMessage(`RPC version ${message.rpc} of ${message.method} is newer than this conductor's ${RPC_API_VERSION}`);
  }
}

/** Handle one cast. Exported for tests; the SQS entry below wraps it. */
export async function handleMessage(ctx: ConductorContext, message: RpcMessage): Promise<void> {
  checkVersion(message);
  const id = message.message_id;
  ctx.log.appendKeys({ request_id: message.context?.request_id, rpc_method: message.method });
  try {
    switch (message.method) {
      case 'do_node_deploy':
        return await doNodeDeploy(ctx, { ...(message.args as RpcMethods['do_node_deploy']), message_id: id });
      case 'do_node_tear_down':
        return await doNodeTearDown(ctx, { ...(message.args as RpcMethods['do_node_tear_down']), message_id: id });
      case 'do_node_clean':
        return await doManualClean(ctx, { ...(message.args as RpcMethods['do_node_clean']), message_id: id });
      case 'do_node_service':
        return await doNodeService(ctx, { ...(message.args as RpcMethods['do_node_service']), message_id: id });
      case 'heartbeat':
        return await doHeartbeat(ctx, { ...(message.args as RpcMethods['heartbeat']), message_id: id });
      case 'continue_inspection':
        return await doContinueInspection(ctx, { ...(message.args as RpcMethods['continue_inspection']), message_id: id });
      case 'change_node_power_state':
        return await changeNodePowerState(ctx, { ...(message.args as RpcMethods['change_node_power_state']), message_id: id });
      case 'change_node_boot_mode':
        return await changeNodeBootMode(ctx, { ...(message.args as RpcMethods['change_node_boot_mode']), message_id: id });
      case 'change_node_secure_boot':
        return await changeNodeSecureBoot(ctx, { ...(message.args as RpcMethods['change_node_secure_boot']), message_id: id });
      case 'create_allocation':
        return await doAllocate(ctx, message.args as RpcMethods['create_allocation']);
      case 'set_console_mode':
        return await setConsoleMode(ctx, { ...(message.args as RpcMethods['set_console_mode']), message_id: id });
      case 'do_attach_virtual_media':
        return await doAttachVirtualMedia(ctx, { ...(message.args as RpcMethods['do_attach_virtual_media']), message_id: id });
      case 'do_detach_virtual_media':
        return await doDetachVirtualMedia(ctx, { ...(message.args as RpcMethods['do_detach_virtual_media']), message_id: id });
      case 'do_vendor_passthru':
        return await doVendorPassthru(ctx, { ...(message.args as RpcMethods['do_vendor_passthru']), message_id: id });
      case 'do_provisioning_action': {
        const args = { ...(message.args as RpcMethods['do_provisioning_action']), message_id: id };
        if (args.action === 'provide') return await doProvide(ctx, args);
        if (args.action === 'abort') return await doAbort(ctx, args);
        if (args.action === 'unhold') return await doUnhold(ctx, args);
        if (args.action === 'inspect') return await doInspect(ctx, args);
        if (isDirectAction(args.action)) return await doDirectAction(ctx, args);
        throw new UnsupportedMessage(`do_provisioning_action: unknown action "${args.action}"`);
      }
      default:
        throw new UnsupportedMessage(`RPC method "${message.method}" cannot be cast`);
    }
  } finally {
    ctx.log.removeKeys(['request_id', 'rpc_method']);
  }
}

/** Answer one call. Ironic errors are returned (the caller raises them); anything else fails the invocation. */
export async function handleCall(ctx: ConductorContext, message: RpcMessage): Promise<CallReply> {
  try {
    checkVersion(message);
    switch (message.method) {
      case 'validate_driver_interfaces':
        return { result: await validateDriverInterfaces(ctx, message.args as RpcMethods['validate_driver_interfaces']) };
      case 'set_boot_device':
        return { result: await setBootDevice(ctx, message.args as RpcMethods['set_boot_device']) };
      case 'get_boot_device':
        return { result: await getBootDevice(ctx, message.args as RpcMethods['get_boot_device']) };
      case 'get_supported_boot_devices':
        return { result: await getSupportedBootDevices(ctx, message.args as RpcMethods['get_supported_boot_devices']) };
      case 'inject_nmi':
        return { result: await injectNmi(ctx, message.args as RpcMethods['inject_nmi']) };
      case 'vif_list':
        return { result: await vifList(ctx, message.args as RpcMethods['vif_list']) };
      case 'vif_attach':
        return { result: await vifAttach(ctx, message.args as RpcMethods['vif_attach']) };
      case 'vif_detach':
        return { result: await vifDetach(ctx, message.args as RpcMethods['vif_detach']) };
      case 'get_console_information':
        return { result: await getConsoleInformation(ctx, message.args as RpcMethods['get_console_information']) };
      case 'get_supported_indicators':
        return { result: await getSupportedIndicators(ctx, message.args as RpcMethods['get_supported_indicators']) };
      case 'get_indicator_state':
        return { result: await getIndicatorState(ctx, message.args as RpcMethods['get_indicator_state']) };
      case 'set_indicator_state':
        return { result: await setIndicatorState(ctx, message.args as RpcMethods['set_indicator_state']) };
      case 'vendor_passthru':
        return { result: await vendorPassthru(ctx, message.args as RpcMethods['vendor_passthru'], message.context) };
      case 'driver_vendor_passthru':
        return { result: await driverVendorPassthru(ctx, message.args as RpcMethods['driver_vendor_passthru']) };
      case 'get_virtual_media':
        return { result: await getVirtualMedia(ctx, message.args as RpcMethods['get_virtual_media']) };
      case 'attach_virtual_media':
        return { result: await attachVirtualMedia(ctx, message.args as RpcMethods['attach_virtual_media'], message.context) };
      case 'detach_virtual_media':
        return { result: await detachVirtualMedia(ctx, message.args as RpcMethods['detach_virtual_media'], message.context) };
      default:
        throw new UnsupportedMessage(`RPC method "${message.method}" cannot be called`);
    }
  } catch (err) {
    if (isIronicError(err)) return { error: { name: err.name, code: err.code, message: err.message } };
    if (err instanceof UnsupportedMessage) return { error: { name: err.name, code: 500, message: err.message } };
    throw err;
  }
}

/** A message that ran out of time hands its node lock back for the next delivery (see `claim.ts`). */
async function giveBack(ctx: ConductorContext, message: RpcMessage): Promise<void> {
  const args = message.args as Partial<MessageArgs>;
  if (typeof args.node_id !== 'string' || typeof args.lock_token !== 'string') return;
  const given = await handBack(ctx, { node_id: args.node_id, lock_token: args.lock_token, message_id: message.message_id });
  ctx.log.warn('RPC message ran out of time; SQS will deliver it again', { node: args.node_id, lockGivenBack: given });
}

/**
 * DynamoDB could not serve the message's work: not the node's failure. Give the node's lock back
 * to the message and have SQS deliver it again soon (see `redelivery.ts`); the record then fails.
 */
async function retryLater(ctx: ConductorContext, message: RpcMessage, record: SQSRecord, err: DatabaseUnavailable): Promise<never> {
  const args = message.args as Partial<MessageArgs>;
  const receives = Number(record.attributes.ApproximateReceiveCount ?? '1');
  const seconds = redeliveryDelaySeconds(receives);
  let lockGivenBack = false;
  if (typeof args.node_id === 'string' && typeof args.lock_token === 'string') {
    lockGivenBack = await handBack(ctx, { node_id: args.node_id, lock_token: args.lock_token, message_id: message.message_id }).catch(
      () => false, // DynamoDB still unavailable: the lock expires, as if the conductor had died
    );
  }
  await ctx.redelivery?.after(record, seconds).catch((e: unknown) => {
    ctx.log.warn('Could not ask SQS for an early redelivery', { messageId: record.messageId, error: String(e) });
  });
  ctx.log.warn('DynamoDB unavailable: the RPC message will be delivered again', {
    messageId: record.messageId,
    method: message.method,
    node: args.node_id,
    receiveCount: receives,
    inSeconds: seconds,
    lockGivenBack,
    error: err.reason,
  });
  throw err;
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
      // Its last delivery: running out of time then fails the action rather than asking for another.
      const receives = Number(record.attributes.ApproximateReceiveCount ?? '1');
      const messageCtx: ConductorContext = { ...ctx, finalDelivery: receives >= MAX_RECEIVE_COUNT };
      try {
        await handleMessage(messageCtx, message);
      } catch (err) {
        if (err instanceof DatabaseUnavailable) return retryLater(messageCtx, message, record, err);
        if (isDeadlineRefusal(err)) await giveBack(messageCtx, message);
        // A message this conductor cannot handle fails on every delivery: say so, as the DLQ is where it ends.
        const unsupported = err instanceof UnsupportedMessage;
        ctx.log[unsupported ? 'error' : 'warn'](
          unsupported
            ? 'RPC message cannot be handled by this conductor; SQS will move it to the DLQ after its retries'
            : 'RPC message failed; SQS will redeliver it, then move it to the DLQ',
          {
            messageId: record.messageId,
            method: message.method,
            receiveCount: record.attributes.ApproximateReceiveCount,
            error: String(err),
          },
        );
        throw err;
      }
    },
    processor,
  );
}
