/**
 * Reserved step names (Ironic's `conductor/steps.py` `use_reserved_step_handler`), valid in clean,
 * deploy and service step lists on any interface:
 *
 * - `power_on`, `power_off`, `reboot`: a power action run by the conductor, then the next step;
 * - `wait`: the flow's wait state; with `args.seconds` (capped by `[conductor]
 *   max_conductor_wait_step_seconds`) the conductor pauses and resumes, without it the flow waits
 *   for the next agent heartbeat;
 * - `hold`: the flow's hold state; the steps execution ends with the node released and the
 *   remaining steps kept, until `unhold` continues with the next step (`continueSteps`).
 */
import { POWER_OFF, POWER_ON } from '#common/states';
import type { Step } from '#drivers/base';
import { loadDriver } from '#drivers/registry';
import type { InterfaceType, Node } from '#objects/node';
import type { ConductorContext, Decision, FlowName } from '../context';
import { executionName, finishFlow, nextStep } from './step-advance';
import { advanceTo, storedSteps } from './steps';

export const RESERVED_STEP_NAMES: readonly string[] = ['power_on', 'power_off', 'reboot', 'hold', 'wait'];

/** Marks a flow paused by `wait` without seconds: the next heartbeat continues it. */
export const WAITING_KEY = 'steps_reserved_wait';

export function isReservedStep(step: { readonly step: string }): boolean {
  return RESERVED_STEP_NAMES.includes(step.step);
}

/** A requested reserved step as stored in a step list (run by the conductor, never by a driver). */
export function reservedStep(requested: {
  readonly interface: string;
  readonly step: string;
  readonly args?: Record<string, unknown>;
  readonly priority?: number | string;
}): Step {
  const priority = requested.priority === undefined ? 0 : Number(requested.priority);
  // Abortable: the conductor runs them, and abort from a hold or a wait acts at once (the state
  // machine's abort from clean/deploy/service hold), where Ironic's step dicts lack the flag.
  return { interface: requested.interface as InterfaceType, step: requested.step, priority, args: requested.args ?? {}, abortable: true };
}

const DONE: Decision = { mode: 'done', step: null };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Run a reserved step on a node locked for the execution; returns the next decision (`done` when the
 * execution ends here: hold, or wait for a heartbeat).
 */
export async function runReservedStep(ctx: ConductorContext, node: Node, flow: FlowName, step: Step): Promise<Decision> {
  const task = { node, log: ctx.log };
  switch (step.step) {
    case 'power_on':
    case 'power_off': {
      const target = step.step === 'power_on' ? POWER_ON : POWER_OFF;
      await loadDriver(node).power.setPowerState(task, target);
      node.power_state = target;
      return nextStep(ctx, node, flow);
    }
    case 'reboot':
      await loadDriver(node).power.reboot(task);
      node.power_state = POWER_ON;
      return nextStep(ctx, node, flow);
    case 'hold':
      node.processEvent('hold');
      return pause(ctx, node, flow);
    case 'wait': {
      node.processEvent('wait');
      const raw = step.args.seconds;
      if (raw === undefined || raw === null) {
        node.driver_internal_info = { ...node.driver_internal_info, [WAITING_KEY]: true };
        return pause(ctx, node, flow);
      }
      let seconds = Math.max(0, Math.trunc(Number(raw)) || 0);
      const max = ctx.config.maxWaitStepSeconds;
      if (seconds > max) {
        ctx.log.warn(`A wait time exceeding the configured maximum has been requested. Holding for ${seconds}, got ${max}.`, {
          node: node.uuid,
        });
        seconds = max;
      }
      await ctx.nodes.save(node);
      await sleep(seconds * 1000);
      node.processEvent('resume');
      return nextStep(ctx, node, flow);
    }
    default:
      throw new Error(`Unknown reserved step ${step.step}`);
  }
}

/** End the execution with the node released in its hold (or wait) state; the step list stays. */
async function pause(ctx: ConductorContext, node: Node, flow: FlowName): Promise<Decision> {
  const info = { ...node.driver_internal_info };
  delete info.steps_execution;
  delete info.steps_task_token;
  node.driver_internal_info = info;
  await ctx.nodes.save(node, { release: true });
  ctx.log.info('Steps paused', { node: node.uuid, flow, state: node.provision_state });
  return DONE;
}

/**
 * Continue a paused flow (after `unhold`, or a heartbeat after `wait`): the node, locked by
 * `owner` and in the flow's wait state, resumes with the step after the stored index in a new
 * steps execution named after `messageId` (so a redelivered message starts nothing new).
 */
export async function continueSteps(ctx: ConductorContext, node: Node, flow: FlowName, owner: string, messageId: string): Promise<void> {
  node.processEvent('resume');
  const info = { ...node.driver_internal_info };
  delete info[WAITING_KEY];
  node.driver_internal_info = info;
  const { index } = storedSteps(node, flow);
  const decision = advanceTo(node, flow, index + 1);
  if (decision.mode === 'done') {
    await finishFlow(ctx, node, flow);
    return;
  }
  const name = executionName(flow, node, messageId);
  node.driver_internal_info = { ...node.driver_internal_info, steps_execution: name, steps_owner: owner };
  await ctx.nodes.save(node);
  await ctx.steps.start(name, { flow, node: node.uuid, owner, decision });
  ctx.log.info('Steps continued', { node: node.uuid, flow, execution: name });
}
