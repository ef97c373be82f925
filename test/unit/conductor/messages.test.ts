/** RPC messages are delivered at least once: the second delivery of any message does nothing. */
import { changeNodePowerState } from '../../../functions/conductor/flows/power';
import { doDirectAction } from '../../../functions/conductor/flows/actions';
import { handleCall } from '../../../functions/conductor/entries/rpc';
import { fakePower } from '../../../functions/drivers/fake';
import { makeConductorContext, makeNode } from '../helpers/builders';

async function lockedFor(ctx: ReturnType<typeof makeConductorContext>, token: string, change: (n: ReturnType<typeof makeNode>) => void) {
  const node = await ctx.nodes.create(makeNode());
  change(node);
  await ctx.nodes.save(node, { lockFor: { host: 'api', token, ttlSeconds: 300 } });
  return node;
}

describe('power actions', () => {
  it('drive the BMC once even when the message is delivered twice', async () => {
    const ctx = makeConductorContext();
    const node = await lockedFor(ctx, 'rpc:p1', (n) => (n.target_power_state = 'power on'));
    const calls: string[] = [];
    const original = fakePower.setPowerState;
    fakePower.setPowerState = async (task, state) => {
      calls.push(state);
      await original(task, state);
    };
    try {
      const args = { node_id: node.uuid, lock_token: 'rpc:p1', message_id: 'p1', target: 'power on' };
      await changeNodePowerState(ctx, args);
      await changeNodePowerState(ctx, args);
    } finally {
      fakePower.setPowerState = original;
    }
    expect(calls).toEqual(['power on']);
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({ power_state: 'power on', target_power_state: null, reservation: null });
  });

  it('record a failure as last_error and leave the power state as it was', async () => {
    const ctx = makeConductorContext();
    const node = await lockedFor(ctx, 'rpc:p2', (n) => {
      n.power_state = 'power off';
      n.target_power_state = 'power on';
    });
    const original = fakePower.setPowerState;
    fakePower.setPowerState = async () => {
      throw new Error('BMC unreachable');
    };
    try {
      await changeNodePowerState(ctx, { node_id: node.uuid, lock_token: 'rpc:p2', message_id: 'p2', target: 'power on' });
    } finally {
      fakePower.setPowerState = original;
    }
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({
      power_state: 'power off',
      target_power_state: null,
      reservation: null,
      last_error: "Failed to change power state to 'power on' by 'power on': BMC unreachable",
    });
  });
});

describe('provisioning actions', () => {
  it('verify once: a redelivered manage does not run against a node that moved on', async () => {
    const ctx = makeConductorContext();
    const node = await lockedFor(ctx, 'rpc:m1', (n) => n.processEvent('manage'));
    const args = { node_id: node.uuid, lock_token: 'rpc:m1', message_id: 'm1', action: 'manage' };
    await doDirectAction(ctx, args);
    const rev = ctx.nodes.items.get(node.uuid)?.rev;
    await doDirectAction(ctx, args);
    expect(ctx.nodes.items.get(node.uuid)?.rev).toBe(rev);
    expect((await ctx.nodes.get(node.uuid)).provision_state).toBe('manageable');
  });
});

describe('calls', () => {
  it('answer an Ironic error as data, for the caller to raise', async () => {
    const ctx = makeConductorContext();
    const reply = await handleCall(ctx, {
      rpc: '1.0',
      method: 'validate_driver_interfaces',
      args: { node_id: 'missing' },
      context: { request_id: 'r' },
      message_id: 'c1',
    });
    expect(reply).toEqual({ error: { name: 'NodeNotFound', code: 404, message: 'Node missing could not be found.' } });
  });

  it('refuse a message newer than this conductor', async () => {
    const ctx = makeConductorContext();
    const reply = await handleCall(ctx, {
      rpc: '9.0',
      method: 'validate_driver_interfaces',
      args: { node_id: 'x' },
      context: { request_id: 'r' },
      message_id: 'c2',
    });
    expect(reply).toMatchObject({ error: { name: 'UnsupportedMessage' } });
  });
});
