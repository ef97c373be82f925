import { syncPowerStates } from '../../../functions/conductor/flows/power-sync';
import { failTimedOutWaits } from '../../../functions/conductor/flows/timeouts';
import type { Task } from '../../../functions/drivers/base';
import { fakePower } from '../../../functions/drivers/fake';
import { makeConductorContext, makeNode } from '../helpers/builders';

/** The fake BMC reports `read`, and (if given) takes power actions with `set` instead of recording them. */
function withBmc(read: () => Promise<string>, set?: (task: Task, state: string) => Promise<void>) {
  const { getPowerState, setPowerState } = fakePower;
  fakePower.getPowerState = read;
  if (set) fakePower.setPowerState = set;
  return () => {
    fakePower.getPowerState = getPowerState;
    fakePower.setPowerState = setPowerState;
  };
}

describe('power state sync', () => {
  it('powers the hardware back to the recorded state by default, counting the runs until it stays', async () => {
    const ctx = makeConductorContext();
    const node = await ctx.nodes.create(makeNode({ provision_state: 'active', power_state: 'power on', last_error: 'old' }));
    const asked: string[] = [];
    const restore = withBmc(
      async () => 'power off',
      async (_task, state) => void asked.push(state),
    );
    try {
      expect(await syncPowerStates(ctx)).toMatchObject({ checked: 1, forced: 1, corrected: 0 });
      expect(asked).toEqual(['power on']);
      const after = await ctx.nodes.get(node.uuid);
      expect(after).toMatchObject({ power_state: 'power on', target_power_state: null, reservation: null, last_error: null });
      expect(after.driver_internal_info.power_sync_failures).toBe(1);
    } finally {
      restore();
    }
    // The BMC now reports the recorded state: the count goes.
    expect(await syncPowerStates(ctx)).toMatchObject({ checked: 1, forced: 0 });
    expect((await ctx.nodes.get(node.uuid)).driver_internal_info.power_sync_failures).toBeUndefined();
  });

  it('puts hardware that keeps differing into maintenance after the retries, with the state it reports', async () => {
    const ctx = makeConductorContext({ powerSync: { force: true, maxRetries: 2, workers: 8 } });
    const node = await ctx.nodes.create(makeNode({ provision_state: 'active', power_state: 'power on' }));
    const restore = withBmc(
      async () => 'power off',
      async () => {},
    );
    try {
      expect(await syncPowerStates(ctx)).toMatchObject({ forced: 1 });
      expect(await syncPowerStates(ctx)).toMatchObject({ forced: 1 });
      expect(await syncPowerStates(ctx)).toMatchObject({ forced: 0, maintenance: 1 });
    } finally {
      restore();
    }
    const down = await ctx.nodes.get(node.uuid);
    expect(down).toMatchObject({ maintenance: true, fault: 'power failure', power_state: 'power off' });
    expect(down.maintenance_reason).toBe(
      `During sync_power_state, max retries exceeded for node ${node.uuid}, node state power off does not match expected state 'power on'. Updating DB state to 'power off' Switching node to maintenance mode.`,
    );
    expect(down.last_error).toBe(down.maintenance_reason);
  });

  it('records the failure of the power action it forced, and keeps counting', async () => {
    const ctx = makeConductorContext();
    const node = await ctx.nodes.create(makeNode({ provision_state: 'active', power_state: 'power on' }));
    const restore = withBmc(
      async () => 'power off',
      async () => {
        throw new Error('BMC busy');
      },
    );
    try {
      expect(await syncPowerStates(ctx)).toMatchObject({ forced: 0 });
    } finally {
      restore();
    }
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({
      power_state: 'power on',
      target_power_state: null,
      reservation: null,
      last_error: "Failed to change power state to 'power on' by 'power on': BMC busy",
      driver_internal_info: { power_sync_failures: 1 },
    });
  });

  it('records the state read instead with force_power_state_during_sync off, or for a node that may not be powered off', async () => {
    for (const [config, fields] of [
      [{ powerSync: { force: false, maxRetries: 3, workers: 8 } }, {}],
      [{}, { disable_power_off: true }],
    ] as const) {
      const ctx = makeConductorContext(config);
      const node = await ctx.nodes.create(makeNode({ provision_state: 'active', power_state: 'power on', ...fields }));
      const asked: string[] = [];
      const restore = withBmc(
        async () => 'power off',
        async (_task, state) => void asked.push(state),
      );
      try {
        expect(await syncPowerStates(ctx)).toMatchObject({ checked: 1, corrected: 1, forced: 0 });
      } finally {
        restore();
      }
      expect(asked).toEqual([]);
      expect((await ctx.nodes.get(node.uuid)).power_state).toBe('power off');
    }
  });

  it('records the state of a node that has none, and skips one whose power settings are not valid', async () => {
    const ctx = makeConductorContext();
    const node = await ctx.nodes.create(makeNode({ provision_state: 'manageable', power_state: null }));
    const restore = withBmc(async () => 'power on');
    try {
      expect(await syncPowerStates(ctx)).toMatchObject({ checked: 1, corrected: 1 });
      expect((await ctx.nodes.get(node.uuid)).power_state).toBe('power on');
    } finally {
      restore();
    }
    const invalid = await ctx.nodes.create(makeNode({ provision_state: 'manageable', power_state: null }));
    const original = fakePower.validate;
    fakePower.validate = async () => {
      throw new Error('Missing the following parameters in driver_info');
    };
    try {
      expect(await syncPowerStates(ctx)).toMatchObject({ checked: 1, failed: 0 });
    } finally {
      fakePower.validate = original;
    }
    expect((await ctx.nodes.get(invalid.uuid)).driver_internal_info.power_sync_failures).toBeUndefined();
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

  it('leaves alone nodes being worked on, in maintenance for other reasons, in a wait state or enroll, or updating firmware', async () => {
    const ctx = makeConductorContext();
    await ctx.nodes.create(makeNode({ provision_state: 'active', power_state: 'power on', target_power_state: 'power off' }));
    await ctx.nodes.create(makeNode({ provision_state: 'active', power_state: 'power on', maintenance: true }));
    await ctx.nodes.create(makeNode({ provision_state: 'clean wait', power_state: 'power on' }));
    await ctx.nodes.create(makeNode({ provision_state: 'enroll', power_state: null }));
    await ctx.nodes.create(
      makeNode({ provision_state: 'service wait', power_state: 'power on', driver_internal_info: { redfish_fw_updates: [] } }),
    );
    await ctx.nodes.create(
      makeNode({ provision_state: 'active', power_state: 'power on', driver_internal_info: { redfish_fw_updates: [] } }),
    );
    const locked = await ctx.nodes.create(makeNode({ provision_state: 'active', power_state: 'power on' }));
    await ctx.nodes.reserve(locked.uuid, { host: 'x', token: 't', ttlSeconds: 60 });
    const restore = withBmc(async () => 'power off');
    try {
      expect(await syncPowerStates(ctx)).toMatchObject({ checked: 0, corrected: 0, forced: 0 });
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
