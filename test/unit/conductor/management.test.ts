/** Management calls and casts in the conductor, with the fake driver and an in-memory node store. */
import { handleCall, handleMessage } from '../../../functions/conductor/entries/rpc';
import { changeNodeBootMode, changeNodeSecureBoot } from '../../../functions/conductor/flows/management';
import { fakeManagement } from '../../../functions/drivers/fake';
import { RPC_API_VERSION } from '../../../functions/rpc/messages';
import { makeConductorContext, makeNode } from '../helpers/builders';

type Ctx = ReturnType<typeof makeConductorContext>;

async function lockedFor(ctx: Ctx, token: string) {
  const node = await ctx.nodes.create(makeNode());
  await ctx.nodes.save(node, { lockFor: { host: 'api', token, ttlSeconds: 300 } });
  return node;
}

const call = (method: string, args: Record<string, unknown>) => ({
  rpc: RPC_API_VERSION,
  method,
  args,
  context: { request_id: 'req' },
  message_id: 'm',
});

/** Swap fake management methods for a test, restoring them afterwards. */
async function withManagement(overrides: Partial<typeof fakeManagement>, fn: () => Promise<void>): Promise<void> {
  const saved = { ...fakeManagement };
  Object.assign(fakeManagement, overrides);
  try {
    await fn();
  } finally {
    Object.assign(fakeManagement, saved);
  }
}

describe('management calls', () => {
  it('answer the boot device and its supported list, and release the lock they took', async () => {
    const ctx = makeConductorContext();
    const node = await ctx.nodes.create(makeNode());
    expect(await handleCall(ctx, call('get_boot_device', { node_id: node.uuid }) as never)).toEqual({
      result: { boot_device: 'pxe', persistent: false },
    });
    expect(await handleCall(ctx, call('get_supported_boot_devices', { node_id: node.uuid }) as never)).toEqual({ result: ['pxe'] });
    expect(await handleCall(ctx, call('set_boot_device', { node_id: node.uuid, device: 'pxe', persistent: true }) as never)).toEqual({
      result: null,
    });
    expect((await ctx.nodes.get(node.uuid)).reservation).toBeNull();
  });

  it("set the boot device as the request asks, whatever force_persistent_boot_device says (Ironic's set_boot_device skips node_set_boot_device)", async () => {
    const ctx = makeConductorContext();
    const never = await ctx.nodes.create(makeNode({ driver_info: { force_persistent_boot_device: 'Never' } }));
    const always = await ctx.nodes.create(makeNode({ driver_info: { force_persistent_boot_device: 'Always' } }));
    const seen: string[] = [];
    await withManagement(
      {
        async setBootDevice(task, device, persistent) {
          seen.push(`${task.node.driver_info.force_persistent_boot_device as string} ${device} ${String(persistent)}`);
        },
      },
      async () => {
        await handleCall(ctx, call('set_boot_device', { node_id: never.uuid, device: 'pxe', persistent: true }) as never);
        await handleCall(ctx, call('set_boot_device', { node_id: always.uuid, device: 'pxe', persistent: false }) as never);
      },
    );
    expect(seen).toEqual(['Never pxe true', 'Always pxe false']);
  });

  it('return the driver’s error and NodeLocked as errors for the API to raise, releasing the lock', async () => {
    const ctx = makeConductorContext();
    const node = await ctx.nodes.create(makeNode());
    expect(await handleCall(ctx, call('set_boot_device', { node_id: node.uuid, device: 'disk', persistent: false }) as never)).toEqual({
      error: { name: 'InvalidParameterValue', code: 400, message: 'Invalid boot device disk specified.' },
    });
    expect(await handleCall(ctx, call('inject_nmi', { node_id: node.uuid }) as never)).toMatchObject({
      error: { code: 400, message: 'Driver fake-hardware does not support inject_nmi (disabled or not implemented).' },
    });
    expect((await ctx.nodes.get(node.uuid)).reservation).toBeNull();
    await ctx.nodes.reserve(node.uuid, { host: 'elsewhere', token: 't', ttlSeconds: 300 });
    expect(await handleCall(ctx, call('get_boot_device', { node_id: node.uuid }) as never)).toMatchObject({
      error: { name: 'NodeLocked', code: 409 },
    });
  });
});

describe('boot mode and secure boot casts', () => {
  it('record the new mode, and do it once when the message is delivered twice', async () => {
    const ctx = makeConductorContext();
    const node = await lockedFor(ctx, 'rpc:b1');
    const writes: string[] = [];
    await withManagement(
      {
        getBootMode: async () => 'bios',
        setBootMode: async (_task, mode) => void writes.push(mode),
      },
      async () => {
        const args = { node_id: node.uuid, lock_token: 'rpc:b1', message_id: 'b1', target: 'uefi' };
        await changeNodeBootMode(ctx, args);
        await changeNodeBootMode(ctx, args);
      },
    );
    expect(writes).toEqual(['uefi']);
    const after = await ctx.nodes.get(node.uuid);
    expect([after.boot_mode, after.last_error, after.reservation]).toEqual(['uefi', null, null]);
  });

  it('change nothing when the BMC already reports the target', async () => {
    const ctx = makeConductorContext();
    const node = await lockedFor(ctx, 'rpc:s1');
    let written = false;
    await withManagement(
      {
        getSecureBootState: async () => true,
        setSecureBootState: async () => void (written = true),
      },
      () => changeNodeSecureBoot(ctx, { node_id: node.uuid, lock_token: 'rpc:s1', message_id: 's1', target: true }),
    );
    expect(written).toBe(false);
    const after = await ctx.nodes.get(node.uuid);
    expect([after.secure_boot, after.reservation]).toEqual([null, null]);
  });

  it('leave Ironic’s last_error when the driver fails', async () => {
    const ctx = makeConductorContext();
    const node = await lockedFor(ctx, 'rpc:s2');
    await handleMessage(ctx, {
      ...call('change_node_secure_boot', { node_id: node.uuid, lock_token: 'rpc:s2', target: false }),
      message_id: 's2',
    } as never);
    const after = await ctx.nodes.get(node.uuid);
    expect(after.last_error).toBe(
      "Failed to change secure_boot state to 'False': Driver fake-hardware does not support set_secure_boot_state (disabled or not implemented).",
    );
    expect(after.reservation).toBeNull();
  });
});
