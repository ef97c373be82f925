import { doNodeDeploy } from '../../../functions/conductor/flows/deploy';
import { doHeartbeat } from '../../../functions/conductor/flows/heartbeat';
import { doManualClean } from '../../../functions/conductor/flows/provision';
import { runStep } from '../../../functions/conductor/flows/run-steps';
import { doNodeService, doUnhold } from '../../../functions/conductor/flows/service';
import { cleanStepsWithAgent, resolveSteps } from '../../../functions/conductor/flows/step-lists';
import { isReservedStep } from '../../../functions/conductor/flows/reserved';
import { loadDriver } from '../../../functions/drivers/registry';
import type { Step } from '../../../functions/drivers/base';
import { makeConductorContext, makeNode } from '../helpers/builders';
import { begun, runAll } from '../helpers/flows';

describe('servicing', () => {
  it('runs out-of-band and reserved service steps in the order given, then returns the node to active', async () => {
    const ctx = makeConductorContext();
    const node = await begun(ctx, 'active', 'service', 's1');
    await doNodeService(ctx, {
      node_id: node.uuid,
      lock_token: 'rpc:s1',
      message_id: 's1',
      service_steps: [
        { interface: 'power', step: 'power_off' },
        { interface: 'vendor', step: 'log_passthrough' },
      ],
    });
    const [started] = ctx.steps.started;
    expect(started?.input).toMatchObject({ flow: 'service', owner: 'run:s1', decision: { mode: 'sync', step: { step: 'power_off' } } });
    const during = await ctx.nodes.get(node.uuid);
    expect(during.service_step).toMatchObject({ interface: 'power', step: 'power_off' });
    await runAll(ctx, 'service', node.uuid, 'run:s1', started!.input.decision.step!);
    const done = await ctx.nodes.get(node.uuid);
    expect(done).toMatchObject({
      provision_state: 'active',
      reservation: null,
      service_step: null,
      power_state: 'power off',
      last_error: null,
    });
  });

  it('fails with Ironic-style last_error naming every bad step, as the user wrote it, on a node without an agent', async () => {
    const ctx = makeConductorContext();
    const node = await begun(ctx, 'active', 'service', 's2');
    await doNodeService(ctx, {
      node_id: node.uuid,
      lock_token: 'rpc:s2',
      message_id: 's2',
      service_steps: [
        { interface: 'deploy', step: 'nope' },
        { interface: 'vendor', step: 'log_passthrough', args: { a: 1 } },
      ],
    });
    expect(ctx.steps.started).toHaveLength(0);
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({
      provision_state: 'service failed',
      reservation: null,
      last_error:
        `Cannot service node ${node.uuid}: node does not support this service step: {'interface': 'deploy', 'step': 'nope'}; ` +
        "service step {'interface': 'vendor', 'step': 'log_passthrough', 'args': {'a': 1}} has these unexpected arguments: a",
    });
  });
});

describe('reserved steps: hold and unhold', () => {
  it('hold parks the node in clean hold with the steps kept; unhold continues with the next step in a new execution', async () => {
    const ctx = makeConductorContext({ maxWaitStepSeconds: 0 });
    const node = await begun(ctx, 'manageable', 'clean', 'c1', 'power off');
    await doManualClean(ctx, {
      node_id: node.uuid,
      lock_token: 'rpc:c1',
      message_id: 'c1',
      clean_steps: [
        { interface: 'power', step: 'hold' },
        { interface: 'power', step: 'wait', args: { seconds: 60 } },
        { interface: 'power', step: 'power_on' },
      ],
    });
    const first = ctx.steps.started[0]!.input.decision.step!;
    expect(await runStep(ctx, { flow: 'clean', node: node.uuid, owner: 'run:c1', step: first })).toEqual({ mode: 'done', step: null });
    const held = await ctx.nodes.get(node.uuid);
    expect(held).toMatchObject({ provision_state: 'clean hold', reservation: null, clean_step: { step: 'hold' } });
    expect(held.driver_internal_info.clean_steps).toHaveLength(3);
    expect(held.driver_internal_info.steps_execution).toBeUndefined();

    // The API's part of unhold: hold → wait, locked for the message.
    const api = await ctx.nodes.get(node.uuid);
    api.processEvent('unhold');
    await ctx.nodes.save(api, { lockFor: { host: 'api', token: 'rpc:u1', ttlSeconds: 300 } });
    await doUnhold(ctx, { node_id: node.uuid, lock_token: 'rpc:u1', message_id: 'u1' });
    expect(ctx.steps.started).toHaveLength(2);
    const second = ctx.steps.started[1]!;
    expect(second.name).toContain('u1');
    expect(second.input.decision.step).toMatchObject({ step: 'wait', args: { seconds: 60 } });
    // A redelivered unhold starts the same execution again (a no-op for Step Functions), never a new one.
    await doUnhold(ctx, { node_id: node.uuid, lock_token: 'rpc:u1', message_id: 'u1' });
    expect(new Set(ctx.steps.started.map((s) => s.name)).size).toBe(2);

    // wait's 60 seconds are capped at the configured maximum (0 here), then the flow goes on.
    await runAll(ctx, 'clean', node.uuid, 'run:u1', second.input.decision.step!);
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({ provision_state: 'manageable', power_state: 'power on', reservation: null });
  });
});

describe('a wait step without seconds', () => {
  it('parks the flow in its wait state until the next agent heartbeat continues it', async () => {
    const ctx = makeConductorContext();
    const node = await begun(ctx, 'manageable', 'clean', 'w1');
    await doManualClean(ctx, {
      node_id: node.uuid,
      lock_token: 'rpc:w1',
      message_id: 'w1',
      clean_steps: [
        { interface: 'power', step: 'wait' },
        { interface: 'power', step: 'power_off' },
      ],
    });
    const first = ctx.steps.started[0]!.input.decision.step!;
    expect(await runStep(ctx, { flow: 'clean', node: node.uuid, owner: 'run:w1', step: first })).toEqual({ mode: 'done', step: null });
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({ provision_state: 'clean wait', reservation: null });
    await doHeartbeat(ctx, { node_id: node.uuid, callback_url: 'http://agent:9999', agent_version: '9.4.0', message_id: 'h1' });
    expect(ctx.steps.started).toHaveLength(2);
    expect(ctx.steps.started[1]!.input.decision.step).toMatchObject({ step: 'power_off' });
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({ provision_state: 'cleaning', clean_step: { step: 'power_off' } });
  });
});

describe('reserved steps in a deploy', () => {
  it('a user hold step parks the deploy in deploy hold; unhold deploys on to active', async () => {
    const ctx = makeConductorContext();
    const node = await ctx.nodes.create(makeNode({ provision_state: 'available' }));
    node.processEvent('deploy');
    await ctx.nodes.save(node, { lockFor: { host: 'api', token: 'rpc:d1', ttlSeconds: 300 } });
    await doNodeDeploy(ctx, {
      node_id: node.uuid,
      lock_token: 'rpc:d1',
      message_id: 'd1',
      deploy_steps: [{ interface: 'power', step: 'hold', priority: 150, args: {} }],
    });
    const first = ctx.steps.started[0]!.input.decision.step!;
    expect(first).toMatchObject({ interface: 'power', step: 'hold', priority: 150 });
    await runStep(ctx, { flow: 'deploy', node: node.uuid, owner: 'run:d1', step: first });
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({ provision_state: 'deploy hold', reservation: null });

    const api = await ctx.nodes.get(node.uuid);
    api.processEvent('unhold');
    await ctx.nodes.save(api, { lockFor: { host: 'api', token: 'rpc:u2', ttlSeconds: 300 } });
    await doUnhold(ctx, { node_id: node.uuid, lock_token: 'rpc:u2', message_id: 'u2' });
    const next = ctx.steps.started[1]!.input.decision.step!;
    expect(next).toMatchObject({ interface: 'deploy', step: 'deploy' });
    await runAll(ctx, 'deploy', node.uuid, 'run:u2', next);
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({ provision_state: 'active', reservation: null, deploy_step: null });
  });
});

describe('reserved step names in step lists', () => {
  it('are recognised by name on any interface', () => {
    for (const name of ['power_on', 'power_off', 'reboot', 'hold', 'wait']) expect(isReservedStep({ step: name })).toBe(true);
    expect(isReservedStep({ step: 'erase_devices' })).toBe(false);
  });

  it('join user deploy steps at the priority asked for', () => {
    const node = makeNode({ provision_state: 'deploying' });
    const driver = loadDriver(node);
    const available = driver.deploy.deploySteps!.map((d) => ({
      interface: 'deploy' as const,
      step: d.step,
      priority: d.priority,
      args: {},
    }));
    const steps = resolveSteps(
      'deploy',
      node,
      available,
      [{ prefix: '', steps: [{ interface: 'power', step: 'hold', priority: 150, args: {} }] }],
      true,
    );
    expect(steps.map((s) => `${s.interface}.${s.step}`)).toEqual(['power.hold', 'deploy.deploy']);
  });

  it('survive the merge with the agent’s steps in a manual clean or service', () => {
    const node = makeNode({ provision_state: 'servicing' });
    node.driver_internal_info = {
      requested_service_steps: [
        { interface: 'deploy', step: 'burnin_cpu', args: {} },
        { interface: 'power', step: 'reboot', args: {} },
      ],
    };
    const agent: Step[] = [{ interface: 'deploy', step: 'burnin_cpu', priority: 0, args: {}, async: true, inband: true }];
    const steps = cleanStepsWithAgent('service', node, loadDriver(node), agent);
    expect(steps.map((s) => [s.step, s.inband === true])).toEqual([
      ['burnin_cpu', true],
      ['reboot', false],
    ]);
  });
});
