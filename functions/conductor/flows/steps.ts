/**
 * Step lists: which steps a flow runs, in which order, and the decision the steps machine acts on.
 *
 * Order follows Ironic (`conductor/steps.py`): by priority, highest first; ties broken by the
 * interface order Ironic uses for that flow. Steps with priority 0 are disabled.
 */
import type { Driver, Step, StepDefinition } from '#drivers/base';
import type { InterfaceType, Node } from '#objects/node';
import type { Decision, FlowName } from '../context';
import { FLOWS } from './flow-kinds';

/**
 * Ironic master's DEPLOYING_INTERFACE_PRIORITY, CLEANING_INTERFACE_PRIORITY and
 * SERVICING_INTERFACE_PRIORITY: of two steps with the same priority, the one of the higher ranked
 * interface runs first. Interfaces without a rank (no step of theirs can be asked for) come last.
 */
const STEP_INTERFACE_RANK: Partial<Record<InterfaceType, number>> = {
  vendor: 7,
  power: 6,
  management: 5,
  firmware: 4,
  deploy: 3,
  bios: 2,
  raid: 1,
};
const INTERFACE_PRIORITY: Readonly<Record<FlowName, Partial<Record<InterfaceType, number>>>> = {
  deploy: STEP_INTERFACE_RANK,
  clean: STEP_INTERFACE_RANK,
  service: { ...STEP_INTERFACE_RANK, network: 8 },
};

function definitions(driver: Driver, flow: FlowName): { iface: InterfaceType; def: StepDefinition }[] {
  const out: { iface: InterfaceType; def: StepDefinition }[] = [];
  for (const [iface, impl] of Object.entries(driver.interfaces) as [InterfaceType, Driver['interfaces'][InterfaceType]][]) {
    const defs = flow === 'deploy' ? impl.deploySteps : flow === 'clean' ? impl.cleanSteps : impl.serviceSteps;
    for (const def of defs ?? []) out.push({ iface, def });
  }
  return out;
}

export function sortSteps(flow: FlowName, steps: Step[]): Step[] {
  const rank = INTERFACE_PRIORITY[flow];
  return [...steps].sort((a, b) => b.priority - a.priority || (rank[b.interface] ?? 0) - (rank[a.interface] ?? 0));
}

/** A driver's step as stored in a flow's list: its flags from the definition, the given priority and args. */
function storedStep(flow: FlowName, iface: InterfaceType, def: StepDefinition, priority: number, args: Record<string, unknown>): Step {
  return {
    interface: iface,
    step: def.step,
    priority,
    args,
    ...(def.async ? { async: true } : {}),
    abortable: def.abortable ?? flow === 'deploy',
  };
}

/** Every step a driver defines for a flow, with its default priority (0 = disabled by default). */
export function allDriverSteps(driver: Driver, flow: FlowName): Step[] {
  return definitions(driver, flow).map(({ iface, def }) => storedStep(flow, iface, def, def.priority, {}));
}

/** A requested step no driver defines (an agent's in-band step, known once the agent is up), at priority 0. */
export function requestedAgentStep(requested: {
  readonly interface: string;
  readonly step: string;
  readonly args?: Record<string, unknown>;
}): Step {
  return { interface: requested.interface as InterfaceType, step: requested.step, priority: 0, args: requested.args ?? {} };
}

/**
 * A step the user asked for by name (manual cleaning, servicing) as the driver defines it, at
 * priority 0 with the user's args; undefined when the driver has no such step.
 */
export function requestedDriverStep(
  driver: Driver,
  flow: FlowName,
  requested: { readonly interface: string; readonly step: string; readonly args?: Record<string, unknown> },
): Step | undefined {
  const found = definitions(driver, flow).find(({ iface, def }) => iface === requested.interface && def.step === requested.step);
  return found && storedStep(flow, found.iface, found.def, 0, requested.args ?? {});
}

/** The enabled steps a driver defines for a flow (priority > 0), in execution order. */
export function driverSteps(driver: Driver, flow: FlowName): Step[] {
  return sortSteps(
    flow,
    allDriverSteps(driver, flow).filter((s) => s.priority > 0),
  );
}

/** The implementation of a stored step; undefined when the driver no longer has it. */
export function findStep(
  driver: Driver,
  flow: FlowName,
  step: { readonly interface: string; readonly step: string },
): StepDefinition | undefined {
  return definitions(driver, flow).find(({ iface, def }) => iface === step.interface && def.step === step.step)?.def;
}

export function stepName(step: Pick<Step, 'interface' | 'step'>): string {
  return `${step.interface}.${step.step}`;
}

/** The steps stored on a node for a flow, and the index of the current one. */
export function storedSteps(node: Node, flow: FlowName): { steps: Step[]; index: number } {
  const kind = FLOWS[flow];
  const steps = (node.driver_internal_info[kind.stepsKey] as Step[] | undefined) ?? [];
  const index = node.driver_internal_info[kind.indexKey];
  return { steps, index: typeof index === 'number' ? index : -1 };
}

/** Store a flow's step list on the node, positioned before its first step. */
export function setSteps(node: Node, flow: FlowName, steps: Step[]): void {
  const kind = FLOWS[flow];
  node.driver_internal_info = { ...node.driver_internal_info, [kind.stepsKey]: steps, [kind.indexKey]: -1 };
  node[kind.stepField] = null;
}

/** Move to step `index` (or past the end: the flow is over) and say what the machine does next. */
export function advanceTo(node: Node, flow: FlowName, index: number): Decision {
  const kind = FLOWS[flow];
  const { steps } = storedSteps(node, flow);
  const step = steps[index];
  if (step === undefined) {
    clearSteps(node, flow);
    return { mode: 'done', step: null };
  }
  node.driver_internal_info = { ...node.driver_internal_info, [kind.indexKey]: index };
  node[kind.stepField] = currentStepField(step);
  return { mode: step.async ? 'async' : 'sync', step };
}

/** The node's `deploy_step`/`clean_step`/`service_step` while `step` runs (with `abortable`, as Ironic shows it). */
export function currentStepField(step: Step): Record<string, unknown> {
  return {
    interface: step.interface,
    step: step.step,
    priority: step.priority,
    args: step.args,
    ...(step.abortable !== undefined ? { abortable: step.abortable } : {}),
  };
}

export function clearSteps(node: Node, flow: FlowName): void {
  const kind = FLOWS[flow];
  const info = { ...node.driver_internal_info };
  delete info[kind.stepsKey];
  delete info[kind.indexKey];
  delete info.steps_execution;
  node.driver_internal_info = info;
  node[kind.stepField] = null;
}
