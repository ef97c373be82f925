/**
 * Asynchronous steps: the steps machine's RunStepAsync task starts a step that finishes later
 * (booting the ramdisk, an in-band step on the agent) and parks the node in its wait state with the
 * task token on it; agent heartbeats then keep the task alive and complete it (`heartbeat.ts`).
 *
 * The node is not locked while it waits (as in Ironic), so a heartbeat or an abort can take it.
 */
import type { Step, Task } from '#drivers/base';
import { executeInbandStep, fetchAgentSteps, type AgentFlow } from '#drivers/agent/inband';
import { loadDriver } from '#drivers/registry';
import type { Driver } from '#drivers/base';
import type { Node } from '#objects/node';
import { InvalidState } from '#common/errors';
import type { ConductorContext, Decision, FlowName } from '../context';
import type { LockOwner } from '#db/nodes';
import { lockOwner } from '../lock';
import { reserveForStep } from './run-steps';
import { nextStep } from './step-advance';
import { cleanStepsWithAgent, deployStepsWithAgent } from './step-lists';
import { currentStepField, findStep, setSteps, stepName, storedSteps } from './steps';

/** Task RunStepAsync: start the step; either park the node until the agent reports, or go on at once. */
export async function startAsyncStep(
  ctx: ConductorContext,
  input: { flow: FlowName; node: string; owner: string; step: Step | null; token: string },
): Promise<{ ok: true }> {
  const node = await reserveForStep(ctx, input, input.step);
  const driver = loadDriver(node);
  const task: Task = { node, log: ctx.log, persist: async () => void (await ctx.nodes.save(node)) };
  let wait: boolean;
  let agentUp = false;
  if (input.step === null) {
    wait = (await driver.deploy.prepareCleaning?.(task)) ?? false;
    agentUp = !wait;
  } else if (input.step.inband) {
    // The step's interface checks and prepares the node first (agent RAID: the target it builds).
    driver.interfaces[input.step.interface]?.inband?.prepare?.[input.flow]?.[input.step.step]?.(task, input.step);
    await executeInbandStep(task, input.flow as AgentFlow, input.step);
    wait = true;
  } else {
    const impl = findStep(driver, input.flow, input.step);
    if (impl === undefined) throw new InvalidState(`Node ${node.uuid}: driver has no ${input.flow} step ${stepName(input.step)}`);
    ctx.log.info(`Starting ${input.flow} step`, { node: node.uuid, step: stepName(input.step) });
    wait = (await impl.execute(task, input.step.args)).wait;
    agentUp = !wait && isAgentBootStep(driver, input.flow, input.step);
  }
  if (wait) {
    node.driver_internal_info = { ...node.driver_internal_info, steps_task_token: input.token };
    node.processEvent('wait');
    await ctx.nodes.save(node, { release: true });
    ctx.log.info('Waiting for the agent', { node: node.uuid, state: node.provision_state });
    return { ok: true };
  }
  // Finished at once (fast track: the agent was already up).
  // The node stays locked for the execution, which runs the next step.
  const decision = agentUp ? await agentReady(ctx, task, driver, input.flow) : await nextStep(ctx, node, input.flow);
  await ctx.steps.succeed(input.token, decision);
  return { ok: true };
}

/** The step whose end means the ramdisk is up: `deploy.deploy` of an agent deploy interface. */
export function isAgentBootStep(driver: Driver, flow: FlowName, step: Step | null): boolean {
  if (!driver.deploy.usesAgent) return false;
  if (step === null) return flow !== 'deploy';
  return flow === 'deploy' && step.interface === 'deploy' && step.step === 'deploy';
}

/**
 * The agent has booted: fetch its steps, merge them into the flow's list, and move to the step
 * after the current one. The node stays locked; the caller saves it (unless the flow finished).
 */
export async function agentReady(
  ctx: ConductorContext,
  task: Task,
  driver: Driver,
  flow: FlowName,
  lockFor?: LockOwner,
): Promise<Decision> {
  const node = task.node;
  const { steps: reported, version } = await fetchAgentSteps(task, flow as AgentFlow);
  // Only the agent's steps of interfaces that run them (direct deploy, agent RAID) join the lists,
  // as Ironic asks each of the node's interfaces for its steps.
  const agentSteps = reported.filter((s) => driver.interfaces[s.interface]?.inband !== undefined);
  const cacheKey = `agent_cached_${flow}_steps`;
  node.driver_internal_info = {
    ...node.driver_internal_info,
    [cacheKey]: reported,
    hardware_manager_version: version,
    agent_version_at_boot: node.driver_internal_info.agent_version ?? null,
  };
  if (flow === 'deploy') {
    const { steps, index } = storedSteps(node, flow);
    const current = steps[index];
    const merged = deployStepsWithAgent(node, driver, agentSteps);
    const at = current ? merged.findIndex((s) => stepName(s) === stepName(current)) : -1;
    setSteps(node, flow, merged);
    node.driver_internal_info = { ...node.driver_internal_info, deploy_step_index: at };
    if (current) node.deploy_step = currentStepField(current);
  } else {
    setSteps(node, flow, cleanStepsWithAgent(flow, node, driver, agentSteps));
  }
  ctx.log.info('Agent steps merged', { node: node.uuid, flow, steps: storedSteps(node, flow).steps.map(stepName) });
  return nextStep(ctx, node, flow, { lockFor });
}

/**
 * Take a waiting node back for the execution: out of the wait state, the token taken off (so no
 * other heartbeat can complete the same task), the lock handed to the execution's owner. Returns
 * the token to complete, or undefined when someone else already did.
 */
export function takeToken(node: Node): string | undefined {
  const token = node.driver_internal_info.steps_task_token;
  if (typeof token !== 'string') return undefined;
  const info = { ...node.driver_internal_info };
  delete info.steps_task_token;
  node.driver_internal_info = info;
  return token;
}

/** Resume a waiting flow at its next step and complete the waiting task with that decision. */
export async function resumeWithNextStep(
  ctx: ConductorContext,
  node: Node,
  flow: FlowName,
  token: string,
  next: (node: Node) => Promise<Decision>,
): Promise<Decision> {
  node.processEvent('resume');
  const decision = await next(node);
  const delivered = await ctx.steps.succeed(token, decision);
  if (!delivered) ctx.log.warn('The waiting task was gone when the step finished', { node: node.uuid, flow });
  return decision;
}

/** The lock of the execution that runs the node's steps, to hand the node to. */
export function executionOwner(ctx: ConductorContext, node: Node): LockOwner | undefined {
  const owner = node.driver_internal_info.steps_owner;
  return typeof owner === 'string' ? lockOwner(ctx, owner) : undefined;
}
