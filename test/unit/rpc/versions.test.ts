/**
 * RPC version caps: the client never sends a message newer than the pinned release's RPC version;
 * the conductor accepts every version a release it must still serve can send; a message it cannot
 * handle fails its record (so SQS moves it to the DLQ after its retries) with a log line saying why.
 */
import type { SQSEvent } from 'aws-lambda';
import { TemporaryFailure } from '../../../functions/common/errors';
import { RELEASE_MAPPING } from '../../../functions/common/releases';
import { handleCall, handleMessage, handleSqsBatch } from '../../../functions/conductor/entries/rpc';
import { compareVersions } from '../../../functions/objects/base';
import { ConductorRpcClient } from '../../../functions/rpc/client';
import { CALL_METHODS, METHOD_VERSIONS, RPC_API_VERSION, type RpcMethod } from '../../../functions/rpc/messages';
import { makeConductorContext } from '../helpers/builders';

const sqs = { send: async () => ({}) } as never;
const METHODS = Object.keys(METHOD_VERSIONS) as RpcMethod[];

function client(versionCap: string): ConductorRpcClient {
  return new ConductorRpcClient({ sqs, queues: { '': 'q' }, versionCap });
}

function sqsEvent(bodies: string[]): SQSEvent {
  return {
    Records: bodies.map((body, i) => ({
      messageId: `m${i}`,
      receiptHandle: `r${i}`,
      body,
      attributes: { ApproximateReceiveCount: '3', SentTimestamp: '0', SenderId: 's', ApproximateFirstReceiveTimestamp: '0' },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:q',
      awsRegion: 'us-east-1',
    })),
  };
}

describe('the client', () => {
  it("caps its version at the pinned release's RPC version, never above its own", () => {
    for (const [release, row] of Object.entries(RELEASE_MAPPING)) {
      const cap = client(row.rpc).versionCap;
      expect([release, compareVersions(cap, row.rpc) <= 0, compareVersions(cap, RPC_API_VERSION) <= 0]).toEqual([release, true, true]);
    }
    expect(client('9.9').versionCap).toBe(RPC_API_VERSION);
  });

  it('stamps each message with the version that introduced its method, and refuses methods above the cap', () => {
    for (const method of METHODS) {
      expect(client(RPC_API_VERSION).message(method, {} as never, { request_id: 'r' }).rpc).toBe(METHOD_VERSIONS[method]);
      expect(() => client('0.9').message(method, {} as never, { request_id: 'r' })).toThrow(TemporaryFailure);
      expect(() => client('0.9').message(method, {} as never, { request_id: 'r' })).toThrow(`above this service's cap 0.9`);
    }
  });

  it("stamps a message carrying an argument added since its method with the argument's version, refused below it", () => {
    const args = { node_id: 'n', lock_token: 't', clean_steps: [] };
    expect(client('1.0').message('do_node_clean', args, { request_id: 'r' }).rpc).toBe('1.0');
    expect(client('1.1').message('do_node_clean', { ...args, disable_ramdisk: true }, { request_id: 'r' }).rpc).toBe('1.1');
    const pinned = () => client('1.0').message('do_node_clean', { ...args, disable_ramdisk: true }, { request_id: 'r' });
    expect(pinned).toThrow(TemporaryFailure);
    expect(pinned).toThrow("RPC method do_node_clean with disable_ramdisk needs RPC API 1.1, above this service's cap 1.0");
  });
});

describe('the conductor', () => {
  it('accepts every message a client pinned to any release in the mapping can send', async () => {
    const ctx = makeConductorContext();
    for (const row of Object.values(RELEASE_MAPPING)) {
      const pinned = client(row.rpc);
      for (const method of METHODS.filter((m) => pinned.canSend(m))) {
        const message = pinned.message(
          method,
          {
            node_id: 'missing',
            driver_name: 'missing',
            lock_token: 't',
            action: 'manage',
            target: 'power on',
            rebuild: false,
            clean_steps: [],
          } as never,
          { request_id: 'r' },
        );
        // The node (or driver) does not exist: the message is understood, and fails (if at all) for that reason only.
        if (CALL_METHODS.has(method)) {
          expect([method, ((await handleCall(ctx, message)) as { error?: { message: string } }).error?.message]).toEqual([
            method,
            method === 'driver_vendor_passthru'
              ? 'Could not find the following driver(s) or hardware type(s): missing.'
              : 'Node missing could not be found.',
          ]);
        } else {
          // Some handlers (a heartbeat) only log a node that is gone; none may refuse the message itself.
          const outcome: unknown = await handleMessage(ctx, message).then(
            () => 'handled',
            (err: Error) => err.message,
          );
          expect([method, outcome]).not.toEqual([method, expect.stringMatching(/RPC version|cannot be cast|unknown action/)]);
        }
      }
    }
  });

  it('fails the record of a message it cannot handle, with a log line naming the DLQ', async () => {
    const ctx = makeConductorContext();
    const lines: { level: string; message: string; extra: unknown }[] = [];
    for (const level of ['error', 'warn'] as const) {
      (ctx.log as unknown as Record<string, unknown>)[level] = (message: string, extra: unknown) => lines.push({ level, message, extra });
    }
    const newer = JSON.stringify({ rpc: '9.0', method: 'do_node_deploy', args: {}, context: { request_id: 'r' }, message_id: 'x1' });
    const unknown = JSON.stringify({ rpc: '1.0', method: 'do_magic', args: {}, context: { request_id: 'r' }, message_id: 'x2' });
    // Every record failed: the batch fails whole (Powertools' FullBatchFailureError) and SQS redelivers each.
    await expect(handleSqsBatch(ctx, sqsEvent([newer, unknown, 'not json']))).rejects.toThrow('All records failed processing');
    expect(lines.map((l) => [l.level, l.message]).sort()).toEqual([
      ['error', 'Dropping to DLQ: not an RPC message'],
      ['error', 'RPC message cannot be handled by this conductor; SQS will move it to the DLQ after its retries'],
      ['error', 'RPC message cannot be handled by this conductor; SQS will move it to the DLQ after its retries'],
    ]);
    expect(lines.find((l) => (l.extra as { method?: string }).method === 'do_node_deploy')?.extra).toMatchObject({
      method: 'do_node_deploy',
      error: expect.stringContaining(`RPC version 9.0 of do_node_deploy is newer than this conductor's ${RPC_API_VERSION}`),
    });
  });
});
