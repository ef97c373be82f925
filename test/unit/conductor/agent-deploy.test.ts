/**
 * The direct deploy with an agent, driven task by task as the steps machine drives it: RunStepAsync
 * starts a step and parks the node; heartbeats (against an IPA test double) keep the task alive,
 * complete it with the next decision, or fail it.
 */
import { handleStepsTask } from '../../../functions/conductor/entries/steps';
import { doNodeDeploy } from '../../../functions/conductor/flows/deploy';
import type { Decision } from '../../../functions/conductor/context';
import { AgentClient } from '../../../functions/drivers/agent-client';
import { setAgentClient } from '../../../functions/drivers/agent/inband';
import { setAgentConfig } from '../../../functions/drivers/agent/deploy';
import { loadAgentConfig } from '../../../functions/common/config';
import type { Step } from '../../../functions/drivers/base';
import { DeployTemplate } from '../../../functions/objects/deploy-template';
import type { DeployTemplateStore } from '../../../functions/db/deploy-templates';
import { makeConductorContext, makeNode, storesWith } from '../helpers/builders';
import { FakeIpa } from '../helpers/fake-ipa';
import { agentHeartbeat, agentLookedUp as lookedUp } from '../helpers/flows';

let ipa: FakeIpa;
beforeEach(async () => {
  ipa = await new FakeIpa().start();
  setAgentClient(new AgentClient({ commandTimeoutMs: 2000, attempts: 3, retryIntervalMs: 1 }));
  setAgentConfig({ ...loadAgentConfig({}), postDeployPowerStateRetryIntervalSeconds: 0 });
});
afterEach(async () => {
  setAgentClient(undefined);
  setAgentConfig(undefined);
  await ipa.stop();
});

function context(templates: DeployTemplate[] = []) {
  const ctx = makeConductorContext();
  const deployTemplates = { getByNames: async (names: readonly string[]) => templates.filter((t) => names.includes(t.name)) };
  return Object.assign(ctx, { stores: storesWith(ctx.nodes, { deployTemplates: deployTemplates as unknown as DeployTemplateStore }) });
}

type Ctx = ReturnType<typeof context>;

async function deployingNode(ctx: Ctx, instanceInfo: Record<string, unknown> = {}) {
  const node = await ctx.nodes.create(
    makeNode({
      provision_state: 'available',
      deploy_interface: 'direct',
      instance_info: { image_source: 'http://images.example/disk.raw', image_checksum: 'abc123', ...instanceInfo },
    }),
  );
  node.processEvent('deploy');
  await ctx.nodes.save(node, { lockFor: { host: 'api', token: 'rpc:m1', ttlSeconds: 300 } });
  return node;
}

const agentLookedUp = (ctx: Ctx, uuid: string) => lookedUp(ctx, uuid, ipa.token);
const heartbeat = (ctx: Ctx, uuid: string, version?: string) => agentHeartbeat(ctx, uuid, ipa.url, version);

function start(ctx: Ctx, uuid: string, step: Step | null, token: string) {
  return handleStepsTask(ctx, { entry: 'steps', action: 'start', flow: 'deploy', node: uuid, owner: 'run:m1', step, token });
}

function lastCall(ctx: Ctx) {
  return ctx.steps.tokenCalls[ctx.steps.tokenCalls.length - 1];
}

const stepNames = (steps: Step[]) => steps.map((s) => `${s.interface}.${s.step}:${s.priority}`);

describe('direct deploy with the agent', () => {
  it('boots the ramdisk, merges the agent steps a template enables, runs them by heartbeats and reaches active', async () => {
    ipa.deploySteps = [
      { interface: 'deploy', step: 'write_image', priority: 0, reboot_requested: false },
      { interface: 'deploy', step: 'burn_in', priority: 0, reboot_requested: false },
    ];
    const template = new DeployTemplate({
      name: 'CUSTOM_BURN',
      steps: [{ interface: 'deploy', step: 'burn_in', priority: 90, args: { minutes: 1 } }],
    });
    const ctx = context([template]);
    const node = await deployingNode(ctx, { traits: ['CUSTOM_BURN'] });
    await doNodeDeploy(ctx, { node_id: node.uuid, lock_token: 'rpc:m1', message_id: 'm1' });
    const first = ctx.steps.started[0]?.input.decision as Decision;
    expect(first).toMatchObject({ mode: 'async', step: { interface: 'deploy', step: 'deploy', priority: 100 } });

    // RunStepAsync deploy.deploy: the ramdisk boots, the node waits with the token.
    await start(ctx, node.uuid, first.step, 't1');
    let stored = await ctx.nodes.get(node.uuid);
    expect(stored).toMatchObject({ provision_state: 'wait call-back', reservation: null, power_state: 'power on' });
    expect(stored.driver_internal_info.steps_task_token).toBe('t1');

    // First heartbeat: the agent's steps join the list; the template enables burn_in at 90.
    await agentLookedUp(ctx, node.uuid);
    await heartbeat(ctx, node.uuid);
    expect(lastCall(ctx)).toMatchObject({
      call: 'succeed',
      token: 't1',
      decision: { mode: 'async', step: { step: 'burn_in', priority: 90, args: { minutes: 1 } } },
    });
    stored = await ctx.nodes.get(node.uuid);
    expect(stored.provision_state).toBe('deploying');
    expect(stepNames(stored.driver_internal_info.deploy_steps as Step[])).toEqual([
      'deploy.deploy:100',
      'deploy.burn_in:90',
      'deploy.write_image:80',
      'deploy.prepare_instance_boot:60',
      'deploy.tear_down_agent:40',
      'deploy.switch_to_tenant_network:30',
      'deploy.boot_instance:20',
    ]);
    expect(stored.driver_internal_info.agent_url).toBe(ipa.url);

    // burn_in runs on the agent; a heartbeat while it runs only keeps the task alive.
    await start(ctx, node.uuid, (lastCall(ctx)?.decision as Decision).step, 't2');
    expect(ipa.requests.at(-1)).toMatchObject({
      name: 'deploy.execute_deploy_step',
      params: { step: { step: 'burn_in', args: { minutes: 1 } } },
    });
    await heartbeat(ctx, node.uuid);
    expect(lastCall(ctx)).toEqual({ call: 'heartbeat', token: 't2' });
    ipa.finish('SUCCEEDED');
    // Many heartbeats at once complete the step once.
    await Promise.all([heartbeat(ctx, node.uuid), heartbeat(ctx, node.uuid), heartbeat(ctx, node.uuid)]);
    expect(ctx.steps.tokenCalls.filter((c) => c.token === 't2' && c.call === 'succeed')).toHaveLength(1);
    expect(lastCall(ctx)).toMatchObject({ call: 'succeed', token: 't2', decision: { mode: 'async', step: { step: 'write_image' } } });

    // write_image: the agent gets the URL and the checksum.
    await start(ctx, node.uuid, (lastCall(ctx)?.decision as Decision).step, 't3');
    const write = ipa.requests.at(-1)?.params?.step as { args: { image_info: Record<string, unknown> } };
    expect(write.args.image_info).toMatchObject({ urls: ['http://images.example/disk.raw'], checksum: 'abc123', node_uuid: node.uuid });
    ipa.finish('SUCCEEDED');
    await heartbeat(ctx, node.uuid);
    let decision = lastCall(ctx)?.decision as Decision;
    expect(decision).toMatchObject({ mode: 'sync', step: { step: 'prepare_instance_boot' } });

    // The out-of-band rest runs synchronously.
    while (decision.mode === 'sync') {
      decision = (await handleStepsTask(ctx, {
        entry: 'steps',
        action: 'run',
        flow: 'deploy',
        node: node.uuid,
        owner: 'run:m1',
        step: decision.step,
      })) as Decision;
    }
    expect(decision.mode).toBe('done');
    stored = await ctx.nodes.get(node.uuid);
    expect(stored).toMatchObject({
      provision_state: 'active',
      power_state: 'power on',
      reservation: null,
      deploy_step: null,
      last_error: null,
    });
    expect(stored.driver_internal_info.agent_secret_token).toBeUndefined();
    expect(stored.driver_internal_info.steps_task_token).toBeUndefined();
  });

  it('fails the waiting task with the agent error when an in-band step fails', async () => {
    const ctx = context();
    const node = await deployingNode(ctx);
    await doNodeDeploy(ctx, { node_id: node.uuid, lock_token: 'rpc:m1', message_id: 'm1' });
    await start(ctx, node.uuid, ctx.steps.started[0]!.input.decision.step, 't1');
    await agentLookedUp(ctx, node.uuid);
    await heartbeat(ctx, node.uuid);
    await start(ctx, node.uuid, (lastCall(ctx)?.decision as Decision).step, 't2');
    ipa.finish('FAILED', { type: 'ImageChecksumError', details: 'The checksum of the image does not match' });
    await heartbeat(ctx, node.uuid);
    const failed = lastCall(ctx);
    expect(failed).toMatchObject({ call: 'fail', token: 't2', error: 'AgentStepFailed' });
    // The machine's Failed task then fails the node with that message.
    await handleStepsTask(ctx, {
      entry: 'steps',
      action: 'fail',
      flow: 'deploy',
      node: node.uuid,
      owner: 'run:m1',
      error: { Error: failed?.error, Cause: failed?.cause },
    });
    const stored = await ctx.nodes.get(node.uuid);
    expect(stored).toMatchObject({
      provision_state: 'deploy failed',
      power_state: 'power off',
      reservation: null,
      last_error: `Deploy step deploy.write_image failed on node ${node.uuid}. The checksum of the image does not match`,
    });
  });

  it('aborts after a step that may not be stopped, once the agent has finished it, instead of going on', async () => {
    ipa.deploySteps = [{ interface: 'deploy', step: 'burn_in', priority: 0, reboot_requested: false }];
    const template = new DeployTemplate({ name: 'CUSTOM_BURN', steps: [{ interface: 'deploy', step: 'burn_in', priority: 90, args: {} }] });
    const ctx = context([template]);
    const node = await deployingNode(ctx, { traits: ['CUSTOM_BURN'] });
    await doNodeDeploy(ctx, { node_id: node.uuid, lock_token: 'rpc:m1', message_id: 'm1' });
    const execution = ctx.steps.started[0]!.name;
    await start(ctx, node.uuid, ctx.steps.started[0]!.input.decision.step, 't1');
    await agentLookedUp(ctx, node.uuid);
    await heartbeat(ctx, node.uuid);
    await start(ctx, node.uuid, (lastCall(ctx)?.decision as Decision).step, 't2');
    const waiting = await ctx.nodes.get(node.uuid);
    // A requested deploy step is not abortable (Ironic keeps only interface, step, args, priority of
    // a template's step); the driver's own deploy steps are.
    expect(waiting.deploy_step).toEqual({ interface: 'deploy', step: 'burn_in', priority: 90, args: {} });
    const stored = waiting.driver_internal_info.deploy_steps as Step[];
    expect(stored.find((s) => s.step === 'write_image')?.abortable).toBe(true);
    // What the API does on abort for such a step: flag it.
    waiting.deploy_step = { ...waiting.deploy_step, abort_after: true };
    await ctx.nodes.save(waiting);

    await heartbeat(ctx, node.uuid);
    expect(lastCall(ctx)).toEqual({ call: 'heartbeat', token: 't2' });
    expect((await ctx.nodes.get(node.uuid)).provision_state).toBe('wait call-back');
    ipa.finish('SUCCEEDED');
    await heartbeat(ctx, node.uuid);
    const aborted = await ctx.nodes.get(node.uuid);
    expect(aborted).toMatchObject({
      provision_state: 'deploy failed',
      reservation: null,
      deploy_step: null,
      power_state: 'power off',
      last_error: 'By request, the deploy operation was aborted during or after the completion of step "deploy.burn_in"',
    });
    expect(ctx.steps.stopped).toEqual([execution]);
    expect(ctx.steps.tokenCalls.filter((c) => c.token === 't2' && c.call !== 'heartbeat')).toEqual([]);
    expect(ipa.requests.filter((r) => r.name === 'deploy.execute_deploy_step').map((r) => (r.params?.step as Step).step)).toEqual([
      'burn_in',
    ]);
    expect(aborted.driver_internal_info.deploy_steps).toBeUndefined();
    expect(aborted.driver_internal_info.steps_task_token).toBeUndefined();
  });

  it('fails the deploy when the agent comes back from a requested reboot with another version', async () => {
    ipa.deploySteps = [{ interface: 'deploy', step: 'firmware_update', priority: 95, reboot_requested: true }];
    const ctx = context();
    const node = await deployingNode(ctx);
    await doNodeDeploy(ctx, { node_id: node.uuid, lock_token: 'rpc:m1', message_id: 'm1' });
    await start(ctx, node.uuid, ctx.steps.started[0]!.input.decision.step, 't1');
    await agentLookedUp(ctx, node.uuid);
    await heartbeat(ctx, node.uuid, '9.0.0');
    await start(ctx, node.uuid, (lastCall(ctx)?.decision as Decision).step, 't2');
    ipa.finish('SUCCEEDED');
    await heartbeat(ctx, node.uuid, '9.0.0');
    let stored = await ctx.nodes.get(node.uuid);
    expect(stored.driver_internal_info.deployment_reboot).toBe(true);
    expect(lastCall(ctx)).toEqual({ call: 'heartbeat', token: 't2' });
    // The reboot wiped the token; the new agent looks up again and heartbeats with another version.
    ipa.reboot();
    await agentLookedUp(ctx, node.uuid);
    await heartbeat(ctx, node.uuid, '10.0.0');
    expect(lastCall(ctx)).toMatchObject({ call: 'fail', token: 't2', error: 'AgentStepFailed' });
    expect(lastCall(ctx)?.cause).toContain('the agent version changed from 9.0.0 to 10.0.0');
    stored = await ctx.nodes.get(node.uuid);
    expect(stored.reservation).toBeNull();
  });

  it('records the heartbeat only when the node does not wait for the agent', async () => {
    const ctx = context();
    const node = await ctx.nodes.create(makeNode({ provision_state: 'active', deploy_interface: 'direct' }));
    await heartbeat(ctx, node.uuid);
    const stored = await ctx.nodes.get(node.uuid);
    expect(stored.driver_internal_info).toMatchObject({ agent_url: ipa.url, agent_version: '9.0.0' });
    expect(ctx.steps.tokenCalls).toEqual([]);
  });

  it('refuses an in-band step outside 41-99 from a deploy template', async () => {
    ipa.deploySteps = [{ interface: 'deploy', step: 'burn_in', priority: 0 }];
    const template = new DeployTemplate({
      name: 'CUSTOM_EARLY',
      steps: [{ interface: 'deploy', step: 'burn_in', priority: 120, args: {} }],
    });
    const ctx = context([template]);
    const node = await deployingNode(ctx, { traits: ['CUSTOM_EARLY'] });
    await doNodeDeploy(ctx, { node_id: node.uuid, lock_token: 'rpc:m1', message_id: 'm1' });
    await start(ctx, node.uuid, ctx.steps.started[0]!.input.decision.step, 't1');
    await agentLookedUp(ctx, node.uuid);
    await heartbeat(ctx, node.uuid);
    expect(lastCall(ctx)).toMatchObject({ call: 'fail', token: 't1' });
    expect(lastCall(ctx)?.cause).toMatch(
      /^Failed to process the next deploy step: .*in-band deploy steps must have a priority between 41 and 99/,
    );
  });

  it('fails the deploy with a clear last_error when an s3:// image names a bucket the deployment does not allow', async () => {
    setAgentConfig({ ...loadAgentConfig({ IMAGE_S3_BUCKETS: 'images-a, images-b' }), postDeployPowerStateRetryIntervalSeconds: 0 });
    const ctx = context();
    const refused = await deployingNode(ctx, { image_source: 's3://someone-elses/disk.raw' });
    await doNodeDeploy(ctx, { node_id: refused.uuid, lock_token: 'rpc:m1', message_id: 'm1' });
    expect(await ctx.nodes.get(refused.uuid)).toMatchObject({
      provision_state: 'deploy failed',
      last_error: `Failed to prepare to deploy: Node ${refused.uuid}: image_source "s3://someone-elses/disk.raw" is in S3 bucket "someone-elses", which this deployment does not allow (allowed: images-a, images-b); the operator adds buckets with the stack setting imageBuckets`,
    });
    expect(ctx.steps.started).toHaveLength(0);
    const allowed = await deployingNode(ctx, { image_source: 's3://images-b/disk.raw' });
    await doNodeDeploy(ctx, { node_id: allowed.uuid, lock_token: 'rpc:m1', message_id: 'm2' });
    expect(await ctx.nodes.get(allowed.uuid)).toMatchObject({ provision_state: 'deploying', last_error: null });
    expect(ctx.steps.started).toHaveLength(1);
  });
});
