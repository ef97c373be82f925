/**
 * Work a conductor call answers before doing (virtual media actions, async vendor passthru): the
 * call locks and validates, hands the lock to a cast it sends itself, and the cast's handler does
 * the work and releases the lock; a conductor pinned below RPC 1.5 does the work within the call.
 */
import { handleCall, handleMessage } from '../../../functions/conductor/entries/rpc';
import type { ConductorContext } from '../../../functions/conductor/context';
import type { ManagementInterface } from '../../../functions/drivers/base';
import { fakeManagement, fakeVendor } from '../../../functions/drivers/fake';
import type { PassthruMethod } from '../../../functions/drivers/vendor';
import { ConductorRpcClient } from '../../../functions/rpc/client';
import { RPC_API_VERSION, type RpcMessage } from '../../../functions/rpc/messages';
import { makeConductorContext, makeNode } from '../helpers/builders';

const call = (method: string, args: Record<string, unknown>) =>
  ({ rpc: RPC_API_VERSION, method, args, context: { request_id: 'req-1' }, message_id: 'm' }) as never;

/** A context whose casts are kept (queue URL and message) instead of sent. */
function withCasts(versionCap = RPC_API_VERSION, queues: Record<string, string> = { '': 'q-default' }) {
  const sent: { queue: string; message: RpcMessage }[] = [];
  const sqs = {
    send: async (command: { input: { QueueUrl: string; MessageBody: string } }) => {
      sent.push({ queue: command.input.QueueUrl, message: JSON.parse(command.input.MessageBody) as RpcMessage });
      return {};
    },
  } as never;
  const ctx: ConductorContext & ReturnType<typeof makeConductorContext> = {
    ...makeConductorContext(),
    rpc: new ConductorRpcClient({ sqs, queues, versionCap }),
  };
  return { ctx, sent };
}

async function withMethods<T extends object>(target: T, methods: Partial<T>, fn: () => Promise<void>): Promise<void> {
  const before = Object.fromEntries(Object.keys(methods).map((k) => [k, (target as Record<string, unknown>)[k]]));
  Object.assign(target, methods);
  try {
    await fn();
  } finally {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete (target as Record<string, unknown>)[k];
      else (target as Record<string, unknown>)[k] = v;
    }
  }
}

const attach = (node: string) =>
  call('attach_virtual_media', { node_id: node, device_type: 'cdrom', image_url: 'http://img/x.iso', image_download_source: 'http' });

describe('virtual media: the action runs after the answer', () => {
  it('answers with the node locked for a cast, which attaches, clears the lock and keeps last_error cleared', async () => {
    const { ctx, sent } = withCasts();
    const node = await ctx.nodes.create(makeNode({ last_error: 'old' }));
    const seen: unknown[] = [];
    await withMethods(
      fakeManagement as ManagementInterface,
      { attachVirtualMedia: async (task, device, url) => void seen.push([task.node.reservation, device, url]) },
      async () => {
        expect(await handleCall(ctx, attach(node.uuid))).toEqual({ result: null });
        // Answered: nothing done on the BMC yet, the node locked for the message, last_error cleared.
        expect(seen).toEqual([]);
        const locked = await ctx.nodes.get(node.uuid);
        expect([locked.reservation, locked.last_error, locked.storeMeta?.lockHolder]).toEqual([
          'conductor:live',
          null,
          `rpc:${sent[0]?.message.message_id}`,
        ]);
        expect(sent.map((s) => [s.queue, s.message.rpc, s.message.method, s.message.context, s.message.args])).toEqual([
          [
            'q-default',
            '1.5',
            'do_attach_virtual_media',
            { request_id: 'req-1' },
            {
              node_id: node.uuid,
              device_type: 'cdrom',
              image_url: 'http://img/x.iso',
              image_download_source: 'http',
              lock_token: `rpc:${sent[0]?.message.message_id}`,
            },
          ],
        ]);
        // Another request meanwhile finds the node locked, as while Ironic's worker runs.
        expect(await handleCall(ctx, call('detach_virtual_media', { node_id: node.uuid }))).toMatchObject({
          error: { name: 'NodeLocked', code: 409 },
        });
        await handleMessage(ctx, sent[0]!.message);
        // A redelivered copy does nothing: the lock is no longer the message's.
        await handleMessage(ctx, sent[0]!.message);
      },
    );
    expect(seen).toEqual([['conductor:live', 'cdrom', 'http://img/x.iso']]);
    const saved = await ctx.nodes.get(node.uuid);
    expect([saved.reservation, saved.last_error]).toEqual([null, null]);
  });

  it('records a failure of the cast as last_error, and releases the lock', async () => {
    const { ctx, sent } = withCasts();
    const node = await ctx.nodes.create(makeNode());
    expect(await handleCall(ctx, call('detach_virtual_media', { node_id: node.uuid, device_types: ['cdrom'] }))).toEqual({ result: null });
    expect((await ctx.nodes.get(node.uuid)).last_error).toBeNull();
    await handleMessage(ctx, sent[0]!.message);
    const saved = await ctx.nodes.get(node.uuid);
    expect([saved.reservation, saved.last_error]).toEqual([
      null,
      `Could not detach device(s) ['cdrom'] from node ${node.uuid}: Driver fake-hardware does not support detach_virtual_media (disabled or not implemented).`,
    ]);
  });

  it('releases the lock and answers the error when the cast cannot be sent (no queue for the group)', async () => {
    const { ctx, sent } = withCasts(RPC_API_VERSION, { other: 'q-other' });
    const node = await ctx.nodes.create(makeNode({ last_error: 'old' }));
    expect(await handleCall(ctx, attach(node.uuid))).toMatchObject({ error: { name: 'TemporaryFailure', code: 503 } });
    expect(sent).toEqual([]);
    const saved = await ctx.nodes.get(node.uuid);
    expect([saved.reservation, saved.last_error]).toEqual([null, null]);
  });

  it('runs the action within the call when pinned below RPC 1.5', async () => {
    const { ctx, sent } = withCasts('1.4');
    const node = await ctx.nodes.create(makeNode());
    expect(await handleCall(ctx, attach(node.uuid))).toEqual({ result: null });
    expect(sent).toEqual([]);
    const saved = await ctx.nodes.get(node.uuid);
    expect([saved.reservation, saved.last_error]).toEqual([null, expect.stringMatching(/^Could not attach device cdrom to node /)]);
  });
});

describe('vendor passthru: an async method runs after the answer', () => {
  const routes = fakeVendor.vendorRoutes as Record<string, PassthruMethod>;
  const passthru = (node: string, method: string, info: Record<string, unknown> = { bar: 'kazoo' }) =>
    call('vendor_passthru', { node_id: node, method, http_method: 'post', info });

  it('answers 202’s result with the node locked for the cast, which runs the method and releases it', async () => {
    const { ctx, sent } = withCasts();
    const node = await ctx.nodes.create(makeNode());
    const ran: unknown[] = [];
    const original = routes.second_method!;
    await withMethods(
      routes,
      { second_method: { ...original, run: async (task, http, args) => void ran.push([task.node.reservation, http, args]) } },
      async () => {
        expect(await handleCall(ctx, passthru(node.uuid, 'second_method'))).toEqual({
          result: { return: null, async: true, attach: false },
        });
        expect(ran).toEqual([]);
        expect((await ctx.nodes.get(node.uuid)).reservation).toBe('conductor:live');
        expect(sent.map((s) => [s.message.method, s.message.args])).toEqual([
          [
            'do_vendor_passthru',
            {
              node_id: node.uuid,
              method: 'second_method',
              http_method: 'post',
              info: { bar: 'kazoo' },
              lock_token: expect.stringMatching(/^rpc:/),
            },
          ],
        ]);
        await handleMessage(ctx, sent[0]!.message);
      },
    );
    expect(ran).toEqual([['conductor:live', 'POST', { bar: 'kazoo' }]]);
    expect((await ctx.nodes.get(node.uuid)).reservation).toBeNull();
  });

  it('refuses bad arguments in the call, leaving the node unlocked and nothing cast', async () => {
    const { ctx, sent } = withCasts();
    const node = await ctx.nodes.create(makeNode());
    expect(await handleCall(ctx, passthru(node.uuid, 'second_method', {}))).toEqual({
      error: { name: 'MissingParameterValue', code: 400, message: "Parameter 'bar' not passed to method 'second_method'." },
    });
    expect([sent, (await ctx.nodes.get(node.uuid)).reservation]).toEqual([[], null]);
  });

  it('records a failure as Ironic’s task manager does: only when the node has no last_error yet', async () => {
    const { ctx, sent } = withCasts();
    const fresh = await ctx.nodes.create(makeNode());
    const erred = await ctx.nodes.create(makeNode({ last_error: 'earlier' }));
    const original = routes.second_method!;
    await withMethods(
      routes,
      {
        second_method: {
          ...original,
          run: async () => {
            throw new Error('the BMC said no');
          },
        },
      },
      async () => {
        await handleCall(ctx, passthru(fresh.uuid, 'second_method'));
        await handleCall(ctx, passthru(erred.uuid, 'second_method'));
        for (const s of sent) await handleMessage(ctx, s.message);
      },
    );
    const [a, b] = [await ctx.nodes.get(fresh.uuid), await ctx.nodes.get(erred.uuid)];
    expect([a.last_error, a.reservation, b.last_error, b.reservation]).toEqual([
      'Async execution of second_method failed with error: the BMC said no',
      null,
      'earlier',
      null,
    ]);
  });

  it('casts a method that needs no exclusive lock without locking; a sync method still runs in the call', async () => {
    const { ctx, sent } = withCasts();
    const node = await ctx.nodes.create(makeNode());
    expect(await handleCall(ctx, passthru(node.uuid, 'fourth_method_shared_lock', { bar: 'woof' }))).toEqual({
      result: { return: null, async: true, attach: false },
    });
    expect((await ctx.nodes.get(node.uuid)).reservation).toBeNull();
    expect(sent.map((s) => [s.message.method, 'lock_token' in s.message.args])).toEqual([['do_vendor_passthru', false]]);
    await handleMessage(ctx, sent[0]!.message);
    expect(await handleCall(ctx, passthru(node.uuid, 'third_method_sync', { bar: 'meow' }))).toEqual({
      result: { return: true, async: false, attach: false },
    });
    expect(sent).toHaveLength(1);
  });

  it('runs an async method within the call when pinned below RPC 1.5', async () => {
    const { ctx, sent } = withCasts('1.4');
    const node = await ctx.nodes.create(makeNode());
    expect(await handleCall(ctx, passthru(node.uuid, 'second_method'))).toEqual({ result: { return: null, async: true, attach: false } });
    expect([sent, (await ctx.nodes.get(node.uuid)).reservation]).toEqual([[], null]);
  });
});
