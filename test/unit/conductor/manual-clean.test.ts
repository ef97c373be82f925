/**
 * Manual cleaning (Ironic's do_node_clean): the requested steps checked as Ironic checks them,
 * fake-hardware's out-of-band BIOS steps, disable_ramdisk, and a target of manageable throughout.
 */
import { doManualClean } from '../../../functions/conductor/flows/provision';
import { BOOT_AGENT } from '../../../functions/conductor/flows/run-steps';
import { defaultInterfaces } from '../../../functions/drivers/registry';
import { makeConductorContext, storesWith } from '../helpers/builders';
import { begun, runAll } from '../helpers/flows';
import { MemoryBiosSettingStore } from '../helpers/memory-stores';

/** `{power_interface: 'redfish', …}` from interface names by type. */
const interfaceFields = (names: Record<string, string>) => Object.fromEntries(Object.entries(names).map(([t, n]) => [`${t}_interface`, n]));

describe('manual cleaning', () => {
  it("runs fake-hardware's BIOS steps with their args, keeping the target manageable, and ends in manageable", async () => {
    const base = makeConductorContext();
    const biosSettings = new MemoryBiosSettingStore();
    const ctx = { ...base, stores: storesWith(base.nodes, { biosSettings }) };
    const node = await begun(ctx, 'manageable', 'clean', 'c1');
    expect(node.target_provision_state).toBe('manageable');
    await doManualClean(ctx, {
      node_id: node.uuid,
      lock_token: 'rpc:c1',
      message_id: 'c1',
      clean_steps: [
        { interface: 'bios', step: 'apply_configuration', args: { settings: [{ name: 'LogicalProc', value: 'Enabled' }] } },
        { interface: 'bios', step: 'factory_reset' },
      ],
    });
    const [started] = ctx.steps.started;
    expect(started?.input.decision).toMatchObject({ mode: 'sync', step: { interface: 'bios', step: 'apply_configuration', priority: 0 } });
    const during = await ctx.nodes.get(node.uuid);
    expect(during).toMatchObject({
      provision_state: 'cleaning',
      target_provision_state: 'manageable',
      clean_step: { interface: 'bios', step: 'apply_configuration', args: { settings: [{ name: 'LogicalProc', value: 'Enabled' }] } },
    });
    await biosSettings.sync(node.uuid, [{ name: 'Old', value: '1' }]);
    await runAll(ctx, 'clean', node.uuid, 'run:c1', started!.input.decision.step!);
    // factory_reset, last, leaves no settings.
    expect(await biosSettings.list(node.uuid)).toEqual([]);
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({
      provision_state: 'manageable',
      target_provision_state: null,
      clean_step: null,
      last_error: null,
      reservation: null,
    });
  });

  it('fails naming every bad step as the user wrote it, joined as Ironic joins them, and stays out of maintenance', async () => {
    const ctx = makeConductorContext();
    const node = await begun(ctx, 'manageable', 'clean', 'c2');
    await doManualClean(ctx, {
      node_id: node.uuid,
      lock_token: 'rpc:c2',
      message_id: 'c2',
      clean_steps: [
        { interface: 'deploy', step: 'erase_devices' },
        { interface: 'bios', step: 'apply_configuration' },
        { interface: 'bios', step: 'factory_reset', args: { force: true } },
      ],
    });
    expect(ctx.steps.started).toHaveLength(0);
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({
      provision_state: 'clean failed',
      target_provision_state: 'manageable',
      maintenance: false,
      fault: null,
      reservation: null,
      last_error:
        `Cannot clean node ${node.uuid}: ` +
        "node does not support this clean step: {'interface': 'deploy', 'step': 'erase_devices'}; " +
        "clean step {'interface': 'bios', 'step': 'apply_configuration'} is missing these required arguments: " +
        'settings (List of BIOS settings, each item needs to contain a dictionary with name/value pairs); ' +
        "clean step {'interface': 'bios', 'step': 'factory_reset', 'args': {'force': True}} has these unexpected arguments: force",
    });
  });

  it('with disable_ramdisk, boots no agent and refuses a step that needs the ramdisk', async () => {
    const ctx = makeConductorContext();
    const node = await begun(ctx, 'manageable', 'clean', 'c3', 'power off', { deploy_interface: 'direct' });
    await doManualClean(ctx, {
      node_id: node.uuid,
      lock_token: 'rpc:c3',
      message_id: 'c3',
      clean_steps: [{ interface: 'bios', step: 'factory_reset' }],
      disable_ramdisk: true,
    });
    expect(ctx.steps.started).toHaveLength(0);
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({
      provision_state: 'clean failed',
      power_state: 'power off',
      last_error: `Cannot clean node ${node.uuid}: clean step {'interface': 'bios', 'step': 'factory_reset'} requires booting a ramdisk`,
    });
  });

  it('without disable_ramdisk, keeps a step the driver lacks for the agent it boots', async () => {
    const ctx = makeConductorContext();
    const node = await begun(ctx, 'manageable', 'clean', 'c4', 'power off', { deploy_interface: 'direct' });
    await doManualClean(ctx, {
      node_id: node.uuid,
      lock_token: 'rpc:c4',
      message_id: 'c4',
      clean_steps: [{ interface: 'deploy', step: 'erase_devices_metadata' }],
    });
    expect(ctx.steps.started.map((s) => s.input.decision)).toEqual([BOOT_AGENT]);
    expect((await ctx.nodes.get(node.uuid)).driver_internal_info.requested_clean_steps).toEqual([
      { interface: 'deploy', step: 'erase_devices_metadata' },
    ]);
  });

  it("says Ironic's validation failure when the power interface cannot be used", async () => {
    const ctx = makeConductorContext();
    const node = await begun(ctx, 'manageable', 'clean', 'c5', 'power off', {
      driver: 'redfish',
      driver_info: {},
      ...interfaceFields(defaultInterfaces('redfish', {})),
    });
    await doManualClean(ctx, {
      node_id: node.uuid,
      lock_token: 'rpc:c5',
      message_id: 'c5',
      clean_steps: [{ interface: 'bios', step: 'factory_reset' }],
    });
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({
      provision_state: 'clean failed',
      last_error: expect.stringMatching(new RegExp(`^Validation of node ${node.uuid} for cleaning failed: .*redfish_address`)),
    });
  });
});
