/**
 * Agent RAID (`raid_interface: agent`) in manual cleaning, driven task by task against an IPA test
 * double: the agent's raid steps join the list only for this interface, create_configuration hands
 * the target to the agent, and the post-step hooks record what the agent built (or fail the step).
 */
import { handleStepsTask } from '../../../functions/conductor/entries/steps';
import type { Decision } from '../../../functions/conductor/context';
import { doManualClean } from '../../../functions/conductor/flows/provision';
import { AGENT_STEP_FAILED } from '../../../functions/conductor/flows/run-steps';
import { AgentClient } from '../../../functions/drivers/agent-client';
import { setAgentClient } from '../../../functions/drivers/agent/inband';
import type { Step } from '../../../functions/drivers/base';
import type { NodeData } from '../../../functions/objects/node';
import { makeConductorContext } from '../helpers/builders';
import { FakeIpa } from '../helpers/fake-ipa';
import { type Ctx, agentHeartbeat, agentLookedUp, begun } from '../helpers/flows';

const TARGET = {
  logical_disks: [
    { raid_level: '1', size_gb: 100, is_root_volume: true, root_device_hint: { name: '/dev/md0' } },
    { raid_level: '5', size_gb: 'MAX' },
  ],
};

let ipa: FakeIpa;
beforeEach(async () => {
  ipa = await new FakeIpa().start();
  ipa.cleanSteps = [
    { interface: 'deploy', step: 'erase_devices_metadata', priority: 99, reboot_requested: false, abortable: true },
    { interface: 'raid', step: 'delete_configuration', priority: 0, reboot_requested: false, abortable: true },
    { interface: 'raid', step: 'create_configuration', priority: 0, reboot_requested: false, abortable: true },
  ];
  setAgentClient(new AgentClient({ commandTimeoutMs: 2000, attempts: 3, retryIntervalMs: 1 }));
});
afterEach(async () => {
  setAgentClient(undefined);
  await ipa.stop();
});

const start = (ctx: Ctx, uuid: string, step: Step | null, token: string) =>
  handleStepsTask(ctx, { entry: 'steps', action: 'start', flow: 'clean', node: uuid, owner: 'run:c1', step, token });
const lastCall = (ctx: Ctx) => ctx.steps.tokenCalls[ctx.steps.tokenCalls.length - 1];

/** A manual clean of `steps` on a direct-deploy node, up to the agent's first heartbeat; the decision it gives. */
async function cleanUntilAgentUp(ctx: Ctx, steps: { interface: string; step: string }[], overrides: Partial<NodeData> = {}) {
  const node = await begun(ctx, 'manageable', 'clean', 'c1', 'power off', {
    deploy_interface: 'direct',
    raid_interface: 'agent',
    target_raid_config: TARGET,
    ...overrides,
  });
  await doManualClean(ctx, { node_id: node.uuid, lock_token: 'rpc:c1', message_id: 'c1', clean_steps: steps });
  await start(ctx, node.uuid, null, 't1');
  await agentLookedUp(ctx, node.uuid, ipa.token);
  await agentHeartbeat(ctx, node.uuid, ipa.url);
  return node;
}

describe('agent RAID in manual cleaning', () => {
  it('hands the target to the agent, then records the RAID it built and the root volume in the node properties', async () => {
    const ctx = makeConductorContext();
    const node = await cleanUntilAgentUp(ctx, [{ interface: 'raid', step: 'create_configuration' }], {
      properties: { capabilities: 'boot_mode:uefi', local_gb: 10 },
    });
    const decision = lastCall(ctx)?.decision as Decision;
    expect(decision).toMatchObject({ mode: 'async', step: { interface: 'raid', step: 'create_configuration', inband: true } });

    await start(ctx, node.uuid, decision.step, 't2');
    const sent = ipa.requests.at(-1)?.params as { node: Record<string, Record<string, unknown>> };
    expect(ipa.requests.at(-1)?.name).toBe('clean.execute_clean_step');
    expect(sent.node.target_raid_config).toEqual(TARGET);
    expect(sent.node.driver_internal_info?.target_raid_config).toEqual(TARGET);

    ipa.finish('SUCCEEDED', null, { clean_result: TARGET });
    await agentHeartbeat(ctx, node.uuid, ipa.url);
    expect(lastCall(ctx)).toMatchObject({ call: 'succeed', token: 't2', decision: { mode: 'done' } });
    const done = await ctx.nodes.get(node.uuid);
    expect(done).toMatchObject({
      provision_state: 'manageable',
      last_error: null,
      raid_config: { logical_disks: TARGET.logical_disks },
      properties: { local_gb: 100, root_device: { name: '/dev/md0' }, capabilities: 'boot_mode:uefi,raid_level:1' },
    });
    expect(done.raid_config?.last_updated).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$/);
  });

  it("fails the step with Ironic's post-step hook message when the agent returns no configuration", async () => {
    const ctx = makeConductorContext();
    const node = await cleanUntilAgentUp(ctx, [{ interface: 'raid', step: 'create_configuration' }]);
    await start(ctx, node.uuid, (lastCall(ctx)?.decision as Decision).step, 't2');
    const command = ipa.finish('SUCCEEDED', null, { clean_result: null });
    await agentHeartbeat(ctx, node.uuid, ipa.url);
    const failed = lastCall(ctx);
    expect(failed).toMatchObject({ call: 'fail', token: 't2', error: AGENT_STEP_FAILED });
    expect(failed?.cause).toBe(
      `For node ${node.uuid}, post clean step hook _create_configuration_final failed for clean step ` +
        "{'interface': 'raid', 'step': 'create_configuration', 'priority': 0, 'args': {}, 'abortable': True}.IronicException: " +
        `Agent ramdisk didn't return a proper command result while building RAID on ${node.uuid}. It returned ` +
        `'{'id': '${command.id}', 'command_name': 'execute_clean_step', 'command_error': None, 'command_status': 'SUCCEEDED', ` +
        "'command_result': {'clean_step': {'interface': 'raid', 'step': 'create_configuration', 'priority': 0, 'args': {}, " +
        "'reboot_requested': False}, 'clean_result': None}}' after command execution.",
    );
    expect((await ctx.nodes.get(node.uuid)).raid_config).toEqual({});
  });

  it('refuses create_configuration on a node without a target, before asking the agent', async () => {
    const ctx = makeConductorContext();
    const node = await cleanUntilAgentUp(ctx, [{ interface: 'raid', step: 'create_configuration' }], { target_raid_config: {} });
    const asked = ipa.requests.length;
    await expect(start(ctx, node.uuid, (lastCall(ctx)?.decision as Decision).step, 't2')).rejects.toThrow(
      `Node ${node.uuid} has no target RAID configuration.`,
    );
    expect(ipa.requests).toHaveLength(asked);
  });

  it('forgets the RAID and its root device hint after delete_configuration', async () => {
    const ctx = makeConductorContext();
    const node = await cleanUntilAgentUp(ctx, [{ interface: 'raid', step: 'delete_configuration' }], {
      raid_config: { logical_disks: TARGET.logical_disks, last_updated: '2026-11-01 10:00:00.000000' },
      properties: { root_device: { name: '/dev/md0' }, local_gb: 100 },
    });
    await start(ctx, node.uuid, (lastCall(ctx)?.decision as Decision).step, 't2');
    ipa.finish('SUCCEEDED');
    await agentHeartbeat(ctx, node.uuid, ipa.url);
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({ provision_state: 'manageable', raid_config: {}, properties: { local_gb: 100 } });
    expect((await ctx.nodes.get(node.uuid)).properties.root_device).toBeUndefined();
  });

  it("leaves the agent's raid steps out for a node whose RAID interface does not run them", async () => {
    const ctx = makeConductorContext();
    const node = await cleanUntilAgentUp(ctx, [{ interface: 'raid', step: 'create_configuration' }], { raid_interface: 'fake' });
    expect(lastCall(ctx)).toMatchObject({
      call: 'fail',
      token: 't1',
      cause:
        "Node failed to check cleaning progress: node does not support this clean step: {'interface': 'raid', 'step': 'create_configuration'}",
    });
    expect((await ctx.nodes.get(node.uuid)).driver_internal_info.agent_cached_clean_steps).toHaveLength(3);
  });
});
