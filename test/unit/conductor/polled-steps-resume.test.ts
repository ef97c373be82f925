/**
 * A step waiting on the BMC whose reboot booted the ramdisk again (the redfish BIOS steps in a
 * clean or service with the ramdisk): as in Ironic master, the freshly booted ramdisk's heartbeat
 * makes the step's second call (`resume`) and settles it, while the periodic `poll_waiting_steps`
 * still may; whichever takes the node's lock first wins and the other finds nothing left to do
 * (one SendTaskSuccess). In a deploy the step's reboot always booted the ramdisk (master's
 * `reboot_to_finish_step`), so its heartbeat settles the step there too, and a value not taken
 * fails the deploy at once. An old agent (commands run) or a clean or service wait without the
 * ramdisk leaves the step to the poll. An abort asked for during the wait (the step not abortable) ends the flow once
 * either settles the step; an abortable deploy step's wait is aborted at once, and neither the
 * poll nor a heartbeat touches the node after. Used as a deploy step, such a step parks the node
 * in `wait call-back` (deploy wait) with the task token and the poll resumes the deploy; one done
 * at once (a BIOS request whose values stand) never waits.
 */
import { jest } from '@jest/globals';
import { DEPLOYWAIT } from '../../../functions/common/states';
import { doAbort } from '../../../functions/conductor/flows/abort';
import { startAsyncStep } from '../../../functions/conductor/flows/async-steps';
import { pollWaitingSteps } from '../../../functions/conductor/flows/polled-steps';
import { AGENT_STEP_FAILED, failSteps } from '../../../functions/conductor/flows/run-steps';
import { AgentClient } from '../../../functions/drivers/agent-client';
import { setAgentClient } from '../../../functions/drivers/agent/inband';
import type { Step, StepDefinition, StepProgress, Task } from '../../../functions/drivers/base';
import { fakeFirmware } from '../../../functions/drivers/firmware';
import type { NodeData } from '../../../functions/objects/node';
import { makeConductorContext, makeNode } from '../helpers/builders';
import { FakeIpa } from '../helpers/fake-ipa';
import { type Ctx, agentHeartbeat } from '../helpers/flows';

const UPDATE: Step = { interface: 'firmware', step: 'update', priority: 0, args: { settings: [] }, async: true, abortable: false };
const POWER_OFF: Step = { interface: 'power', step: 'power_off', priority: 0, args: {} };

type Mutable = { cleanSteps?: StepDefinition[]; serviceSteps?: StepDefinition[]; deploySteps?: StepDefinition[] };
type Settled = Exclude<StepProgress, { state: 'waiting' }>;

let ipa: FakeIpa;
let restore: () => void = () => undefined;
beforeEach(async () => {
  ipa = await new FakeIpa().start();
  setAgentClient(new AgentClient({ commandTimeoutMs: 2000, attempts: 1, retryIntervalMs: 1 }));
});
afterEach(async () => {
  restore();
  setAgentClient(undefined);
  await ipa.stop();
});

/**
 * The fake firmware's `update` made a BIOS-like step: `poll` answers `polls` in turn, `resume`
 * answers `second`; its execute waits (reboots) unless `wait` is false (the values stood already).
 */
function biosLike(second: Settled, ...polls: StepProgress[]) {
  return biosLikeWaiting(true, second, ...polls);
}

function biosLikeWaiting(wait: boolean, second: Settled, ...polls: StepProgress[]) {
  const poll = jest.fn(async (_task: Task): Promise<StepProgress> => polls.shift() ?? { state: 'waiting' as const });
  const resume = jest.fn(async (_task: Task): Promise<Settled> => second);
  const fake = fakeFirmware as Mutable;
  const saved = { ...fake };
  const update: StepDefinition = { step: 'update', priority: 0, async: true, execute: async () => ({ wait }), poll, resume };
  Object.assign(fake, { cleanSteps: [update], serviceSteps: [update], deploySteps: [update] });
  restore = () => {
    delete fake.serviceSteps;
    delete fake.deploySteps;
    Object.assign(fake, saved);
  };
  return { poll, resume };
}

/** A node parked in `state` at the update after its reboot, as RunStepAsync leaves it (`ramdisk`: the flow booted one). */
async function waiting(
  ctx: Ctx,
  state: string,
  options: { ramdisk?: boolean; step?: Partial<Step> & { abort_after?: boolean }; overrides?: Partial<NodeData> } = {},
) {
  const flow = state === 'service wait' ? 'service' : state === DEPLOYWAIT ? 'deploy' : 'clean';
  return ctx.nodes.create(
    makeNode({
      provision_state: state,
      firmware_interface: 'fake',
      ...(flow === 'clean' ? {} : { target_provision_state: 'active' }),
      [`${flow}_step`]: { interface: 'firmware', step: 'update', priority: 0, args: { settings: [] }, ...options.step },
      driver_internal_info: {
        [`${flow}_steps`]: [UPDATE, POWER_OFF],
        [`${flow}_step_index`]: 0,
        steps_task_token: `token-${flow}`,
        steps_owner: 'run:m1',
        steps_execution: `${flow}-m1`,
        agent_url: ipa.url,
        agent_secret_token: ipa.token,
        ...(options.ramdisk === false ? {} : { steps_boot_agent: true }),
        ...(flow === 'clean' ? { manual_cleaning: true } : {}),
      },
      ...options.overrides,
    }),
  );
}

const succeeded = (ctx: Ctx) => ctx.steps.tokenCalls.filter((c) => c.call === 'succeed');

describe('the ramdisk resumes a polled step after its reboot', () => {
  it.each(['clean wait', 'service wait'])(
    'in %s: the freshly booted ramdisk makes the second call and the flow goes on; a later poll finds nothing',
    async (state) => {
      const ctx = makeConductorContext();
      const { poll, resume } = biosLike({ state: 'done' });
      const node = await waiting(ctx, state);
      await agentHeartbeat(ctx, node.uuid, ipa.url);
      expect(resume).toHaveBeenCalledTimes(1);
      const flow = state === 'service wait' ? 'service' : 'clean';
      expect(ctx.steps.tokenCalls).toEqual([
        { call: 'succeed', token: `token-${flow}`, decision: { mode: 'sync', step: expect.objectContaining({ step: 'power_off' }) } },
      ]);
      const after = await ctx.nodes.get(node.uuid);
      expect(after.provision_state).toBe(state === 'service wait' ? 'servicing' : 'cleaning');
      expect(after.driver_internal_info).not.toHaveProperty('steps_task_token');
      // The poll that comes next: the node is the execution's now, and past the step.
      expect(await pollWaitingSteps(ctx)).toEqual({ checked: 0, resumed: 0, failed: 0 });
      expect(poll).not.toHaveBeenCalled();
      expect(succeeded(ctx)).toHaveLength(1);
    },
  );

  it('a poll that settled it first leaves the next heartbeat nothing to do', async () => {
    const ctx = makeConductorContext();
    const { resume } = biosLike({ state: 'done' }, { state: 'done' });
    const node = await waiting(ctx, 'clean wait');
    expect(await pollWaitingSteps(ctx)).toEqual({ checked: 1, resumed: 1, failed: 0 });
    await agentHeartbeat(ctx, node.uuid, ipa.url);
    expect(resume).not.toHaveBeenCalled();
    expect(succeeded(ctx)).toHaveLength(1);
  });

  it('a heartbeat and a poll at the same moment: one settles the step, once', async () => {
    const ctx = makeConductorContext();
    const { poll, resume } = biosLike({ state: 'done' }, { state: 'done' });
    const node = await waiting(ctx, 'clean wait');
    await Promise.all([agentHeartbeat(ctx, node.uuid, ipa.url), pollWaitingSteps(ctx)]);
    expect(poll.mock.calls.length + resume.mock.calls.length).toBe(1);
    expect(succeeded(ctx)).toHaveLength(1);
    expect(ctx.steps.tokenCalls.filter((c) => c.call === 'fail')).toEqual([]);
    expect((await ctx.nodes.get(node.uuid)).provision_state).toBe('cleaning');
  });

  it("a second call that finds a value not taken fails the flow with the step's message as last_error", async () => {
    const ctx = makeConductorContext();
    const message = "Redfish BIOS apply_configuration step failed. Attributes {'NumLock': False} are not updated.";
    biosLike({ state: 'failed', message });
    const node = await waiting(ctx, 'clean wait');
    await agentHeartbeat(ctx, node.uuid, ipa.url);
    expect(ctx.steps.tokenCalls).toEqual([{ call: 'fail', token: 'token-clean', error: AGENT_STEP_FAILED, cause: message }]);
    await failSteps(ctx, { flow: 'clean', node: node.uuid, owner: 'run:m1', error: { Error: AGENT_STEP_FAILED, Cause: message } });
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({ provision_state: 'clean failed', last_error: message });
  });

  it("in wait call-back (a deploy step's reboot always boots the ramdisk): the heartbeat makes the second call at once", async () => {
    const ctx = makeConductorContext();
    const { poll, resume } = biosLike({ state: 'done' });
    const node = await waiting(ctx, DEPLOYWAIT, { ramdisk: false });
    await agentHeartbeat(ctx, node.uuid, ipa.url);
    expect(resume).toHaveBeenCalledTimes(1);
    expect(ctx.steps.tokenCalls).toEqual([
      { call: 'succeed', token: 'token-deploy', decision: { mode: 'sync', step: expect.objectContaining({ step: 'power_off' }) } },
    ]);
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({ provision_state: 'deploying', deploy_step: { interface: 'power' } });
    expect(await pollWaitingSteps(ctx)).toEqual({ checked: 0, resumed: 0, failed: 0 });
    expect(poll).not.toHaveBeenCalled();
  });

  it('in wait call-back a value the firmware never took fails the deploy at the heartbeat, not at the timeout', async () => {
    const ctx = makeConductorContext();
    const message = "Redfish BIOS apply_configuration step failed. Attributes {'NumLock': False} are not updated.";
    biosLike({ state: 'failed', message });
    const node = await waiting(ctx, DEPLOYWAIT, { ramdisk: false });
    await agentHeartbeat(ctx, node.uuid, ipa.url);
    expect(ctx.steps.tokenCalls).toEqual([{ call: 'fail', token: 'token-deploy', error: AGENT_STEP_FAILED, cause: message }]);
    await failSteps(ctx, { flow: 'deploy', node: node.uuid, owner: 'run:m1', error: { Error: AGENT_STEP_FAILED, Cause: message } });
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({ provision_state: 'deploy failed', last_error: message });
  });

  it('an agent that has run commands since (not freshly booted), or a wait without the ramdisk, keeps the step waiting', async () => {
    const ctx = makeConductorContext();
    const { resume } = biosLike({ state: 'done' });
    ipa.commands.push({
      id: 'c0',
      command_name: 'execute_clean_step',
      command_status: 'SUCCEEDED',
      command_error: null,
      command_result: {},
      params: {},
    });
    const old = await waiting(ctx, 'clean wait');
    await agentHeartbeat(ctx, old.uuid, ipa.url);
    ipa.reboot();
    const noRamdisk = await waiting(ctx, 'service wait', { ramdisk: false });
    await agentHeartbeat(ctx, noRamdisk.uuid, ipa.url);
    expect(resume).not.toHaveBeenCalled();
    expect(ctx.steps.tokenCalls).toEqual([
      { call: 'heartbeat', token: 'token-clean' },
      { call: 'heartbeat', token: 'token-service' },
    ]);
    expect(await ctx.nodes.get(old.uuid)).toMatchObject({ provision_state: 'clean wait', reservation: null });
  });
});

describe('abort while a polled step waits', () => {
  it.each([
    ['clean wait', 'the poll', 'clean'],
    ['clean wait', 'the heartbeat', 'clean'],
    ['service wait', 'the poll', 'service'],
  ] as const)('in %s (step not abortable, flagged by the API): the flow is aborted once %s settles the step', async (state, by, flow) => {
    const ctx = makeConductorContext();
    biosLike({ state: 'done' }, { state: 'done' });
    const node = await waiting(ctx, state, { step: { abortable: false, abort_after: true } });
    if (by === 'the poll') expect(await pollWaitingSteps(ctx)).toEqual({ checked: 1, resumed: 1, failed: 0 });
    else await agentHeartbeat(ctx, node.uuid, ipa.url);
    expect(ctx.steps.stopped).toEqual([`${flow}-m1`]);
    expect(succeeded(ctx)).toEqual([]);
    const after = await ctx.nodes.get(node.uuid);
    expect(after).toMatchObject({
      provision_state: flow === 'clean' ? 'clean failed' : 'service failed',
      reservation: null,
      last_error: `By request, the ${flow} operation was aborted during or after the completion of step "firmware.update"`,
    });
  });

  it('in wait call-back (deploy wait; deploy steps are abortable): aborted at once; the poll and a heartbeat after leave the node alone', async () => {
    const ctx = makeConductorContext();
    const { poll, resume } = biosLike({ state: 'done' }, { state: 'done' });
    const node = await waiting(ctx, DEPLOYWAIT, { ramdisk: false, step: { abortable: true } });
    // What the API does for an abortable step: the state machine's abort, the node locked for the message.
    const locked = await ctx.nodes.get(node.uuid);
    locked.processEvent('abort');
    await ctx.nodes.save(locked, { lockFor: { host: 'api', token: 'rpc:a1', ttlSeconds: 300 } });
    await doAbort(ctx, { node_id: node.uuid, lock_token: 'rpc:a1', message_id: 'a1' });
    expect(ctx.steps.stopped).toEqual(['deploy-m1']);
    expect(await pollWaitingSteps(ctx)).toEqual({ checked: 0, resumed: 0, failed: 0 });
    await agentHeartbeat(ctx, node.uuid, ipa.url);
    expect(poll).not.toHaveBeenCalled();
    expect(resume).not.toHaveBeenCalled();
    expect(ctx.steps.tokenCalls).toEqual([]);
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({ provision_state: 'deploy failed', reservation: null, deploy_step: null });
  });
});

describe('a polled step used as a deploy step (deploy templates, user deploy steps)', () => {
  /** A deploy at the update, as the execution's RunStepAsync finds it. */
  async function deploying(ctx: Ctx) {
    const node = await ctx.nodes.create(
      makeNode({
        provision_state: 'deploying',
        target_provision_state: 'active',
        firmware_interface: 'fake',
        deploy_step: { interface: 'firmware', step: 'update', priority: 150, args: { settings: [] } },
        driver_internal_info: {
          deploy_steps: [UPDATE, POWER_OFF],
          deploy_step_index: 0,
          steps_owner: 'run:m1',
          steps_execution: 'deploy-m1',
        },
      }),
    );
    await startAsyncStep(ctx, { flow: 'deploy', node: node.uuid, owner: 'run:m1', step: UPDATE, token: 'token-deploy' });
    return node;
  }

  it('waits in wait call-back with the task token, and the poll resumes the deploy at its next step', async () => {
    const ctx = makeConductorContext();
    const { poll } = biosLike({ state: 'done' }, { state: 'waiting' }, { state: 'done' });
    const node = await deploying(ctx);
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({
      provision_state: DEPLOYWAIT,
      reservation: null,
      driver_internal_info: expect.objectContaining({ steps_task_token: 'token-deploy' }),
    });
    expect(await pollWaitingSteps(ctx)).toEqual({ checked: 1, resumed: 0, failed: 0 });
    expect(await pollWaitingSteps(ctx)).toEqual({ checked: 1, resumed: 1, failed: 0 });
    expect(poll).toHaveBeenCalledTimes(2);
    expect(ctx.steps.tokenCalls).toEqual([
      { call: 'heartbeat', token: 'token-deploy' },
      { call: 'succeed', token: 'token-deploy', decision: { mode: 'sync', step: expect.objectContaining({ step: 'power_off' }) } },
    ]);
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({
      provision_state: 'deploying',
      deploy_step: { interface: 'power', step: 'power_off' },
    });
  });

  it('a step done at once (a BIOS request whose values stand already) never waits: the deploy goes on', async () => {
    const ctx = makeConductorContext();
    const { poll } = biosLikeWaiting(false, { state: 'done' });
    const node = await deploying(ctx);
    expect(ctx.steps.tokenCalls).toEqual([
      { call: 'succeed', token: 'token-deploy', decision: { mode: 'sync', step: expect.objectContaining({ step: 'power_off' }) } },
    ]);
    expect((await ctx.nodes.get(node.uuid)).provision_state).toBe('deploying');
    expect(await pollWaitingSteps(ctx)).toEqual({ checked: 0, resumed: 0, failed: 0 });
    expect(poll).not.toHaveBeenCalled();
  });
});
