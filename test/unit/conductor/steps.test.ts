import { doNodeDeploy } from '../../../functions/conductor/flows/deploy';
import { failSteps, runStep } from '../../../functions/conductor/flows/run-steps';
import { allDriverSteps, driverSteps, requestedDriverStep, sortSteps } from '../../../functions/conductor/flows/steps';
import type { Driver } from '../../../functions/drivers/base';
import { loadDriver } from '../../../functions/drivers/registry';
import { makeConductorContext, makeNode } from '../helpers/builders';

async function deployingNode(ctx: ReturnType<typeof makeConductorContext>, token: string) {
  const node = await ctx.nodes.create(makeNode({ provision_state: 'available' }));
  node.processEvent('deploy');
  await ctx.nodes.save(node, { lockFor: { host: 'api', token, ttlSeconds: 300 } });
  return node;
}

describe('deploy on the steps machine', () => {
  it('hands the step list to one named execution, holding the lock handed over from the API', async () => {
    const ctx = makeConductorContext();
    const node = await deployingNode(ctx, 'rpc:m1');
    await doNodeDeploy(ctx, { node_id: node.uuid, lock_token: 'rpc:m1', message_id: 'm1' });
    expect(ctx.steps.started).toHaveLength(1);
    const [started] = ctx.steps.started;
    expect(started?.input).toMatchObject({
      flow: 'deploy',
      node: node.uuid,
      owner: 'run:m1',
      decision: { mode: 'sync', step: { interface: 'deploy', step: 'deploy', priority: 100 } },
    });
    const stored = await ctx.nodes.get(node.uuid);
    // The conductor's stable name (its function through the live alias), not the version's.
    expect(stored.reservation).toBe('conductor:live');
    expect(stored.deploy_step).toMatchObject({ interface: 'deploy', step: 'deploy' });
    expect(stored.driver_internal_info.steps_execution).toBe(started?.name);
  });

  it('ignores a redelivered message: no second execution, no write racing the running one', async () => {
    const ctx = makeConductorContext();
    const node = await deployingNode(ctx, 'rpc:m2');
    await doNodeDeploy(ctx, { node_id: node.uuid, lock_token: 'rpc:m2', message_id: 'm2' });
    const rev = ctx.nodes.items.get(node.uuid)?.rev;
    await doNodeDeploy(ctx, { node_id: node.uuid, lock_token: 'rpc:m2', message_id: 'm2' });
    expect(ctx.steps.started).toHaveLength(1);
    expect(ctx.nodes.items.get(node.uuid)?.rev).toBe(rev);
  });

  it('runs the last step, reaches active and releases the lock', async () => {
    const ctx = makeConductorContext();
    const node = await deployingNode(ctx, 'rpc:m3');
    await doNodeDeploy(ctx, { node_id: node.uuid, lock_token: 'rpc:m3', message_id: 'm3' });
    const step = ctx.steps.started[0]?.input.decision.step;
    const decision = await runStep(ctx, { flow: 'deploy', node: node.uuid, owner: 'run:m3', step: step! });
    expect(decision).toEqual({ mode: 'done', step: null });
    const done = await ctx.nodes.get(node.uuid);
    expect(done).toMatchObject({
      provision_state: 'active',
      target_provision_state: null,
      reservation: null,
      deploy_step: null,
      last_error: null,
    });
    expect(done.driver_internal_info).toEqual({});
  });

  it('lets an exception thrown by a step escape, for the machine to catch, then fails the node with it', async () => {
    const ctx = makeConductorContext();
    const node = await deployingNode(ctx, 'rpc:m4');
    await doNodeDeploy(ctx, { node_id: node.uuid, lock_token: 'rpc:m4', message_id: 'm4' });
    const step = ctx.steps.started[0]?.input.decision.step;
    const deployStep = loadDriver(node).deploy.deploySteps?.[0];
    const original = deployStep?.execute;
    (deployStep as { execute: unknown }).execute = async () => {
      throw new Error('disk on fire');
    };
    try {
      await expect(runStep(ctx, { flow: 'deploy', node: node.uuid, owner: 'run:m4', step: step! })).rejects.toThrow('disk on fire');
    } finally {
      (deployStep as { execute: unknown }).execute = original;
    }
    // What Step Functions then does: the Failed task with the error it caught.
    await failSteps(ctx, {
      flow: 'deploy',
      node: node.uuid,
      owner: 'run:m4',
      error: { Error: 'Error', Cause: JSON.stringify({ errorType: 'Error', errorMessage: 'disk on fire' }) },
    });
    const failed = await ctx.nodes.get(node.uuid);
    expect(failed).toMatchObject({ provision_state: 'deploy failed', reservation: null, deploy_step: null, power_state: 'power off' });
    expect(failed.last_error).toBe(`Deploy step deploy.deploy failed on node ${node.uuid}. Error: disk on fire`);
  });

  it('refuses to run a step for a node that left the flow', async () => {
    const ctx = makeConductorContext();
    const node = await deployingNode(ctx, 'rpc:m5');
    await doNodeDeploy(ctx, { node_id: node.uuid, lock_token: 'rpc:m5', message_id: 'm5' });
    // Only the lock holder may write a locked node: take the copy as the holder does.
    const stored = await ctx.nodes.reserve(node.uuid, { host: 'conductor:1', token: 'run:m5', ttlSeconds: 60 });
    stored.processEvent('fail');
    await ctx.nodes.save(stored, { release: true });
    const step = ctx.steps.started[0]?.input.decision.step;
    await expect(runStep(ctx, { flow: 'deploy', node: node.uuid, owner: 'run:m5', step: step! })).rejects.toThrow(
      'is not running deploy step deploy.deploy',
    );
  });

  it('orders steps by priority, then by Ironic’s interface order', () => {
    const step = (priority: number) => ({ step: `p${priority}`, priority, execute: async () => ({ wait: false as const }) });
    const driver = {
      interfaces: {
        deploy: { name: 'x', validate: async () => {}, deploySteps: [step(100), step(50), step(0)] },
        power: { name: 'y', validate: async () => {}, deploySteps: [step(50)] },
      },
    } as unknown as Driver;
    expect(driverSteps(driver, 'deploy').map((s) => `${s.interface}.${s.step}`)).toEqual(['deploy.p100', 'power.p50', 'deploy.p50']);
  });

  it('stores whether a step is abortable: Ironic’s defaults per flow unless the driver says otherwise', () => {
    const step = (name: string, abortable?: boolean) => ({
      step: name,
      priority: 10,
      ...(abortable === undefined ? {} : { abortable }),
      execute: async () => ({ wait: false as const }),
    });
    const driver = {
      interfaces: {
        deploy: {
          name: 'x',
          validate: async () => {},
          deploySteps: [step('d'), step('d_fixed', false)],
          cleanSteps: [step('c'), step('c_stoppable', true)],
          serviceSteps: [step('s')],
        },
      },
    } as unknown as Driver;
    const flags = (flow: 'deploy' | 'clean' | 'service') => allDriverSteps(driver, flow).map((s) => [s.step, s.abortable]);
    expect(flags('deploy')).toEqual([
      ['d', true],
      ['d_fixed', false],
    ]);
    expect(flags('clean')).toEqual([
      ['c', false],
      ['c_stoppable', true],
    ]);
    expect(flags('service')).toEqual([['s', false]]);
    expect(requestedDriverStep(driver, 'clean', { interface: 'deploy', step: 'c_stoppable', args: { a: 1 } })).toEqual({
      interface: 'deploy',
      step: 'c_stoppable',
      priority: 0,
      args: { a: 1 },
      abortable: true,
    });
    expect(requestedDriverStep(driver, 'clean', { interface: 'deploy', step: 'nope' })).toBeUndefined();
  });
});

describe('step order', () => {
  const at = (priority: number, ...interfaces: string[]) =>
    interfaces.map((iface) => ({ interface: iface, step: `${iface}_step`, priority, args: {} }) as Parameters<typeof sortSteps>[1][number]);

  it("breaks priority ties by Ironic master's interface ranks: vendor, power, management, firmware, deploy, bios, raid", () => {
    const steps = [...at(10, 'raid', 'bios', 'deploy', 'firmware', 'management', 'power', 'vendor'), ...at(20, 'raid')];
    for (const flow of ['deploy', 'clean', 'service'] as const) {
      expect(sortSteps(flow, steps).map((s) => `${s.priority}:${s.interface}`)).toEqual([
        '20:raid',
        '10:vendor',
        '10:power',
        '10:management',
        '10:firmware',
        '10:deploy',
        '10:bios',
        '10:raid',
      ]);
    }
  });

  it('ranks the network interface first when servicing, as SERVICING_INTERFACE_PRIORITY does', () => {
    expect(sortSteps('service', at(5, 'vendor', 'network')).map((s) => s.interface)).toEqual(['network', 'vendor']);
    expect(sortSteps('clean', at(5, 'network', 'vendor')).map((s) => s.interface)).toEqual(['vendor', 'network']);
  });
});
