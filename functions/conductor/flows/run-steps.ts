/**
 * Handing a flow to the steps machine and the machine's three tasks: run a synchronous step,
 * start an asynchronous one, fail the flow. Each task returns the next decision, so one step costs
 * two state transitions (Route, RunStep).
 */
import { CLEANING, DEPLOYING, SERVICING } from '#common/states';
import { InvalidState } from '#common/errors';
import type { Step, Task } from '#drivers/base';
import { loadDriver } from '#drivers/registry';
import type { Node } from '#objects/node';
import type { ConductorContext, Decision, FlowName } from '../context';
import { lockOwner } from '../lock';
import { guarded } from '../attempt';
import { biosSettingsPort } from '../bios';
import { firmwareComponentsPort } from '../firmware';
import { failFlow } from './failure';
import { FLOWS } from './flow-kinds';
import { isReservedStep, runReservedStep } from './reserved';
import { executionName, finishFlow, nextStep } from './step-advance';
import { advanceTo, findStep, stepName, storedSteps } from './steps';

/** Error name of a failed in-band step, sent with SendTaskFailure. */
export const AGENT_STEP_FAILED = 'AgentStepFailed';

/**
 * Start the steps machine for a node whose step list is stored and whose lock `owner` holds. With
 * no steps at all the flow finishes here, without an execution.
 */
export async function startSteps(
  ctx: ConductorContext,
  node: Node,
  flow: FlowName,
  owner: string,
  messageId: string,
  options: { bootAgent?: boolean } = {},
): Promise<void> {
  const start = recordStart(node, flow, owner, messageId, options);
  if (start.decision.mode === 'done') {
    await finishFlow(ctx, node, flow);
    return;
  }
  await ctx.nodes.save(node);
  await launchSteps(ctx, node, flow, owner, start);
}

/** What starting a flow's execution records on the node, and the decision it starts with. */
export interface StepsStart {
  readonly name: string;
  readonly decision: Decision;
}

/**
 * Record on `node` (not saved) the execution that will run its stored steps: its name and owner.
 * With no steps the decision is `done` and nothing is recorded (the flow finishes without one).
 */
export function recordStart(
  node: Node,
  flow: FlowName,
  owner: string,
  messageId: string,
  options: { bootAgent?: boolean } = {},
): StepsStart {
  // With an agent to boot first (cleaning, servicing), the steps are known only once it is up.
  const decision: Decision = options.bootAgent ? BOOT_AGENT : advanceTo(node, flow, 0);
  const name = executionName(flow, node, messageId);
  if (decision.mode === 'done') return { name, decision };
  node.driver_internal_info = {
    ...node.driver_internal_info,
    steps_execution: name,
    steps_owner: owner,
    ...(options.bootAgent ? { steps_boot_agent: true } : {}),
  };
  return { name, decision };
}

/** Start the execution `recordStart` recorded on the node, once the node is saved with it. */
export async function launchSteps(ctx: ConductorContext, node: Node, flow: FlowName, owner: string, start: StepsStart): Promise<void> {
  await ctx.steps.start(start.name, { flow, node: node.uuid, owner, decision: start.decision });
  ctx.log.info('Steps machine started', {
    node: node.uuid,
    flow,
    execution: start.name,
    steps: storedSteps(node, flow).steps.map(stepName),
  });
}

/** Re-issue the start of an execution recorded on the node (a redelivered message). */
export async function resumeStart(ctx: ConductorContext, node: Node, flow: FlowName, owner: string, messageId: string): Promise<void> {
  const name = executionName(flow, node, messageId);
  if (node.driver_internal_info.steps_execution !== name) {
    ctx.log.info('A different execution runs this flow; ignoring redelivered message', {
      node: node.uuid,
      execution: node.driver_internal_info.steps_execution,
    });
    return;
  }
  // The step the execution starts at: the first, or the one after a hold (unhold continues there).
  const { steps, index } = storedSteps(node, flow);
  const first = steps[Math.max(index, 0)];
  const decision: Decision =
    index === -1 && node.driver_internal_info.steps_boot_agent === true
      ? BOOT_AGENT
      : first
        ? { mode: first.async ? 'async' : 'sync', step: first }
        : DONE;
  if (decision.mode === 'done') return;
  await ctx.steps.start(name, { flow, node: node.uuid, owner, decision });
}

/** The first decision of a flow that boots the agent before its steps are known. */
export const BOOT_AGENT: Decision = { mode: 'async', step: null };
const DONE: Decision = { mode: 'done', step: null };

const RUNNING_STATE: Readonly<Record<FlowName, string>> = { deploy: DEPLOYING, clean: CLEANING, service: SERVICING };

/**
 * Whether the execution holding `owner` still runs the node's flow: every execution records its
 * lock token as `steps_owner` when it starts (2026.3 did too), and a newer flow, or the end of
 * this one, replaces or removes it. An execution that lost it must not touch the node.
 */
export function ownsSteps(node: Node, owner: string): boolean {
  return node.driver_internal_info.steps_owner === owner;
}

/**
 * Lock the node for the execution and check it is still at `step` of this flow (null: booting the
 * agent, before the first step), and that the execution still owns the flow. The node copy
 * returned is guarded (`attempt.ts`): this attempt acts on the hardware only until its deadline,
 * and only while nobody else has written the node since.
 */
export async function reserveForStep(
  ctx: ConductorContext,
  input: { flow: FlowName; node: string; owner: string },
  step: Step | null,
): Promise<Node> {
  const node = await ctx.nodes.reserve(input.node, lockOwner(ctx, input.owner));
  if (!ownsSteps(node, input.owner)) {
    await ctx.nodes.release(node);
    throw new InvalidState(
      `Node ${node.uuid} is no longer run by this ${input.flow} execution: another flow owns it (state "${node.provision_state}")`,
    );
  }
  guarded(ctx, node, `${FLOWS[input.flow].label} step ${step ? stepName(step) : '(agent boot)'}`);
  const { steps, index } = storedSteps(node, input.flow);
  const current = steps[index];
  const where =
    step === null
      ? index === -1 && node.driver_internal_info.steps_boot_agent === true
      : current !== undefined && stepName(current) === stepName(step);
  if (node.provision_state !== RUNNING_STATE[input.flow] || !where) {
    await ctx.nodes.release(node);
    throw new InvalidState(
      `Node ${node.uuid} is not running ${input.flow} step ${step ? stepName(step) : '(agent boot)'} (state "${node.provision_state}", step ${current ? stepName(current) : 'none'})`,
    );
  }
  return node;
}

/** Task RunStep: execute a synchronous step, then move to the next one. */
export async function runStep(
  ctx: ConductorContext,
  input: { flow: FlowName; node: string; owner: string; step: Step },
): Promise<Decision> {
  const node = await reserveForStep(ctx, input, input.step);
  if (isReservedStep(input.step)) {
    ctx.log.info(`Running reserved ${input.flow} step`, { node: node.uuid, step: stepName(input.step) });
    return runReservedStep(ctx, node, input.flow, input.step);
  }
  const driver = loadDriver(node);
  const impl = findStep(driver, input.flow, input.step);
  if (impl === undefined) {
    throw new InvalidState(`Node ${node.uuid}: driver has no ${input.flow} step ${stepName(input.step)}`);
  }
  ctx.log.info(`Running ${input.flow} step`, { node: node.uuid, step: stepName(input.step) });
  const task = stepTask(ctx, node);
  const outcome = await impl.execute(task, input.step.args);
  if (outcome.wait) {
    throw new InvalidState(`Step ${stepName(input.step)} asked to wait but was run synchronously`);
  }
  return nextStep(ctx, node, input.flow);
}

/**
 * Task Failed: fail the flow with the error the machine caught. Only the execution that owns the
 * flow fails it: an execution that was given up on (its node failed by the stuck-node task, a new
 * flow started since) ends without touching the node. It is looked at before it is locked, so such
 * an execution does not even take the lock (and move the revision) from under the newer flow.
 * Taking the lock moves the node's revision on, which fences the step that failed should it still
 * run (its execution gave up on it at its timeout): it acts no more.
 */
export async function failSteps(
  ctx: ConductorContext,
  input: { flow: FlowName; node: string; owner: string; error: { Error?: string; Cause?: string } },
): Promise<void> {
  if (!ownsSteps(await ctx.nodes.get(input.node), input.owner)) {
    ctx.log.info('Not failing the flow: this execution no longer owns it', { node: input.node, flow: input.flow });
    return;
  }
  const node = await ctx.nodes.reserve(input.node, lockOwner(ctx, input.owner));
  if (!ownsSteps(node, input.owner)) {
    await ctx.nodes.release(node);
    ctx.log.info('Not failing the flow: this execution no longer owns it', { node: input.node, flow: input.flow });
    return;
  }
  guarded(ctx, node, `The ${input.flow} failure path`);
  const { steps, index } = storedSteps(node, input.flow);
  const step = steps[index];
  const reason = describeError(input.error);
  const label = FLOWS[input.flow].label;
  // An agent failure arrives with Ironic's whole last_error as its cause.
  const message =
    input.error.Error === AGENT_STEP_FAILED
      ? reason
      : step
        ? `${label} step ${stepName(step)} failed on node ${node.uuid}. ${reason}`
        : `${label} failed on node ${node.uuid}. ${reason}`;
  // A timed-out wait means the agent went silent: like Ironic's timeout handling, do not ask it for logs.
  const timedOut = input.error.Error === 'States.HeartbeatTimeout' || input.error.Error === 'States.Timeout';
  await failFlow(ctx, node, input.flow, message, { collectLogs: !timedOut });
}

/** A readable reason from a Step Functions error: the Lambda error's message when there is one. */
export function describeError(error: { Error?: string; Cause?: string }): string {
  const name = error.Error ?? 'Error';
  if (name === 'States.Timeout') return 'Timed out waiting for the step to finish.';
  // The step stopped itself before Step Functions' timeout (its deadline, attempt.ts).
  if (name === 'ActionRefused') return 'Timed out: the step did not finish within its time (stepTimeoutSeconds) and stopped.';
  if (name === 'States.HeartbeatTimeout') return 'Timed out waiting for a heartbeat from the agent.';
  // The agent's own words (Ironic: "Deploy step deploy.write_image failed on node X. <agent error>").
  if (name === AGENT_STEP_FAILED) return error.Cause ?? '';
  let message = error.Cause ?? '';
  try {
    const cause = JSON.parse(message) as { errorMessage?: string; errorType?: string };
    if (typeof cause.errorMessage === 'string') message = cause.errorMessage;
  } catch {
    // Not JSON: the cause is the message.
  }
  return message ? `${name}: ${message}` : name;
}

/** What a step (its execute, its poll) gets: the locked node, the log, the node's BIOS and firmware caches, a save that keeps the lock. */
export function stepTask(ctx: ConductorContext, node: Node): Task {
  return {
    node,
    log: ctx.log,
    biosSettings: biosSettingsPort(ctx, node.uuid),
    firmwareComponents: firmwareComponentsPort(ctx, node.uuid),
    persist: async () => void (await ctx.nodes.save(node)),
  };
}
