/**
 * Provisioning actions that lead into cleaning: provide (manageable → cleaning), deleted/undeploy
 * (tear down, then cleaning), and manual cleaning with the operator's steps. Each arrives with the
 * lock the API took, and hands the node to the steps machine when there are steps to run.
 */
import { CLEANING, DELETING } from '#common/states';
import { consoleOf } from '#drivers/console';
import { loadDriver } from '#drivers/registry';
import type { RpcMethods } from '#rpc/messages';
import type { ConductorContext } from '../context';
import { type MessageArgs, claimForMessage, runToken } from '../claim';
import { destroyReleasedAllocation } from './allocate';
import { startAutomatedClean } from './clean';
import { startUserSteps } from './requested-steps';

/** provide: clean the node (automated cleaning) and make it available. */
export async function doProvide(ctx: ConductorContext, args: MessageArgs): Promise<void> {
  const node = await claimForMessage(ctx, args, [CLEANING], 'clean');
  if (node === undefined) return;
  await startAutomatedClean(ctx, node, runToken(args), args.message_id);
}

/**
 * deleted/undeploy: tear the instance down, then clean (Ironic's `_do_node_tear_down`). An enabled
 * console is stopped first (it stays enabled, to start again after the next deployment).
 */
export async function doNodeTearDown(ctx: ConductorContext, args: MessageArgs): Promise<void> {
  const node = await claimForMessage(ctx, args, [DELETING], 'clean');
  if (node === undefined) return;
  try {
    const driver = loadDriver(node);
    const task = { node, log: ctx.log };
    // As Ironic, the console is stopped so the instance's user does not keep it; console_enabled
    // stays true and the console starts again as the next deployment ends (step-advance.ts).
    if (node.console_enabled) await consoleOf(driver, task).stopConsole(task);
    await driver.deploy.tearDown(task);
  } catch (err) {
    node.last_error = `Failed to tear down. Error: ${(err as Error).message}`;
    node.processEvent('fail');
    await ctx.nodes.save(node, { release: true });
    return;
  }
  const allocation = node.allocation_uuid;
  node.instance_uuid = null;
  node.allocation_uuid = null;
  // Ironic clears the instance's name with the rest of the instance's data.
  node.instance_name = null;
  node.instance_info = {};
  const info = { ...node.driver_internal_info };
  // What the deployment recorded about this instance, as Ironic's tear-down removes it: the
  // deploy steps, the image's kind and root, and the boot mode the sync recorded.
  for (const key of [
    'deploy_steps',
    'deploy_step_index',
    'user_deploy_steps',
    'steps_validated',
    'image_source',
    'instance',
    'root_uuid_or_disk_id',
    'is_whole_disk_image',
    'is_source_a_path',
    'deploy_boot_mode',
  ])
    delete info[key];
  node.driver_internal_info = info;
  node.processEvent('clean');
  await ctx.nodes.save(node);
  // Ironic's tear-down destroys the node's allocation with the instance.
  if (allocation) await destroyReleasedAllocation(ctx, allocation);
  await startAutomatedClean(ctx, node, runToken(args), args.message_id);
}

/**
 * Manual cleaning: the operator's steps, in the order given; ends in manageable (Ironic's
 * do_node_clean). The ramdisk boots for an agent deploy interface unless `disable_ramdisk`; then
 * only out-of-band steps that do without it may be asked for.
 */
export async function doManualClean(
  ctx: ConductorContext,
  args: MessageArgs & Omit<RpcMethods['do_node_clean'], 'node_id' | 'lock_token'>,
): Promise<void> {
  const node = await claimForMessage(ctx, args, [CLEANING], 'clean');
  if (node === undefined) return;
  const disableRamdisk = args.disable_ramdisk === true;
  await startUserSteps(ctx, node, 'clean', args.clean_steps, {
    owner: runToken(args),
    messageId: args.message_id,
    disableRamdisk,
    // Ironic's prepare_cleaning boots the ramdisk of an agent deploy interface, unless disabled.
    ramdisk: (driver) => driver.deploy.usesAgent === true && !disableRamdisk,
    info: () => ({ manual_cleaning: true }),
  });
}
