/**
 * The periodic task `poll_waiting_steps`: it looks only at nodes whose current step waits on the
 * BMC (a definition with `poll`, here the fake firmware's update made one) in `clean wait` /
 * `service wait` / `deploy wait`; a running step keeps the waiting task alive and lets the node
 * go; a finished one resumes the flow at its next step; a failed one fails the waiting task with
 * the step's message, which becomes `last_error` as it is; an agent heartbeat leaves such a step
 * alone; the walk is a bounded page per invocation.
 */
import { jest } from '@jest/globals';
import { pollWaitingSteps } from '../../../functions/conductor/flows/polled-steps';
import { doHeartbeat } from '../../../functions/conductor/flows/heartbeat';
import { AGENT_STEP_FAILED, failSteps, runStep } from '../../../functions/conductor/flows/run-steps';
import type { Step, StepDefinition, StepProgress, Task } from '../../../functions/drivers/base';
import { fakeFirmware } from '../../../functions/drivers/firmware';
import type { NodeData } from '../../../functions/objects/node';
import { makeConductorContext, makeNode } from '../helpers/builders';

type Ctx = ReturnType<typeof makeConductorContext>;

const UPDATE: Step = { interface: 'firmware', step: 'update', priority: 0, args: { settings: [] }, async: true, abortable: false };
const POWER_OFF: Step = { interface: 'power', step: 'power_off', priority: 0, args: {} };

type Mutable = { cleanSteps?: StepDefinition[]; serviceSteps?: StepDefinition[]; deploySteps?: StepDefinition[] };

/** The fake firmware's `update` made a step that waits on the BMC, its polls answered with `answers` in turn. */
function withChecks(...answers: StepProgress[]) {
  const calls: Task[] = [];
  const poll = jest.fn(async (task: Task): Promise<StepProgress> => {
    calls.push(task);
    return answers.shift() ?? { state: 'waiting' as const };
  });
  const fake = fakeFirmware as Mutable;
  const saved = { ...fake };
  const update: StepDefinition = { step: 'update', priority: 0, async: true, execute: async () => ({ wait: true }), poll };
  Object.assign(fake, { cleanSteps: [update], serviceSteps: [update], deploySteps: [update] });
  return {
    calls,
    restore: () => {
      delete fake.serviceSteps;
      delete fake.deploySteps;
      Object.assign(fake, saved);
    },
  };
}

/** A node parked in `state` at a firmware update, as RunStepAsync leaves it. */
async function waiting(ctx: Ctx, state = 'clean wait', steps: Step[] = [UPDATE, POWER_OFF], overrides: Partial<NodeData> = {}) {
  const flow = state === 'service wait' ? 'service' : state === 'deploy wait' ? 'deploy' : 'clean';
  return ctx.nodes.create(
    makeNode({
      provision_state: state,
      firmware_interface: 'fake',
      [`${flow}_step`]: { interface: 'firmware', step: 'update', priority: 0, args: { settings: [] } },
      driver_internal_info: {
        [`${flow}_steps`]: steps,
        [`${flow}_step_index`]: 0,
        steps_task_token: `token-${flow}`,
        steps_owner: 'run:m1',
        steps_execution: `${flow}-m1`,
        ...(flow === 'clean' ? { manual_cleaning: true } : {}),
      },
      ...overrides,
    }),
  );
}

describe('poll_waiting_steps', () => {
  it('keeps a running update waiting: the task heartbeated, the node let go and unchanged', async () => {
    const ctx = makeConductorContext();
    const node = await waiting(ctx);
    const { calls, restore } = withChecks({ state: 'waiting' });
    try {
      expect(await pollWaitingSteps(ctx)).toEqual({ checked: 1, resumed: 0, failed: 0 });
    } finally {
      restore();
    }
    expect(calls[0]?.node.uuid).toBe(node.uuid);
    expect(ctx.steps.tokenCalls).toEqual([{ call: 'heartbeat', token: 'token-clean' }]);
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({
      provision_state: 'clean wait',
      reservation: null,
      driver_internal_info: expect.objectContaining({ steps_task_token: 'token-clean' }),
    });
  });

  it('resumes the flow at its next step once the update is done, the lock handed to the execution', async () => {
    const ctx = makeConductorContext();
    const node = await waiting(ctx);
    const { restore } = withChecks({ state: 'done' });
    try {
      expect(await pollWaitingSteps(ctx)).toEqual({ checked: 1, resumed: 1, failed: 0 });
    } finally {
      restore();
    }
    expect(ctx.steps.tokenCalls).toEqual([
      { call: 'succeed', token: 'token-clean', decision: { mode: 'sync', step: expect.objectContaining({ step: 'power_off' }) } },
    ]);
    const after = await ctx.nodes.get(node.uuid);
    expect(after.provision_state).toBe('cleaning');
    expect(after.driver_internal_info).not.toHaveProperty('steps_task_token');
    expect(after.clean_step).toMatchObject({ interface: 'power', step: 'power_off' });
    expect(after.reservation).not.toBeNull();
    // The lock is the execution's: its next task takes it and runs the step.
    await runStep(ctx, { flow: 'clean', node: node.uuid, owner: 'run:m1', step: POWER_OFF });
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({ provision_state: 'manageable', reservation: null });
  });

  it('finishes a manual clean whose last step was the update: manageable', async () => {
    const ctx = makeConductorContext();
    const node = await waiting(ctx, 'clean wait', [UPDATE]);
    const { restore } = withChecks({ state: 'done' });
    try {
      await pollWaitingSteps(ctx);
    } finally {
      restore();
    }
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({ provision_state: 'manageable', clean_step: null, reservation: null });
    expect(ctx.steps.tokenCalls).toEqual([{ call: 'succeed', token: 'token-clean', decision: { mode: 'done', step: null } }]);
  });

  it("fails the waiting task with the interface's message, which the failure path keeps as last_error", async () => {
    const ctx = makeConductorContext();
    const node = await waiting(ctx, 'service wait', [UPDATE], { provision_state: 'service wait' });
    const message = `Firmware update failed for node ${node.uuid}, firmware http://i/bmc-2.bin. Error: Bad image.`;
    const { restore } = withChecks({ state: 'failed', message });
    try {
      expect(await pollWaitingSteps(ctx)).toEqual({ checked: 1, resumed: 0, failed: 1 });
    } finally {
      restore();
    }
    expect(ctx.steps.tokenCalls).toEqual([{ call: 'fail', token: 'token-service', error: AGENT_STEP_FAILED, cause: message }]);
    expect((await ctx.nodes.get(node.uuid)).driver_internal_info).not.toHaveProperty('steps_task_token');
    // The machine's Failed task, as Step Functions runs it next.
    await failSteps(ctx, { flow: 'service', node: node.uuid, owner: 'run:m1', error: { Error: AGENT_STEP_FAILED, Cause: message } });
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({ provision_state: 'service failed', last_error: message });
  });

  it('leaves alone nodes waiting for anything else, in maintenance, or locked', async () => {
    const ctx = makeConductorContext();
    await waiting(ctx, 'clean wait', [POWER_OFF, UPDATE]);
    await waiting(ctx, 'clean wait', [UPDATE], { maintenance: true });
    const locked = await waiting(ctx);
    await ctx.nodes.reserve(locked.uuid, { host: 'other', token: 'x', ttlSeconds: 300 });
    const { calls, restore } = withChecks();
    try {
      expect(await pollWaitingSteps(ctx)).toEqual({ checked: 0, resumed: 0, failed: 0 });
    } finally {
      restore();
    }
    expect(calls).toEqual([]);
    expect(ctx.steps.tokenCalls).toEqual([]);
  });

  it('hands the rest of a full page to another invocation before checking it', async () => {
    const ctx = makeConductorContext();
    for (let i = 0; i < 3; i++) await waiting(ctx);
    const handed: string[] = [];
    const { calls, restore } = withChecks();
    try {
      const run = await pollWaitingSteps(ctx, { pageSize: 2, continueAt: async (cursor: string) => void handed.push(cursor) });
      expect(run).toMatchObject({ checked: 2, continuedAt: handed[0] });
    } finally {
      restore();
    }
    expect(calls).toHaveLength(2);
    expect(handed).toHaveLength(1);
  });

  it('an agent heartbeat keeps the update waiting and does not ask the agent about it', async () => {
    const ctx = makeConductorContext();
    const node = await waiting(ctx);
    const { restore } = withChecks();
    try {
      await doHeartbeat(ctx, { node_id: node.uuid, callback_url: 'http://127.0.0.1:1', agent_version: '9.0.0', message_id: 'hb1' });
    } finally {
      restore();
    }
    expect(ctx.steps.tokenCalls).toEqual([{ call: 'heartbeat', token: 'token-clean' }]);
    expect(await ctx.nodes.get(node.uuid)).toMatchObject({ provision_state: 'clean wait', reservation: null });
  });
});
