/** Virtual media calls in the conductor, with fake-hardware and an in-memory node store. */
import { InvalidParameterValue } from '../../../functions/common/errors';
import { handleCall } from '../../../functions/conductor/entries/rpc';
import { fakeManagement } from '../../../functions/drivers/fake';
import type { ManagementInterface } from '../../../functions/drivers/base';
import { RPC_API_VERSION } from '../../../functions/rpc/messages';
import { makeConductorContext, makeNode } from '../helpers/builders';

const call = (method: string, args: Record<string, unknown>) =>
  ({ rpc: RPC_API_VERSION, method, args, context: { request_id: 'req' }, message_id: 'm' }) as never;

const attach = (node: string) =>
  call('attach_virtual_media', { node_id: node, device_type: 'cdrom', image_url: 'http://img/x.iso', image_download_source: 'http' });

/** Give fake management virtual media methods for a test, taking them away afterwards. */
async function withVmedia(methods: Partial<ManagementInterface>, fn: () => Promise<void>): Promise<void> {
  const target = fakeManagement as ManagementInterface;
  Object.assign(target, methods);
  try {
    await fn();
  } finally {
    for (const name of Object.keys(methods)) delete (target as unknown as Record<string, unknown>)[name];
  }
}

describe('virtual media on fake-hardware (Ironic’s FakeManagement has none)', () => {
  it('refuses the list with UnsupportedDriverExtension', async () => {
    const ctx = makeConductorContext();
    const node = await ctx.nodes.create(makeNode());
    expect(await handleCall(ctx, call('get_virtual_media', { node_id: node.uuid }))).toEqual({
      error: {
        name: 'UnsupportedDriverExtension',
        code: 400,
        message: 'Driver fake-hardware does not support get_virtual_media (disabled or not implemented).',
      },
    });
  });

  it('answers attach and detach, and records why they failed as last_error, releasing the lock', async () => {
    const ctx = makeConductorContext();
    const node = await ctx.nodes.create(makeNode({ last_error: 'old' }));
    expect(await handleCall(ctx, attach(node.uuid))).toEqual({ result: null });
    let saved = await ctx.nodes.get(node.uuid);
    expect([saved.last_error, saved.reservation]).toEqual([
      `Could not attach device cdrom to node ${node.uuid}: Driver fake-hardware does not support attach_virtual_media (disabled or not implemented).`,
      null,
    ]);
    expect(await handleCall(ctx, call('detach_virtual_media', { node_id: node.uuid, device_types: ['cdrom', 'disk'] }))).toEqual({
      result: null,
    });
    saved = await ctx.nodes.get(node.uuid);
    expect(saved.last_error).toBe(
      `Could not detach device(s) ['cdrom', 'disk'] from node ${node.uuid}: Driver fake-hardware does not support detach_virtual_media (disabled or not implemented).`,
    );
    await handleCall(ctx, call('detach_virtual_media', { node_id: node.uuid }));
    expect((await ctx.nodes.get(node.uuid)).last_error).toMatch(/^Could not detach device\(s\) None from node /);
  });
});

describe('virtual media through a management interface that has it', () => {
  it('attaches and detaches with the lock held, clearing last_error', async () => {
    const ctx = makeConductorContext();
    const node = await ctx.nodes.create(makeNode({ last_error: 'old' }));
    const seen: unknown[] = [];
    await withVmedia(
      {
        attachVirtualMedia: async (task, device, url, source) =>
          void seen.push(['attach', task.node.reservation !== null, device, url, source]),
        detachVirtualMedia: async (_task, devices) => void seen.push(['detach', devices]),
        getVirtualMedia: async () => [{ media_types: ['CD', 'DVD'], inserted: true, image: 'http://img/x.iso' }],
      },
      async () => {
        expect(await handleCall(ctx, attach(node.uuid))).toEqual({ result: null });
        expect(await handleCall(ctx, call('detach_virtual_media', { node_id: node.uuid, device_types: ['floppy'] }))).toEqual({
          result: null,
        });
        expect(await handleCall(ctx, call('detach_virtual_media', { node_id: node.uuid }))).toEqual({ result: null });
        expect(await handleCall(ctx, call('get_virtual_media', { node_id: node.uuid }))).toEqual({
          result: [{ media_types: ['CD', 'DVD'], inserted: true, image: 'http://img/x.iso' }],
        });
      },
    );
    expect(seen).toEqual([
      ['attach', true, 'cdrom', 'http://img/x.iso', 'http'],
      ['detach', ['floppy']],
      ['detach', undefined],
    ]);
    const saved = await ctx.nodes.get(node.uuid);
    expect([saved.last_error, saved.reservation]).toEqual([null, null]);
  });

  it('answers NodeLocked for a locked node and TemporaryFailure for a power failure in maintenance, changing nothing', async () => {
    const ctx = makeConductorContext();
    const locked = await ctx.nodes.create(makeNode({ last_error: 'kept' }));
    await ctx.nodes.reserve(locked.uuid, { host: 'elsewhere', token: 't', ttlSeconds: 300 });
    expect(await handleCall(ctx, attach(locked.uuid))).toMatchObject({ error: { name: 'NodeLocked', code: 409 } });
    expect((await ctx.nodes.get(locked.uuid)).last_error).toBe('kept');

    const failed = await ctx.nodes.create(makeNode({ maintenance: true, fault: 'power failure', last_error: 'kept' }));
    expect(await handleCall(ctx, call('detach_virtual_media', { node_id: failed.uuid }))).toEqual({
      error: {
        name: 'TemporaryFailure',
        code: 503,
        message: `Unable to detach virtual media for node ${failed.uuid} due to power failure state`,
      },
    });
    const saved = await ctx.nodes.get(failed.uuid);
    expect([saved.last_error, saved.reservation]).toEqual(['kept', null]);
  });

  it('answers a management validation failure to the API instead of recording it', async () => {
    const ctx = makeConductorContext();
    const node = await ctx.nodes.create(makeNode());
    const validate = fakeManagement.validate;
    fakeManagement.validate = async () => {
      throw new InvalidParameterValue('bad driver_info');
    };
    try {
      expect(await handleCall(ctx, attach(node.uuid))).toMatchObject({ error: { code: 400, message: 'bad driver_info' } });
    } finally {
      fakeManagement.validate = validate;
    }
    const saved = await ctx.nodes.get(node.uuid);
    expect([saved.last_error, saved.reservation]).toEqual([null, null]);
  });
});
