import { syncPowerStates } from '../../../functions/conductor/flows/power-sync';
import { failTimedOutWaits } from '../../../functions/conductor/flows/timeouts';
import { fakePower } from '../../../functions/drivers/fake';
import { makeConductorContext, makeNode } from '../helpers/builders';

function withBmc(read: () => Promise<string>) {
  const original = fakePower.getPowerState;
  fakePower.getPowerState = read;
  return () => {
    fakePower.getPowerState = original;
  };
}

describe('power state sync', () => {
  it('records a power state changed out of band', async () => {
    const ctx = makeConductorContext();
    const node = await ctx.nodes.create(makeNode({ provision_state: 'active', power_state: 'power on' }));
    const restore = withBmc(async () => 'power off');
    try {
      expect(await syncPowerStates(ctx)).toMatchObject({ checked: 1, corrected: 1 });
    } finally {
      restore();
    }
    expect((await ctx.nodes.get(node.uuid)).power_state).toBe('power off');
  });

  it('puts a node whose BMC keeps failing into maintenance with fault "power failure", and takes it out once it answers', async () => {
    const ctx = makeConductorContext();
    const node = await ctx.nodes.create(makeNode({ provision_state: 'available', power_state: 'power off' }));
    let restore = withBmc(async () => {
      throw new Error('connection refused');
    });
    try {
      for (let run = 1; run <= 3; run++) {
        await syncPowerStates(ctx);
        const n = await ctx.nodes.get(node.uuid);
        expect({ run, maintenance: n.maintenance, failures: n.driver_internal_info.power_sync_failures }).toEqual({
          run,
          maintenance: false,
          failures: run,
        });
      }
      expect(await syncPowerStates(ctx)).toMatchObject({ maintenance: 1 });
    } finally {
      restore();
    }
    const down = await ctx.nodes.get(node.uuid);
    expect(down).toMatchObject({ maintenance: true, fault: 'power failure', power_state: null });
    expect(down.maintenance_reason).toBe(
      `During sync_power_state, max retries exceeded for node ${node.uuid}, node state None does not match expected state 'power off'. Updating DB state to 'None' Switching node to maintenance mode. Error: connection refused`,
    );
    restore = withBmc(async () => 'power off');
    try {
      expect(await syncPowerStates(ctx)).toMatchObject({ recovered: 1 });
    } finally {
      restore();
    }
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({
      maintenance: false,
      fault: null,
      maintenance_reason: null,
      power_state: 'power off',
    });
  });

  it('leaves alone nodes being worked on and nodes in maintenance for other reasons', async () => {
    const ctx = makeConductorContext();
    await ctx.nodes.create(makeNode({ provision_state: 'active', power_state: 'power on', target_power_state: 'power off' }));
    await ctx.nodes.create(makeNode({ provision_state: 'active', power_state: 'power on', maintenance: true }));
    const locked = await ctx.nodes.create(makeNode({ provision_state: 'active', power_state: 'power on' }));
    await ctx.nodes.reserve(locked.uuid, { host: 'x', token: 't', ttlSeconds: 60 });
    const restore = withBmc(async () => 'power off');
    try {
      expect(await syncPowerStates(ctx)).toMatchObject({ checked: 0, corrected: 0 });
    } finally {
      restore();
    }
  });
});

describe('wait timeouts', () => {
  it('fails a node waiting for its ramdisk past the callback timeout, with Ironic’s message', async () => {
    const ctx = makeConductorContext({ callbackTimeoutSeconds: 60 });
    const old = new Date(Date.now() - 10 * 60_000).toISOString();
    const waiting = await ctx.nodes.create(
      makeNode({
        provision_state: 'wait call-back',
        target_provision_state: 'active',
        provision_updated_at: old,
        driver_internal_info: { steps_execution: 'deploy-x' },
      }),
    );
    const fresh = await ctx.nodes.create(
      makeNode({ provision_state: 'wait call-back', target_provision_state: 'active', provision_updated_at: new Date().toISOString() }),
    );
    expect((await failTimedOutWaits(ctx)).failed).toBe(1);
    expect(await ctx.nodes.get(waiting.uuid)).toMatchObject({
      provision_state: 'deploy failed',
      last_error: `Timeout reached while waiting for callback for node ${waiting.uuid}`,
      reservation: null,
    });
    expect(ctx.steps.stopped).toEqual(['deploy-x']);
    expect((await ctx.nodes.get(fresh.uuid)).provision_state).toBe('wait call-back');
  });
});

describe('power state sync, page by page', () => {
  it('syncs one page per invocation and hands the next page to another before touching a BMC', async () => {
    const ctx = makeConductorContext();
    const uuids: string[] = [];
    for (let i = 0; i < 25; i++)
      uuids.push((await ctx.nodes.create(makeNode({ provision_state: 'active', power_state: 'power on' }))).uuid);
    const reads: string[] = [];
    const handedOn: string[] = [];
    const original = fakePower.getPowerState;
    fakePower.getPowerState = async (task) => {
      reads.push(task.node.uuid);
      return 'power on';
    };
    try {
      // What the conductor does: each invocation starts the next one at its page's last node.
      let marker: string | undefined;
      let invocations = 0;
      do {
        invocations++;
        const before: number = reads.length;
        const run = await syncPowerStates(ctx, {
          pageSize: 10,
          ...(marker !== undefined ? { marker } : {}),
          continueAt: async (next) => {
            expect(reads.length).toBe(before); // handed on before this page's BMCs are read
            handedOn.push(next);
          },
        });
        expect(run.checked).toBeLessThanOrEqual(10);
        marker = run.continuedAt;
      } while (marker !== undefined);
      expect(invocations).toBe(3);
      expect(handedOn).toHaveLength(2);
    } finally {
      fakePower.getPowerState = original;
    }
    // Every node exactly once.
    expect([...reads].sort()).toEqual([...uuids].sort());
  });

  it('pages through everything itself without a way to hand on', async () => {
    const ctx = makeConductorContext();
    for (let i = 0; i < 12; i++) await ctx.nodes.create(makeNode({ provision_state: 'active', power_state: 'power on' }));
    expect(await syncPowerStates(ctx, { pageSize: 5 })).toMatchObject({ checked: 12 });
  });
});
