/** Exactly-once actions under at-least-once delivery: concurrent copies of a message, and power actions whose invocation died. */
import { changeNodePowerState } from '../../../functions/conductor/flows/power';
import { syncPowerStates } from '../../../functions/conductor/flows/power-sync';
import { doNodeDeploy } from '../../../functions/conductor/flows/deploy';
import { fakePower } from '../../../functions/drivers/fake';
import { makeConductorContext, makeNode } from '../helpers/builders';

it('runs a power action once when two copies of its message are handled concurrently', async () => {
  const ctx = makeConductorContext();
  const node = await ctx.nodes.create(makeNode({ power_state: 'power off' }));
  node.target_power_state = 'power on';
  await ctx.nodes.save(node, { lockFor: { host: 'api', token: 'rpc:d1', ttlSeconds: 300 } });
  const calls: string[] = [];
  const original = fakePower.setPowerState;
  fakePower.setPowerState = async (task, state) => {
    calls.push(state);
    await new Promise((r) => setTimeout(r, 5));
    await original(task, state);
  };
  try {
    const args = { node_id: node.uuid, lock_token: 'rpc:d1', message_id: 'd1', target: 'power on' };
    await Promise.all([changeNodePowerState(ctx, args), changeNodePowerState(ctx, args), changeNodePowerState(ctx, args)]);
  } finally {
    fakePower.setPowerState = original;
  }
  expect(calls).toEqual(['power on']);
  expect(await ctx.nodes.get(node.uuid)).toMatchObject({ power_state: 'power on', target_power_state: null, reservation: null });
});

it('starts one steps execution for concurrent copies of a deploy message, its lock handed to run:<message>', async () => {
  const ctx = makeConductorContext();
  const node = await ctx.nodes.create(makeNode({ provision_state: 'available' }));
  node.processEvent('deploy');
  await ctx.nodes.save(node, { lockFor: { host: 'api', token: 'rpc:d2', ttlSeconds: 300 } });
  const args = { node_id: node.uuid, lock_token: 'rpc:d2', message_id: 'd2' };
  await Promise.all([doNodeDeploy(ctx, args), doNodeDeploy(ctx, args)]);
  expect(ctx.steps.started.map((s) => s.input.owner)).toEqual(['run:d2']);
  expect(ctx.nodes.items.get(node.uuid)?.lockOwner).toBe('run:d2');
});

it('claims a deploy message, stores its steps and records its execution in one node write', async () => {
  const ctx = makeConductorContext();
  const node = await ctx.nodes.create(makeNode({ provision_state: 'available' }));
  node.processEvent('deploy');
  await ctx.nodes.save(node, { lockFor: { host: 'api', token: 'rpc:d4', ttlSeconds: 300 } });
  const save = ctx.nodes.save.bind(ctx.nodes);
  const written: { owner: string | undefined; steps: unknown; execution: unknown }[] = [];
  ctx.nodes.save = async (n, options) => {
    const saved = await save(n, options);
    written.push({
      owner: ctx.nodes.items.get(n.uuid)?.lockOwner,
      steps: (n.driver_internal_info.deploy_steps as { step: string }[] | undefined)?.map((s) => s.step),
      execution: n.driver_internal_info.steps_execution,
    });
    return saved;
  };
  await doNodeDeploy(ctx, { node_id: node.uuid, lock_token: 'rpc:d4', message_id: 'd4' });
  expect(written).toEqual([
    { owner: 'run:d4', steps: expect.arrayContaining(['deploy']), execution: expect.stringMatching(/^deploy-.*-d4$/) },
  ]);
  expect(ctx.steps.started.map((s) => s.name)).toEqual([written[0]!.execution]);
});

it('claims a deploy message that fails validation, then fails the deploy', async () => {
  const ctx = makeConductorContext();
  const node = await ctx.nodes.create(makeNode({ provision_state: 'available', driver: 'no-such-driver' }));
  node.processEvent('deploy');
  await ctx.nodes.save(node, { lockFor: { host: 'api', token: 'rpc:d5', ttlSeconds: 300 } });
  await doNodeDeploy(ctx, { node_id: node.uuid, lock_token: 'rpc:d5', message_id: 'd5' });
  expect(ctx.steps.started).toEqual([]);
  const stored = await ctx.nodes.get(node.uuid);
  expect(stored).toMatchObject({ provision_state: 'deploy failed', reservation: null });
  expect(String(stored.last_error)).toMatch(/^Failed to prepare to deploy: /);
  expect(stored.driver_internal_info.steps_execution).toBeUndefined();
});

it("has the power sync clear a power target whose invocation died, once its lock expired, with Ironic's message; a late copy then does nothing", async () => {
  const ctx = makeConductorContext();
  let now = Date.now();
  ctx.nodes.now = () => now;
  const node = await ctx.nodes.create(makeNode({ power_state: 'power off' }));
  node.target_power_state = 'power on';
  await ctx.nodes.save(node, { lockFor: { host: 'api', token: 'rpc:d3', ttlSeconds: 300 } });
  expect(await syncPowerStates(ctx, { now })).toMatchObject({ abandoned: 0 }); // still locked: someone may be on it
  now += 301_000;
  expect(await syncPowerStates(ctx, { now })).toMatchObject({ abandoned: 1 });
  expect(await ctx.nodes.get(node.uuid)).toMatchObject({
    power_state: 'power off',
    target_power_state: null,
    reservation: null,
    last_error: 'Pending power operation was aborted due to conductor restart',
  });
  await changeNodePowerState(ctx, { node_id: node.uuid, lock_token: 'rpc:d3', message_id: 'd3', target: 'power on' });
  expect((await ctx.nodes.get(node.uuid)).power_state).toBe('power off');
});
