/** Tearing an instance down (Ironic's `_do_node_tear_down`) clears what belonged to the instance. */
import { doNodeTearDown } from '../../../functions/conductor/flows/provision';
import { makeConductorContext, makeNode } from '../helpers/builders';

it('removes what the deployment recorded about the instance (boot mode, image kind and root, steps), with the instance’s data', async () => {
  const ctx = makeConductorContext();
  const node = await ctx.nodes.create(
    makeNode({
      provision_state: 'active',
      instance_info: { image_source: 'http://images/disk.img' },
      driver_internal_info: {
        deploy_boot_mode: 'bios',
        deploy_steps: [],
        deploy_step_index: 0,
        is_whole_disk_image: false,
        root_uuid_or_disk_id: '6d2f1a34-8e73-4b9e-a0c1-5b1f0c3d9e21',
        is_source_a_path: true,
        kept: 'yes',
      },
    }),
  );
  node.processEvent('delete');
  await ctx.nodes.save(node, { lockFor: { host: 'api', token: 'rpc:t1', ttlSeconds: 300 } });
  await doNodeTearDown(ctx, { node_id: node.uuid, lock_token: 'rpc:t1', message_id: 't1' });
  const after = await ctx.nodes.get(node.uuid);
  expect(after.instance_info).toEqual({});
  for (const key of [
    'deploy_boot_mode',
    'deploy_steps',
    'deploy_step_index',
    'is_whole_disk_image',
    'root_uuid_or_disk_id',
    'is_source_a_path',
  ])
    expect(after.driver_internal_info).not.toHaveProperty(key);
  expect(after.driver_internal_info.kept).toBe('yes');
  expect(after.provision_state).toBe('available');
  expect(after.last_error).toBeNull();
});
