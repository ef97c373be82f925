/**
 * Building the step list a flow runs, as Ironic's `conductor/steps.py`: the driver's steps (with
 * their default priorities), the agent's in-band steps once it has booted, then the requested ones
 * — deploy templates matched by `instance_info.traits`, then the user's `deploy_steps` (later
 * wins) — which set a step's priority and args (0 disables it). Enabled steps run by priority.
 */
import { InvalidParameterValue } from '#common/errors';
import { pyRepr } from '#common/pyrepr';
import type { Driver, Step } from '#drivers/base';
import type { InterfaceType, Node } from '#objects/node';
import type { ConductorContext, FlowName } from '../context';
import { isReservedStep, reservedStep } from './reserved';
import { allDriverSteps, sortSteps, stepName } from './steps';

/** A step as requested by a template or a user. */
export interface RequestedStep {
  readonly interface: string;
  readonly step: string;
  readonly args?: Record<string, unknown>;
  readonly priority?: number | string;
}

/** Where the requested steps of the current deploy are kept until the agent's steps are known. */
export const REQUESTED_KEY: Readonly<Record<FlowName, string>> = {
  deploy: 'requested_deploy_steps',
  clean: 'requested_clean_steps',
  service: 'requested_service_steps',
};

/** In-band steps must lie here, between booting the ramdisk (100) and powering it off (40). */
const INBAND_MIN = 41;
const INBAND_MAX = 99;

interface Source {
  readonly prefix: string;
  readonly steps: readonly RequestedStep[];
}

/** The deploy steps of the templates named by the node's instance traits, and the error prefix naming them. */
export async function templateSteps(ctx: ConductorContext, node: Node): Promise<Source | undefined> {
  const traits = node.instance_info.traits;
  if (!Array.isArray(traits) || traits.length === 0) return undefined;
  const templates = await ctx.stores.deployTemplates.getByNames(traits.map(String));
  if (templates.length === 0) return undefined;
  const steps = templates.flatMap((t) =>
    (t.steps as unknown as RequestedStep[]).map((s) => ({
      interface: s.interface,
      step: s.step,
      args: s.args ?? {},
      priority: s.priority,
    })),
  );
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const s of steps) {
    const key = `${s.interface}.${s.step}`;
    if (seen.has(key)) duplicates.add(key);
    seen.add(key);
  }
  const prefix = `Validation of deploy steps from deploy templates matching this node's instance traits failed. Matching deploy templates: ${templates.map((t) => t.name).join(',')}. Errors: `;
  if (duplicates.size > 0) {
    throw new InvalidParameterValue(
      `${prefix}deploy steps from all deploy templates matching this node's instance traits cannot have the same interface and step. Duplicate deploy steps for ${[...duplicates].join(', ')}`,
    );
  }
  return { prefix, steps };
}

function priorityOf(step: RequestedStep, fallback: number): number {
  if (step.priority === undefined) return fallback;
  return typeof step.priority === 'string' ? Number(step.priority) : step.priority;
}

/**
 * Resolve the requested steps against the available ones. `agentKnown`: the agent's in-band steps
 * are in `available`; before that a request naming an unknown step is kept for later (Ironic's
 * skip_missing), after it is an error.
 */
export function resolveSteps(
  flow: FlowName,
  node: Node,
  available: readonly Step[],
  sources: readonly Source[],
  agentKnown: boolean,
): Step[] {
  const byName = new Map(available.map((s) => [stepName(s), s] as const));
  for (const source of sources) {
    const errors: string[] = [];
    for (const requested of source.steps) {
      const name = `${requested.interface}.${requested.step}`;
      if (isReservedStep(requested)) {
        // power_on, hold, wait…: run by the conductor at the priority asked for (Ironic skips validating them).
        byName.set(name, reservedStep({ ...requested, priority: priorityOf(requested, 0) }));
        continue;
      }
      const known = byName.get(name);
      if (known === undefined) {
        if (!agentKnown) continue;
        errors.push(`node does not support this ${flow} step: ${pyRepr(requested)}`);
        continue;
      }
      const priority = priorityOf(requested, known.priority);
      if (flow === 'deploy' && name === 'deploy.deploy' && priority > 0) {
        errors.push(
          `deploy step ${requested.step} on interface ${requested.interface} is a core step and cannot be overridden by user steps. It may be disabled by setting the priority to 0`,
        );
        continue;
      }
      // Ironic keeps only interface, step, args and priority of a requested deploy step: it is not
      // abortable, whatever the driver's step is (a requested clean or service step keeps the flag).
      const { abortable: _dropped, ...rest } = known;
      byName.set(name, { ...(flow === 'deploy' ? rest : known), priority, args: requested.args ?? {} });
    }
    if (errors.length > 0) throw new InvalidParameterValue(`${source.prefix}${errors.join('; ')}`);
  }
  const enabled = [...byName.values()].filter((s) => s.priority > 0);
  for (const step of enabled) {
    if (flow === 'deploy' && step.inband && (step.priority < INBAND_MIN || step.priority > INBAND_MAX)) {
      throw new InvalidParameterValue(
        `Node ${node.uuid}: in-band deploy step ${stepName(step)} has priority ${step.priority}; in-band deploy steps must have a priority between ${INBAND_MIN} and ${INBAND_MAX} (or 0 to disable them)`,
      );
    }
  }
  return sortSteps(flow, enabled);
}

/** The sources of requested deploy steps: templates, then the user's, as stored for this deploy. */
function storedSources(node: Node): Source[] {
  const stored = node.driver_internal_info[REQUESTED_KEY.deploy] as Source[] | undefined;
  return Array.isArray(stored) ? stored : [];
}

/** The deploy steps at the start of a deploy (before the agent's are known); stores the requests for later. */
export async function initialDeploySteps(
  ctx: ConductorContext,
  node: Node,
  driver: Driver,
  userSteps: readonly RequestedStep[] | undefined,
): Promise<Step[]> {
  const sources: Source[] = [];
  const templates = await templateSteps(ctx, node);
  if (templates) sources.push(templates);
  if (userSteps && userSteps.length > 0) {
    sources.push({ prefix: 'Validation of deploy steps from "deploy steps" argument failed.', steps: userSteps });
  }
  node.driver_internal_info = { ...node.driver_internal_info, [REQUESTED_KEY.deploy]: sources };
  return resolveSteps('deploy', node, allDriverSteps(driver, 'deploy'), sources, !driver.deploy.usesAgent);
}

/** The deploy steps once the agent's in-band steps are known. */
export function deployStepsWithAgent(node: Node, driver: Driver, agentSteps: readonly Step[]): Step[] {
  // A driver step and an agent step of the same name: the driver's (e.g. write_image 80) wins.
  return resolveSteps('deploy', node, [...agentSteps, ...allDriverSteps(driver, 'deploy')], storedSources(node), true);
}

/**
 * The clean (or service) steps once the agent's are known: automated = every enabled step by
 * priority; manual = the requested steps, in the order given, each of which must exist.
 */
export function cleanStepsWithAgent(flow: FlowName, node: Node, driver: Driver, agentSteps: readonly Step[]): Step[] {
  // One step per name; the driver's wins over the agent's.
  const byName = new Map([...agentSteps, ...allDriverSteps(driver, flow)].map((s) => [stepName(s), s] as const));
  const available = [...byName.values()];
  const requested = node.driver_internal_info[REQUESTED_KEY[flow]] as RequestedStep[] | undefined;
  if (!Array.isArray(requested))
    return sortSteps(
      flow,
      available.filter((s) => s.priority > 0),
    );
  return requested.map((r) => {
    if (isReservedStep(r)) return reservedStep(r);
    const known = available.find((s) => s.interface === r.interface && s.step === r.step);
    if (known === undefined) {
      throw new InvalidParameterValue(`node does not support this ${flow} step: ${pyRepr(r)}`);
    }
    return { ...known, interface: r.interface as InterfaceType, args: r.args ?? {} };
  });
}
