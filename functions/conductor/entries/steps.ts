/**
 * Steps entry: the tasks of the steps state machine (`statemachines/steps.asl.json`). Errors are
 * thrown, not returned: Step Functions catches them (by error name) into the failure path.
 */
import { InvalidParameterValue } from '#common/errors';
import type { Step } from '#drivers/base';
import type { ConductorContext, Decision, FlowName } from '../context';
import { startAsyncStep } from '../flows/async-steps';
import { failSteps, runStep } from '../flows/run-steps';

export interface StepsTaskEvent {
  readonly entry: 'steps';
  readonly action: 'run' | 'start' | 'fail';
  readonly flow: FlowName;
  readonly node: string;
  readonly owner: string;
  readonly step?: Step | null;
  readonly token?: string;
  readonly error?: { Error?: string; Cause?: string };
}

export function isStepsTask(event: unknown): event is StepsTaskEvent {
  return typeof event === 'object' && event !== null && (event as { entry?: unknown }).entry === 'steps';
}

export async function handleStepsTask(ctx: ConductorContext, event: StepsTaskEvent): Promise<Decision | { ok: true }> {
  ctx.log.appendKeys({ node: event.node, flow: event.flow, step_action: event.action });
  try {
    switch (event.action) {
      case 'run':
        if (event.step === undefined || event.step === null) throw new InvalidParameterValue('steps task "run" needs a step');
        return await runStep(ctx, { flow: event.flow, node: event.node, owner: event.owner, step: event.step });
      case 'fail':
        await failSteps(ctx, { flow: event.flow, node: event.node, owner: event.owner, error: event.error ?? {} });
        return { ok: true };
      case 'start':
        if (event.token === undefined) throw new InvalidParameterValue('steps task "start" needs a task token');
        return await startAsyncStep(ctx, {
          flow: event.flow,
          node: event.node,
          owner: event.owner,
          step: event.step ?? null,
          token: event.token,
        });
      default:
        throw new InvalidParameterValue(`Unknown steps task action "${(event as { action: string }).action}"`);
    }
  } finally {
    ctx.log.removeKeys(['node', 'flow', 'step_action']);
  }
}
