/**
 * An agent heartbeat, after Ironic's `agent_base.HeartbeatMixin`. The API has checked the agent's
 * token and casts the heartbeat here. What it does depends on where the node is:
 *
 * - not waiting for the agent (or in maintenance): record the agent's URL and version only;
 * - the ramdisk just booted (`deploy.deploy`, or cleaning's boot): fetch its steps, merge them,
 *   and complete the waiting task with the next step (`SendTaskSuccess`);
 * - an in-band step runs: ask the agent for its last command — still running: `SendTaskHeartbeat`;
 *   succeeded: the interface's post-step hook (agent RAID records what was built), then reboot if
 *   the step asked for it, else the next step; failed (or the hook failed): `SendTaskFailure`;
 *   succeeded (or back from its reboot) with an abort asked for during it: the flow is aborted;
 * - a step waiting on the BMC (`poll`): kept waiting, unless it has `resume` and its reboot booted
 *   the ramdisk, whose first heartbeat then makes the step's second call (the redfish BIOS steps).
 *
 * A heartbeat takes the node's lock with its own token and skips when it is taken (as Ironic skips
 * a heartbeat for a locked node); the task token is taken off the node in the same conditional
 * write that moves the flow on, so many heartbeats never complete one step twice.
 */
import { DatabaseUnavailable, NodeLocked, NodeNotFound } from '#common/errors';
import { pyRepr } from '#common/pyrepr';
import { CLEANWAIT, DEPLOYWAIT, SERVICEWAIT } from '#common/states';
import type { AgentCommand } from '#drivers/agent-client';
import { bootRamdisk } from '#drivers/agent/deploy';
import { agentClient } from '#drivers/agent/inband';
import type { Driver, Step, Task } from '#drivers/base';
import { loadDriver } from '#drivers/registry';
import { stepRebootBootsRamdisk } from '#drivers/agent/step-ramdisk';
import type { Node } from '#objects/node';
import type { ConductorContext, FlowName } from '../context';
import { lockOwner } from '../lock';
import { guarded } from '../attempt';
import { ActionRefused } from '#drivers/guard';
import { abortAfterStep } from './abort';
import { agentReady, executionOwner, isAgentBootStep, resumeWithNextStep, takeToken } from './async-steps';
import { FLOWS } from './flow-kinds';
import { polledStep, settleWaitingStep } from './polled-steps';
import { continueSteps, WAITING_KEY } from './reserved';
import { AGENT_STEP_FAILED, stepTask } from './run-steps';
import { nextStep } from './step-advance';
import { stepName, storedSteps } from './steps';

export interface HeartbeatArgs {
  readonly node_id: string;
  readonly callback_url: string;
  readonly agent_version: string | null;
  readonly agent_verify_ca?: string | null;
  readonly agent_status?: string | null;
  readonly message_id: string;
}

const WAIT_FLOWS: Readonly<Record<string, FlowName>> = { [DEPLOYWAIT]: 'deploy', [CLEANWAIT]: 'clean', [SERVICEWAIT]: 'service' };

const REBOOT_KEY: Readonly<Record<FlowName, string>> = {
  deploy: 'deployment_reboot',
  clean: 'cleaning_reboot',
  service: 'servicing_reboot',
};

/** Ironic's messages for a heartbeat that could not be processed, by flow. */
const FAILURE_PREFIX: Readonly<Record<FlowName, string>> = {
  deploy: 'Failed to process the next deploy step',
  clean: 'Node failed to check cleaning progress',
  service: 'Node failed to check servicing progress',
};

function commandName(flow: FlowName): string {
  return `execute_${flow}_step`;
}

/** After a reboot the agent has run nothing but (maybe) get_*_steps (Ironic's `_freshly_booted`). */
function freshlyBooted(commands: readonly AgentCommand[], flow: FlowName): boolean {
  const kind = flow;
  return commands.length === 0 || (commands.length === 1 && commands[0]?.command_name === `get_${kind}_steps`);
}

/** The last command if it is the current step's, finished (Ironic's `_get_completed_command`). */
function completedCommand(commands: readonly AgentCommand[], flow: FlowName, step: Step): AgentCommand | undefined {
  const last = commands[commands.length - 1];
  if (last === undefined || last.command_name !== commandName(flow) || last.command_status === 'RUNNING') return undefined;
  const kind = flow;
  const ran = (last.command_result ?? {})[`${kind}_step`] as Partial<Step> | undefined;
  if (last.command_status === 'SUCCEEDED' && (!ran || ran.interface !== step.interface || ran.step !== step.step)) return undefined;
  return last;
}

function commandError(command: AgentCommand): string {
  const error = command.command_error as { details?: unknown; message?: unknown } | string | null;
  if (error !== null && typeof error === 'object') return String(error.details ?? error.message ?? JSON.stringify(error));
  return String(error);
}

function record(node: Node, args: HeartbeatArgs): void {
  node.driver_internal_info = {
    ...node.driver_internal_info,
    agent_url: args.callback_url,
    agent_version: args.agent_version ?? '3.0.0',
    agent_last_heartbeat: new Date().toISOString(),
    ...(args.agent_verify_ca ? { agent_verify_ca: args.agent_verify_ca } : {}),
  };
}

export async function doHeartbeat(ctx: ConductorContext, args: HeartbeatArgs): Promise<void> {
  let node: Node;
  try {
    node = await ctx.nodes.reserve(args.node_id, lockOwner(ctx, `heartbeat:${args.message_id}`));
  } catch (err) {
    if (err instanceof NodeLocked || err instanceof NodeNotFound) {
      ctx.log.info('Heartbeat skipped: node is locked or gone', { node: args.node_id, error: (err as Error).message });
      return;
    }
    throw err;
  }
  guarded(ctx, node, 'The heartbeat');
  const versionBefore = node.driver_internal_info.agent_version_at_boot;
  record(node, args);
  const flow = WAIT_FLOWS[node.provision_state];
  const token = node.driver_internal_info.steps_task_token;
  if (!node.maintenance && flow !== undefined && node.driver_internal_info[WAITING_KEY] === true) {
    // A reserved `wait` step without seconds: this heartbeat continues the flow with the next step.
    await continueSteps(ctx, node, flow, `heartbeat:${args.message_id}`, args.message_id);
    return;
  }
  if (node.maintenance || flow === undefined || typeof token !== 'string') {
    await ctx.nodes.save(node, { release: true });
    return;
  }
  const task: Task = { node, log: ctx.log, persist: async () => void (await ctx.nodes.save(node)) };
  try {
    await process(ctx, task, flow, token, args, versionBefore);
  } catch (err) {
    if (err instanceof DatabaseUnavailable) {
      // Not the agent's failure: the heartbeat is delivered again (and the agent heartbeats anyway).
      await ctx.nodes.release(node).catch(() => undefined);
      throw err;
    }
    if (err instanceof ActionRefused) {
      // Out of time, or the node was taken over: not the agent's failure. The agent heartbeats
      // again; its next heartbeat looks afresh (the lock is let go unless someone else has it).
      ctx.log.warn('Heartbeat stopped before it could finish', { node: node.uuid, flow, reason: err.reason });
      if (err.reason === 'deadline') await ctx.nodes.release(node);
      return;
    }
    ctx.log.warn('Heartbeat failed the flow', { node: node.uuid, flow, error: String(err) });
    takeToken(node);
    try {
      await ctx.nodes.save(node, { release: true });
    } catch {
      throw err; // the node was saved already: SQS redelivers the heartbeat, which looks again
    }
    await ctx.steps.fail(token, AGENT_STEP_FAILED, `${FAILURE_PREFIX[flow]}: ${(err as Error).message}`);
  }
}

async function process(
  ctx: ConductorContext,
  task: Task,
  flow: FlowName,
  token: string,
  args: HeartbeatArgs,
  versionBefore: unknown,
): Promise<void> {
  const node = task.node;
  const driver = loadDriver(node);
  const { steps, index } = storedSteps(node, flow);
  const step = index >= 0 ? (steps[index] ?? null) : null;
  const owner = executionOwner(ctx, node);

  if (isAgentBootStep(driver, flow, step)) {
    ctx.log.info('Agent is up', { node: node.uuid, flow, version: args.agent_version });
    takeToken(node);
    await resumeWithNextStep(ctx, node, flow, token, () => agentReady(ctx, task, driver, flow, owner));
    return;
  }

  const rebootKey = REBOOT_KEY[flow];
  if (node.driver_internal_info[rebootKey] === true) {
    const commands = await agentClient().commandsStatus(node);
    if (!freshlyBooted(commands, flow)) {
      await keepWaiting(ctx, node, token);
      return;
    }
    if (typeof versionBefore === 'string' && args.agent_version !== null && args.agent_version !== versionBefore) {
      throw new Error(
        `the agent version changed from ${versionBefore} to ${args.agent_version} after the reboot requested by ${flow} step ${step ? stepName(step) : ''}`,
      );
    }
    const info = { ...node.driver_internal_info };
    delete info[rebootKey];
    node.driver_internal_info = info;
    if (await abortAfterStep(ctx, node, flow)) return;
    takeToken(node);
    await resumeWithNextStep(ctx, node, flow, token, () => nextStep(ctx, node, flow, { lockFor: owner }));
    return;
  }

  const polled = polledStep(driver, flow, step);
  if (step !== null && polled !== undefined) {
    // A step waiting on the BMC is followed by `poll_waiting_steps` (Ironic's polling flag). One
    // whose reboot booted the ramdisk (any deploy's; a clean's or service's that booted it) is
    // also settled by that ramdisk's first heartbeat, which makes the step's second call
    // (Ironic's polling flag off, skip_current_step false).
    const resume = stepRebootBootsRamdisk(node) ? polled.resume : undefined;
    if (resume === undefined || !freshlyBooted(await agentClient().commandsStatus(node), flow)) {
      await keepWaiting(ctx, node, token);
      return;
    }
    ctx.log.info("Ramdisk is back after the step's reboot; making its second call", { node: node.uuid, step: stepName(step) });
    await settleWaitingStep(ctx, node, flow, token, await resume(stepTask(ctx, node)));
    return;
  }
  if (step === null || !step.async) {
    await keepWaiting(ctx, node, token);
    return;
  }
  const command = completedCommand(await agentClient().commandsStatus(node), flow, step);
  if (command === undefined) {
    await keepWaiting(ctx, node, token);
    return;
  }
  const label = FLOWS[flow].label;
  if (command.command_status === 'SUCCEEDED') {
    const hookError = await runPostStepHook(task, driver, flow, step, command);
    if (hookError !== undefined) {
      takeToken(node);
      await ctx.nodes.save(node, { release: true });
      await ctx.steps.fail(token, AGENT_STEP_FAILED, hookError);
      return;
    }
    if (step.reboot_requested) {
      ctx.log.info('Step asked for a reboot', { node: node.uuid, step: stepName(step) });
      node.driver_internal_info = { ...node.driver_internal_info, [rebootKey]: true };
      await bootRamdisk(task, driver);
      await keepWaiting(ctx, node, token);
      return;
    }
    ctx.log.info(`Agent finished ${flow} step`, { node: node.uuid, step: stepName(step) });
    if (await abortAfterStep(ctx, node, flow)) return;
    takeToken(node);
    await resumeWithNextStep(ctx, node, flow, token, () => nextStep(ctx, node, flow, { lockFor: owner }));
    return;
  }
  const message =
    command.command_status === 'FAILED'
      ? `${label} step ${stepName(step)} failed on node ${node.uuid}. ${commandError(command)}`
      : ['CLEAN_VERSION_MISMATCH', 'VERSION_MISMATCH'].includes(command.command_status)
        ? `${label} step ${stepName(step)} failed on node ${node.uuid}. The agent's hardware managers changed version during the ${flow}`
        : `Agent returned unknown status for ${flow} step ${stepName(step)} on node ${node.uuid} : ${command.command_status}.`;
  takeToken(node);
  await ctx.nodes.save(node, { release: true });
  await ctx.steps.fail(token, AGENT_STEP_FAILED, message);
}

/**
 * Ironic's post-step hook: what the interface of a succeeded in-band step records from the agent's
 * command (agent RAID: the configuration built). Returns Ironic's failure message if it failed.
 */
async function runPostStepHook(task: Task, driver: Driver, flow: FlowName, step: Step, command: AgentCommand): Promise<string | undefined> {
  const hook = driver.interfaces[step.interface]?.inband?.after?.[flow]?.[step.step];
  if (hook === undefined) return undefined;
  task.log.info(`Running post ${flow} step hook`, { node: task.node.uuid, step: stepName(step), hook: hook.name });
  try {
    await hook.run(task, command);
    return undefined;
  } catch (err) {
    const current = pyRepr(task.node[FLOWS[flow].stepField]);
    return `For node ${task.node.uuid}, post ${flow} step hook ${hook.name} failed for ${flow} step ${current}.${(err as Error).name}: ${(err as Error).message}`;
  }
}

/** Still working: record the heartbeat and keep the waiting task alive. */
async function keepWaiting(ctx: ConductorContext, node: Node, token: string): Promise<void> {
  await ctx.nodes.save(node, { release: true });
  const alive = await ctx.steps.heartbeat(token);
  if (!alive) ctx.log.warn('Heartbeat for a task that is gone', { node: node.uuid });
}
