/** Every last_error the conductor saves becomes an ERROR event in the node's history, typed as Ironic types it. */
import { Logger } from '@aws-lambda-powertools/logger';
import { manageNodeHistory, recordingFailures } from '../../../functions/conductor/history';
import { NodeHistory } from '../../../functions/objects/node-history';
import type { Node } from '../../../functions/objects/node';
import { failFlow } from '../../../functions/conductor/flows/failure';
import type { Step } from '../../../functions/drivers/base';
import { advanceTo, setSteps } from '../../../functions/conductor/flows/steps';
import { changeNodePowerState } from '../../../functions/conductor/flows/power';
import { failStuckNodes } from '../../../functions/conductor/flows/stuck';
import { fakePower } from '../../../functions/drivers/fake';
import { makeConductorContext, makeNode } from '../helpers/builders';
import { MemoryNodeHistoryStore } from '../helpers/memory-stores';

function setup() {
  const base = makeConductorContext();
  const history = new MemoryNodeHistoryStore();
  base.nodes.history = history;
  const nodes = recordingFailures(base.nodes, { history, conductor: 'conductor:1', log: base.log });
  return { ctx: { ...base, nodes }, memory: base.nodes, history };
}

describe('recordingFailures', () => {
  it('records each step a flow starts as an INFO event, in the order they run, and prunes nothing as it writes', async () => {
    const { ctx, memory, history } = setup();
    const node = await memory.create(makeNode({ provision_state: 'deploying', target_provision_state: 'active' }));
    const steps: Step[] = [
      { interface: 'deploy', step: 'deploy', priority: 100, args: {} },
      { interface: 'deploy', step: 'write_image', priority: 80, args: {} },
      { interface: 'deploy', step: 'burnin_cpu', priority: 70, args: {} },
      { interface: 'deploy', step: 'boot_instance', priority: 20, args: {} },
    ];
    let current = await memory.get(node.uuid);
    setSteps(current, 'deploy', steps);
    current = await ctx.nodes.save(current);
    expect(history.items).toEqual([]);
    for (let i = 0; i <= steps.length; i++) {
      advanceTo(current, 'deploy', i);
      current = await ctx.nodes.save(current);
    }
    expect(history.items.map((r) => [r.severity, r.event_type, r.event])).toEqual([
      ['INFO', 'deploying', 'Deploy step deploy.deploy (priority 100) started'],
      ['INFO', 'deploying', 'Deploy step deploy.write_image (priority 80) started'],
      ['INFO', 'deploying', 'Deploy step deploy.burnin_cpu (priority 70) started'],
      ['INFO', 'deploying', 'Deploy step deploy.boot_instance (priority 20) started'],
    ]);
    // A second flow adds its own; trimming is the periodic task's (below).
    setSteps(current, 'deploy', steps.slice(0, 1));
    advanceTo(current, 'deploy', 0);
    await ctx.nodes.save(current);
    expect(history.items).toHaveLength(5);
  });

  it('records a failed deploy as a "deploying" ERROR event of this conductor', async () => {
    const { ctx, memory, history } = setup();
    const node = await memory.create(makeNode({ provision_state: 'deploying', target_provision_state: 'active' }));
    await failFlow(ctx, node, 'deploy', 'Deploy step deploy.deploy failed: boom');
    expect((await memory.get(node.uuid)).provision_state).toBe('deploy failed');
    expect(history.items.map((r) => ({ ...r.toData() }))).toEqual([
      expect.objectContaining({
        node_uuid: node.uuid,
        event: 'Deploy step deploy.deploy failed: boom',
        event_type: 'deploying',
        severity: 'ERROR',
        conductor: 'conductor:1',
        user: null,
      }),
    ]);
  });

  it('records the state the failure left, its target, and the seconds the node spent in the state that failed', async () => {
    const { ctx, memory, history } = setup();
    const entered = new Date(Date.now() - 95_000).toISOString();
    const node = await memory.create(
      makeNode({ provision_state: 'deploying', target_provision_state: 'active', provision_updated_at: entered }),
    );
    await failFlow(ctx, node, 'deploy', 'Deploy step deploy.deploy failed: boom');
    const [record] = history.items;
    expect(record?.toData()).toMatchObject({ project: null, state: 'deploy failed', target_provision_state: 'active' });
    // 95 s in "deploying", give or take the test's own time; not 0 (the failure's own transition).
    expect(record?.duration_seconds).toBeGreaterThanOrEqual(95);
    expect(record?.duration_seconds).toBeLessThan(105);
    // A node that never changed provision state has no duration.
    const fresh = await memory.create(
      makeNode({ provision_state: 'deploying', target_provision_state: 'active', provision_updated_at: null }),
    );
    await failFlow(ctx, fresh, 'deploy', 'boom');
    expect(history.items[1]?.duration_seconds).toBeNull();
  });

  it('records a failed power action untyped (Ironic\'s "UNKNOWN") and a successful one not at all', async () => {
    const { ctx, memory, history } = setup();
    const node = await memory.create(makeNode({ power_state: 'power off' }));
    node.target_power_state = 'power on';
    await memory.save(node, { lockFor: { host: 'api', token: 'rpc:1', ttlSeconds: 300 } });
    const original = fakePower.setPowerState;
    fakePower.setPowerState = async () => {
      throw new Error('BMC unreachable');
    };
    try {
      await changeNodePowerState(ctx, { node_id: node.uuid, lock_token: 'rpc:1', message_id: '1', target: 'power on' });
    } finally {
      fakePower.setPowerState = original;
    }
    const again = await memory.get(node.uuid);
    again.target_power_state = 'power on';
    await memory.save(again, { lockFor: { host: 'api', token: 'rpc:2', ttlSeconds: 300 } });
    await changeNodePowerState(ctx, { node_id: node.uuid, lock_token: 'rpc:2', message_id: '2', target: 'power on' });
    expect(history.items.map((r) => [r.event_type, r.event])).toEqual([
      ['UNKNOWN', "Failed to change power state to 'power on' by 'power on': BMC unreachable"],
    ]);
  });

  it('records a node failed for its dead conductor as a "transition" event', async () => {
    const { ctx, memory, history } = setup();
    const node = await memory.create(makeNode({ provision_state: 'cleaning', target_provision_state: 'available' }));
    expect((await failStuckNodes(ctx)).failed).toBe(1);
    expect(history.items.map((r) => [r.node_uuid, r.event_type])).toEqual([[node.uuid, 'transition']]);
  });

  it("keeps only the newest max entries of a node once the periodic task ran, as Ironic's node_history_max_entries", async () => {
    const { ctx, memory, history } = setup();
    const node = await memory.create(makeNode());
    for (const text of ['one', 'two', 'three']) {
      const fresh = await ctx.nodes.get(node.uuid);
      fresh.last_error = text;
      await ctx.nodes.save(fresh);
    }
    expect(history.items.map((r) => r.event)).toEqual(['one', 'two', 'three']);
    await manageNodeHistory({ nodes: memory, history, log: ctx.log }, { maxEntries: 2 });
    expect(history.items.map((r) => r.event)).toEqual(['two', 'three']);
  });

  it("writes a failure's ERROR event in the node's own save, so a save that loses writes none", async () => {
    const { ctx, memory, history } = setup();
    const node = await memory.create(makeNode({ provision_state: 'deploying', target_provision_state: 'active' }));
    const saves: (string | null | undefined)[] = [];
    const save = memory.save.bind(memory);
    memory.save = (n, options) => {
      saves.push(options?.event?.event);
      return save(n, options);
    };
    const stale = await ctx.nodes.get(node.uuid);
    await failFlow(ctx, await ctx.nodes.get(node.uuid), 'deploy', 'boom');
    expect(saves).toEqual(['boom']);
    stale.last_error = 'too late';
    await expect(ctx.nodes.save(stale)).rejects.toThrow(/changed by another request/);
    expect(history.items.map((r) => r.event)).toEqual(['boom']);
  });

  it('still saves the failure when its history entry cannot be written', async () => {
    const { ctx, memory, history } = setup();
    history.failCreate = true;
    const node = await memory.create(makeNode());
    node.last_error = 'it broke';
    await ctx.nodes.save(node);
    expect((await memory.get(node.uuid)).last_error).toBe('it broke');
  });
});

describe('manage_node_history', () => {
  const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
  /** The nodes the task walks: only their UUIDs matter. */
  const nodes = { sweep: async () => ({ nodes: ['a', 'b', 'c'].map((uuid) => ({ uuid }) as Node) }) };
  const day = 86_400_000;
  const now = Date.parse('2026-11-22T12:00:00Z');
  function events(history: MemoryNodeHistoryStore, node: string, count: number, ageDays = 0): void {
    for (let i = 0; i < count; i++) {
      history.items.push(
        new NodeHistory({
          uuid: `${node}-${ageDays}d-${i}`,
          node_uuid: node,
          event: `e${i}`,
          severity: 'INFO',
          created_at: new Date(now - ageDays * day + i).toISOString(),
        }),
      );
    }
  }

  it("deletes each node's oldest records beyond the maximum and leaves nodes under it alone", async () => {
    const history = new MemoryNodeHistoryStore();
    events(history, 'a', 5);
    events(history, 'b', 2);
    expect(await manageNodeHistory({ nodes, history, log }, { maxEntries: 3, now: () => now })).toEqual({ deleted: 2, nodes: 1 });
    expect(history.items.map((r) => r.uuid)).toEqual(['a-0d-2', 'a-0d-3', 'a-0d-4', 'b-0d-0', 'b-0d-1']);
    expect(await manageNodeHistory({ nodes, history, log }, { maxEntries: 3, now: () => now })).toEqual({ deleted: 0, nodes: 0 });
  });

  it('stops after about batchCount records, node by node, leaving the rest to the next run', async () => {
    const history = new MemoryNodeHistoryStore();
    events(history, 'a', 4);
    events(history, 'b', 4);
    events(history, 'c', 4);
    expect(await manageNodeHistory({ nodes, history, log }, { maxEntries: 1, batchCount: 4, now: () => now })).toEqual({
      deleted: 6,
      nodes: 2,
    });
    expect(history.items.filter((r) => r.node_uuid === 'c')).toHaveLength(4);
    expect(await manageNodeHistory({ nodes, history, log }, { maxEntries: 1, batchCount: 4, now: () => now })).toEqual({
      deleted: 3,
      nodes: 1,
    });
    expect(history.items.map((r) => r.uuid)).toEqual(['a-0d-3', 'b-0d-3', 'c-0d-3']);
  });

  it('counts and deletes only records older than the minimum days', async () => {
    const history = new MemoryNodeHistoryStore();
    events(history, 'a', 3, 10);
    events(history, 'a', 3, 0);
    // Six records, but only the three ten days old count against a maximum of 1.
    expect(await manageNodeHistory({ nodes, history, log }, { maxEntries: 1, minimumDays: 5, now: () => now })).toEqual({
      deleted: 2,
      nodes: 1,
    });
    expect(history.items.map((r) => r.uuid)).toEqual(['a-10d-2', 'a-0d-0', 'a-0d-1', 'a-0d-2']);
  });

  it('does nothing when the maximum or the batch count is 0, as Ironic leaves the task off', async () => {
    const history = new MemoryNodeHistoryStore();
    events(history, 'a', 5);
    expect(await manageNodeHistory({ nodes, history, log }, { maxEntries: 0, now: () => now })).toEqual({ deleted: 0, nodes: 0 });
    expect(await manageNodeHistory({ nodes, history, log }, { maxEntries: 1, batchCount: 0, now: () => now })).toEqual({
      deleted: 0,
      nodes: 0,
    });
    expect(history.items).toHaveLength(5);
  });
});
