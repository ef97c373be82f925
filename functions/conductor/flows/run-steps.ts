/**
 * Handing a flow to the steps machine and the machine's three tasks: run a synchronous step,
 * start an asynchronous one, fail the flow. Each task returns the next decision, so one step costs
 * two state transitions (Route, RunStep).
 */
import { type ProvisionEvent, CLEANING, DEPLOYING, SERVICING } from '#common/states';
import { InvalidState } from '#common/errors';
import type { Step } from '#drivers/base';
import { loadDriver } from '#drivers/registry';
import type { Node } from '#objects/node';
import type { ConductorContext, Decision, FlowName } from '../context';
import { lockOwner } from '../lock';
import { failFlow } from './failure';
import { FLOWS } from './flow-kinds';
import { advanceTo, findStep, stepName, storedSteps } from './steps';

/** Execution names: unique per message, so a redelivered message starts nothing new. */
export function executionName(flow: FlowName, node: Node, messageId: string): string {
  return `${flow}-${node.uuid.slice(0, 8)}-${messageId}`.slice(0, 80);
}

/**
 * Start the steps machine for a node whose step list is stored and whose lock `owner` holds. With
 * no steps at all the flow finishes here, without an execution.
 */
export async function startSteps(ctx: ConductorContext, node: Node, flow: FlowName, owner: string, messageId: string): Promise<void> {
  const decision = advanceTo(node, flow, 0);
  if (decision.mode === 'done') {
    await finishFlow(ctx, node, flow);
    return;
  }
  const name = executionName(flow, node, messageId);
  node.driver_internal_info = { ...node.driver_internal_info, steps_execution: name };
  await ctx.nodes.save(node);
  await ctx.steps.start(name, { flow, node: node.uuid, owner, decision });
  ctx.log.info('Steps machine started', { node: node.uuid, flow, execution: name, steps: storedSteps(node, flow).steps.map(stepName) });
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
  const { steps } = storedSteps(node, flow);
  const first = steps[0];
  if (first === undefined) return;
  await ctx.steps.start(name, { flow, node: node.uuid, owner, decision: { mode: first.async ? 'async' : 'sync', step: first } });
}

/** The flow's last step is done: move the node to where the flow leads and release it. */
async function finishFlow(ctx: ConductorContext, node: Node, flow: FlowName): Promise<void> {
  const event: ProvisionEvent = flow === 'clean' && node.driver_internal_info.manual_cleaning === true ? 'manage' : 'done';
  const info = { ...node.driver_internal_info };
  delete info.manual_cleaning;
  delete info.steps_execution;
  node.driver_internal_info = info;
  node.processEvent(event);
  node.last_error = null;
  await ctx.nodes.save(node, { release: true });
  ctx.log.info(`${FLOWS[flow].label} finished`, { node: node.uuid, state: node.provision_state });
}

const RUNNING_STATE: Readonly<Record<FlowName, string>> = { deploy: DEPLOYING, clean: CLEANING, service: SERVICING };

/** Lock the node for the execution and check it is still at `step` of this flow. */
async function reserveForStep(ctx: ConductorContext, input: { flow: FlowName; node: string; owner: string }, step: Step): Promise<Node> {
  const node = await ctx.nodes.reserve(input.node, lockOwner(ctx, input.owner));
  const { steps, index } = storedSteps(node, input.flow);
  const current = steps[index];
  if (node.provision_state !== RUNNING_STATE[input.flow] || current === undefined || stepName(current) !== stepName(step)) {
    throw new InvalidState(
      `Node ${node.uuid} is not running ${input.flow} step ${stepName(step)} (state "${node.provision_state}", step ${current ? stepName(current) : 'none'})`,
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
  const driver = loadDriver(node);
  const impl = findStep(driver, input.flow, input.step);
  if (impl === undefined) {
    throw new InvalidState(`Node ${node.uuid}: driver has no ${input.flow} step ${stepName(input.step)}`);
  }
  ctx.log.info(`Running ${input.flow} step`, { node: node.uuid, step: stepName(input.step) });
  const outcome = await impl.execute({ node, log: ctx.log }, input.step.args);
  if (outcome.wait) {
    throw new InvalidState(`Step ${stepName(input.step)} asked to wait but was run synchronously`);
  }
  const { index } = storedSteps(node, input.flow);
  const decision = advanceTo(node, input.flow, index + 1);
  if (decision.mode === 'done') {
    await finishFlow(ctx, node, input.flow);
  } else {
    await ctx.nodes.save(node);
  }
  return decision;
}

/** Task Failed: fail the flow with the error the machine caught. */
export async function failSteps(
  ctx: ConductorContext,
  input: { flow: FlowName; node: string; owner: string; error: { Error?: string; Cause?: string } },
): Promise<void> {
  const node = await ctx.nodes.reserve(input.node, lockOwner(ctx, input.owner));
  const { steps, index } = storedSteps(node, input.flow);
  const step = steps[index];
  const reason = describeError(input.error);
  const label = FLOWS[input.flow].label;
  const message = step
    ? `${label} step ${stepName(step)} failed on node ${node.uuid}. ${reason}`
    : `${label} failed on node ${node.uuid}. ${reason}`;
  await failFlow(ctx, node, input.flow, message);
}

/** A readable reason from a Step Functions error: the Lambda error's message when there is one. */
export function describeError(error: { Error?: string; Cause?: string }): string {
  const name = error.Error ?? 'Error';
  if (name === 'States.Timeout') return 'Timed out waiting for the step to finish.';
  if (name === 'States.HeartbeatTimeout') return 'Timed out waiting for a heartbeat from the agent.';
  let message = error.Cause ?? '';
  try {
    const cause = JSON.parse(message) as { errorMessage?: string; errorType?: string };
    if (typeof cause.errorMessage === 'string') message = cause.errorMessage;
  } catch {
    // Not JSON: the cause is the message.
  }
  return message ? `${name}: ${message}` : name;
}
