/**
 * The console across a deployment, as Ironic's conductor handles it: the tear-down stops an enabled
 * console and leaves it enabled (failing the tear-down if it cannot be stopped); the end of a
 * deployment starts an enabled console again, and a console that will not start does not fail the
 * deployment: it becomes last_error and the console is recorded as off.
 */
import { jest } from '@jest/globals';
import { finishFlow } from '../../../functions/conductor/flows/step-advance';
import { doNodeTearDown } from '../../../functions/conductor/flows/provision';
import { fakeConsole } from '../../../functions/drivers/console';
import type { NodeData } from '../../../functions/objects/node';
import { makeConductorContext, makeNode } from '../helpers/builders';

afterEach(() => jest.restoreAllMocks());

const LOCK = { host: 'api', token: 'rpc:t1', ttlSeconds: 300 };

async function tornDown(overrides: Partial<NodeData>) {
  const ctx = makeConductorContext();
  const node = await ctx.nodes.create(makeNode({ provision_state: 'active', ...overrides }));
  node.processEvent('delete');
  await ctx.nodes.save(node, { lockFor: LOCK });
  await doNodeTearDown(ctx, { node_id: node.uuid, lock_token: 'rpc:t1', message_id: 't1' });
  return ctx.nodes.get(node.uuid);
}

async function deployed(overrides: Partial<NodeData>) {
  const ctx = makeConductorContext();
  const node = await ctx.nodes.create(
    makeNode({ provision_state: 'deploying', target_provision_state: 'active', last_error: 'an earlier failure', ...overrides }),
  );
  await finishFlow(ctx, await ctx.nodes.reserve(node.uuid, LOCK), 'deploy');
  return ctx.nodes.get(node.uuid);
}

describe('tearing an instance down', () => {
  it('stops an enabled console and leaves it enabled', async () => {
    const stop = jest.spyOn(fakeConsole, 'stopConsole');
    const node = await tornDown({ console_enabled: true });
    expect(stop).toHaveBeenCalledTimes(1);
    expect(node).toMatchObject({ provision_state: 'available', console_enabled: true, last_error: null });
  });

  it('leaves a console that is off alone', async () => {
    const stop = jest.spyOn(fakeConsole, 'stopConsole');
    expect(await tornDown({ console_enabled: false })).toMatchObject({ provision_state: 'available' });
    expect(stop).not.toHaveBeenCalled();
  });

  it('fails when the console cannot be stopped, as Ironic', async () => {
    jest.spyOn(fakeConsole, 'stopConsole').mockRejectedValue(new Error('the BMC is away'));
    const node = await tornDown({ console_enabled: true, instance_info: { image_source: 'http://i/disk.img' } });
    expect(node).toMatchObject({
      provision_state: 'error',
      console_enabled: true,
      last_error: 'Failed to tear down. Error: the BMC is away',
      instance_info: { image_source: 'http://i/disk.img' },
    });
  });
});

describe('the end of a deployment', () => {
  it('starts an enabled console again', async () => {
    const start = jest.spyOn(fakeConsole, 'startConsole');
    expect(await deployed({ console_enabled: true })).toMatchObject({ provision_state: 'active', console_enabled: true, last_error: null });
    expect(start).toHaveBeenCalledTimes(1);
    start.mockClear();
    expect(await deployed({ console_enabled: false })).toMatchObject({ provision_state: 'active', console_enabled: false });
    expect(start).not.toHaveBeenCalled();
  });

  it("does not fail for a console that will not start: last_error says so with Ironic's words, the console is off", async () => {
    jest.spyOn(fakeConsole, 'startConsole').mockRejectedValue(new Error('No console here.'));
    const node = await deployed({ console_enabled: true });
    expect(node).toMatchObject({
      provision_state: 'active',
      console_enabled: false,
      last_error: `Failed to start console while deploying the node ${node.uuid}: No console here..`,
      reservation: null,
    });
  });

  it('is not where other flows start the console', async () => {
    const start = jest.spyOn(fakeConsole, 'startConsole');
    const ctx = makeConductorContext();
    const node = await ctx.nodes.create(
      makeNode({ provision_state: 'cleaning', target_provision_state: 'available', console_enabled: true }),
    );
    await finishFlow(ctx, await ctx.nodes.reserve(node.uuid, LOCK), 'clean');
    expect(start).not.toHaveBeenCalled();
  });
});
