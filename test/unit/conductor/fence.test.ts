/**
 * A step that its execution gave up on acts no more: its node copy is fenced by the revision the
 * failure path (or a retry) moves on, and bounded by its deadline. Executions that no longer own
 * the flow touch nothing; the stuck-node task stops the execution it abandons. The "BMC" here is
 * a fake agent on loopback whose request log shows what reached it.
 */
import { invocationDeadline, stepDeadline } from '../../../functions/conductor/attempt';
import { failSteps, reserveForStep } from '../../../functions/conductor/flows/run-steps';
import { failStuckNodes } from '../../../functions/conductor/flows/stuck';
import { ConcurrentUpdate, InvalidState } from '../../../functions/common/errors';
import { AgentClient } from '../../../functions/drivers/agent-client';
import { ActionRefused } from '../../../functions/drivers/guard';
import type { NodeData } from '../../../functions/objects/node';
import { FakeIpa } from '../helpers/fake-ipa';
import { makeConductorContext, makeNode } from '../helpers/builders';

const step = { interface: 'deploy' as const, step: 'deploy', priority: 100, args: {} };

let ipa: FakeIpa;
beforeEach(async () => {
  ipa = await new FakeIpa().start();
});
afterEach(async () => {
  await ipa.stop();
});

const client = () => new AgentClient({ commandTimeoutMs: 2000, attempts: 1, retryIntervalMs: 1 });

async function deploying(ctx: ReturnType<typeof makeConductorContext>, overrides: Partial<NodeData> = {}) {
  const node = makeNode({
    provision_state: 'deploying',
    target_provision_state: 'active',
    driver_internal_info: {
      deploy_steps: [step],
      deploy_step_index: 0,
      steps_execution: 'deploy-x-m1',
      steps_owner: 'run:m1',
      agent_url: ipa.url,
      agent_secret_token: ipa.token,
    },
    ...overrides,
  });
  return ctx.nodes.create(node);
}

describe('a step attempt', () => {
  it('sends nothing to the agent once the failure path has taken the node, and cannot save', async () => {
    const ctx = makeConductorContext();
    const created = await deploying(ctx);
    const input = { flow: 'deploy' as const, node: created.uuid, owner: 'run:m1' };
    const attempt = await reserveForStep(ctx, input, step);
    // While it runs it may act.
    await client().command(attempt, 'standby.sync', {}, true);
    expect(ipa.requests).toHaveLength(1);

    // Step Functions gave up on it: the failure path takes the node (with the same owner token).
    await failSteps(ctx, { ...input, error: { Error: 'States.Timeout' } });
    expect(await ctx.nodes.get(created.uuid)).toMatchObject({ provision_state: 'deploy failed' });

    const refused = await client()
      .command(attempt, 'standby.power_off', {})
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ActionRefused);
    expect(refused).toMatchObject({ reason: 'fenced' });
    expect(ipa.requests).toHaveLength(1);
    await expect(ctx.nodes.save(attempt)).rejects.toBeInstanceOf(ConcurrentUpdate);
  });

  it('is fenced by a retry of the same step too', async () => {
    const ctx = makeConductorContext();
    const created = await deploying(ctx);
    const input = { flow: 'deploy' as const, node: created.uuid, owner: 'run:m1' };
    const first = await reserveForStep(ctx, input, step);
    const second = await reserveForStep(ctx, input, step);
    await expect(client().commandsStatus(first)).rejects.toMatchObject({ reason: 'fenced' });
    await expect(client().commandsStatus(second)).resolves.toEqual([]);
    expect(ipa.requests).toHaveLength(1);
  });

  it('stops at its deadline, before Step Functions gives up on it', async () => {
    const ctx = { ...makeConductorContext(), deadline: Date.now() - 1 };
    const created = await deploying(ctx);
    const attempt = await reserveForStep(ctx, { flow: 'deploy', node: created.uuid, owner: 'run:m1' }, step);
    await expect(client().commandsStatus(attempt)).rejects.toMatchObject({ name: 'ActionRefused', reason: 'deadline' });
    expect(ipa.requests).toHaveLength(0);
  });

  it('waits no longer than its deadline for an answer', async () => {
    const ctx = { ...makeConductorContext(), deadline: Date.now() + 300 };
    const created = await deploying(ctx);
    const attempt = await reserveForStep(ctx, { flow: 'deploy', node: created.uuid, owner: 'run:m1' }, step);
    ipa.hang = true;
    const started = Date.now();
    await expect(
      new AgentClient({ commandTimeoutMs: 60_000, attempts: 1, retryIntervalMs: 1 }).commandsStatus(attempt),
    ).rejects.toMatchObject({
      name: 'ActionRefused',
      reason: 'deadline',
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('deadlines', () => {
  it('keep a margin before the invocation ends and before the step timeout', () => {
    expect(invocationDeadline(120_000, 0)).toBe(115_000);
    expect(invocationDeadline(8_000, 0)).toBe(6_000);
    // 120 s left in the invocation, but Step Functions gives the step 100 s.
    expect(stepDeadline(120_000, 100, 0)).toBe(95_000);
    expect(stepDeadline(20_000, 100, 0)).toBe(15_000);
  });
});

describe('an execution that no longer owns the flow', () => {
  it('may not run a step of a newer flow, and leaves its lock free', async () => {
    const ctx = makeConductorContext();
    const created = await deploying(ctx);
    await expect(reserveForStep(ctx, { flow: 'deploy', node: created.uuid, owner: 'run:old' }, step)).rejects.toBeInstanceOf(InvalidState);
    expect(await ctx.nodes.get(created.uuid)).toMatchObject({ reservation: null, provision_state: 'deploying' });
  });

  it('does not fail the newer flow, nor take its lock', async () => {
    const ctx = makeConductorContext();
    const created = await deploying(ctx);
    const revision = await ctx.nodes.revision(created.uuid);
    await failSteps(ctx, { flow: 'deploy', node: created.uuid, owner: 'run:old', error: { Error: 'States.Timeout' } });
    expect(await ctx.nodes.get(created.uuid)).toMatchObject({ provision_state: 'deploying', last_error: null });
    expect(await ctx.nodes.revision(created.uuid)).toBe(revision);
  });
});

describe('the stuck-node task', () => {
  it('stops the execution of a node it fails, and forgets the execution', async () => {
    const ctx = makeConductorContext();
    const created = await deploying(ctx);
    expect((await failStuckNodes(ctx)).failed).toBe(1);
    expect(ctx.steps.stopped).toEqual(['deploy-x-m1']);
    const node = await ctx.nodes.get(created.uuid);
    expect(node.provision_state).toBe('deploy failed');
    expect(node.driver_internal_info).not.toHaveProperty('steps_owner');
    expect(node.driver_internal_info).not.toHaveProperty('steps_execution');
    // Its tasks, should any still run, find the flow no longer theirs.
    await expect(reserveForStep(ctx, { flow: 'deploy', node: created.uuid, owner: 'run:m1' }, step)).rejects.toBeInstanceOf(InvalidState);
  });
});
