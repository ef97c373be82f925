/** Tearing an instance down (Ironic's `_do_node_tear_down`) clears what belonged to the instance. */
import { doNodeTearDown } from '../../../functions/conductor/flows/provision';
import { makeConductorContext, makeNode } from '../helpers/builders';

it('removes the boot mode the sync recorded for the instance, with the instance’s data', async () => {
  const ctx = makeConductorContext();
  const node = await ctx.nodes.create(
    makeNode({
      provision_state: 'active',
      instance_info: { image_source: 'http://images/disk.img' },
      driver_internal_info: { deploy_boot_mode: 'bios', deploy_steps: [], deploy_step_index: 0 },
    }),
  );
  node.processEvent('delete');
  await ctx.nodes.save(node, { lockFor: { host: 'api', token: 'rpc:t1', ttlSeconds: 300 } });
  await doNodeTearDown(ctx, { node_id: node.uuid, lock_token: 'rpc:t1', message_id: 't1' });
  const after = await ctx.nodes.get(node.uuid);
  expect(after.instance_info).toEqual({});
  expect(after.driver_internal_info).not.toHaveProperty('deploy_boot_mode');
  expect(after.driver_internal_info).not.toHaveProperty('deploy_steps');
  expect(after.provision_state).toBe('available');
  expect(after.last_error).toBeNull();
});
