/**
 * The steps an operator asks for by name — manual cleaning, servicing — checked against the
 * driver as Ironic's `_validate_user_steps` checks them: each step must exist (unless the ramdisk
 * will boot: an in-band step is known only once the agent is up), take the arguments given and be
 * given every argument it requires, and, when the ramdisk is not booted, not need it. Every problem
 * is named, with the step as the user wrote it, in one message.
 */
import { InvalidParameterValue } from '#common/errors';
import { pyRepr } from '#common/pyrepr';
import type { Driver, Step, StepDefinition } from '#drivers/base';
import { loadDriver } from '#drivers/registry';
import type { Node } from '#objects/node';
import type { ConductorContext, FlowName } from '../context';
import { cacheBiosSettings } from '../bios';
import { cacheFirmwareComponents } from '../firmware';
import { failFlow } from './failure';
import { isReservedStep, reservedStep } from './reserved';
import { startSteps } from './run-steps';
import { REQUESTED_KEY } from './step-lists';
import { findStep, requestedAgentStep, requestedDriverStep, setSteps } from './steps';

/** A step as the user wrote it (the API has checked its shape). */
export interface UserStep {
  readonly interface: string;
  readonly step: string;
  readonly args?: Record<string, unknown>;
}

/** Whether a requested step needs the ramdisk: a step the driver lacks (in-band) or one that says so. */
export function needsRamdisk(driver: Driver, flow: FlowName, requested: UserStep): boolean {
  if (isReservedStep(requested)) return false;
  const def = findStep(driver, flow, requested);
  return def === undefined || def.requiresRamdisk !== false;
}

/** Ironic's _validate_user_step: what is wrong with one requested step, given the driver's definition. */
export function stepErrors(flow: FlowName, requested: UserStep, def: StepDefinition, disableRamdisk: boolean): string[] {
  const errors: string[] = [];
  const argsinfo = def.argsinfo ?? {};
  const given = requested.args ?? {};
  const shown = pyRepr(requested);
  const unexpected = Object.keys(given).filter((name) => !Object.hasOwn(argsinfo, name));
  if (unexpected.length > 0) errors.push(`${flow} step ${shown} has these unexpected arguments: ${unexpected.join(', ')}`);
  const missing = Object.entries(argsinfo)
    .filter(([name, info]) => info.required === true && !Object.hasOwn(given, name))
    .map(([name, info]) => (info.description ? `${name} (${info.description})` : name));
  if (missing.length > 0) errors.push(`${flow} step ${shown} is missing these required arguments: ${missing.join(', ')}`);
  if (disableRamdisk && def.requiresRamdisk !== false) errors.push(`${flow} step ${shown} requires booting a ramdisk`);
  return errors;
}

/**
 * The requested steps as stored for the flow, in the order given. `ramdisk`: the agent will boot,
 * so a step the driver lacks is kept for the agent (checked once its steps are known).
 * `disableRamdisk`: the user asked for none, so every step must run without it. Throws
 * InvalidParameterValue naming every problem, joined by "; " as Ironic joins them.
 */
export function resolveUserSteps(
  driver: Driver,
  flow: FlowName,
  requested: readonly UserStep[],
  options: { readonly ramdisk: boolean; readonly disableRamdisk: boolean },
): Step[] {
  const errors: string[] = [];
  const steps = requested.map((r) => {
    // power_on, hold, wait…: run by the conductor; Ironic does not validate them either.
    if (isReservedStep(r)) return reservedStep(r);
    const def = findStep(driver, flow, r);
    const step = requestedDriverStep(driver, flow, r);
    if (def !== undefined && step !== undefined) {
      errors.push(...stepErrors(flow, r, def, options.disableRamdisk));
      return step;
    }
    if (!options.ramdisk) errors.push(`node does not support this ${flow} step: ${pyRepr(r)}`);
    return requestedAgentStep(r);
  });
  if (errors.length > 0) throw new InvalidParameterValue(errors.join('; '));
  return steps;
}

/** How Ironic's messages name each flow of requested steps. */
const WORDS = {
  clean: { validating: 'cleaning', verb: 'clean' },
  service: { validating: 'service', verb: 'service' },
} as const;

/**
 * Start a flow of steps the user asked for on a node claimed for it (Ironic's do_node_clean for a
 * manual clean, do_node_service): the power interface must validate and the steps must hold, or
 * the flow fails with Ironic's message. `ramdisk` says whether the agent boots first (then its
 * in-band steps are checked once it is up, and the steps are kept as the user wrote them until
 * then); `info` is what the flow records on the node besides.
 */
export async function startUserSteps(
  ctx: ConductorContext,
  node: Node,
  flow: 'clean' | 'service',
  requested: readonly UserStep[],
  options: {
    readonly owner: string;
    readonly messageId: string;
    readonly disableRamdisk: boolean;
    readonly ramdisk: (driver: Driver) => boolean;
    readonly info: (bootAgent: boolean) => Record<string, unknown>;
  },
): Promise<void> {
  let driver: Driver;
  try {
    driver = loadDriver(node);
    await driver.power.validate({ node, log: ctx.log });
  } catch (err) {
    await failFlow(ctx, node, flow, `Validation of node ${node.uuid} for ${WORDS[flow].validating} failed: ${(err as Error).message}`);
    return;
  }
  const bootAgent = options.ramdisk(driver);
  let steps: Step[];
  try {
    steps = resolveUserSteps(driver, flow, requested, { ramdisk: bootAgent, disableRamdisk: options.disableRamdisk });
  } catch (err) {
    await failFlow(ctx, node, flow, `Cannot ${WORDS[flow].verb} node ${node.uuid}: ${(err as Error).message}`);
    return;
  }
  if (flow === 'clean') await cacheBiosSettings(ctx, { node, log: ctx.log });
  // Ironic's do_node_clean and do_node_service refresh the firmware components before any step runs.
  await cacheFirmwareComponents(ctx, { node, log: ctx.log });
  setSteps(node, flow, bootAgent ? [] : steps);
  node.driver_internal_info = {
    ...node.driver_internal_info,
    ...(bootAgent ? { [REQUESTED_KEY[flow]]: requested } : {}),
    ...options.info(bootAgent),
  };
  await startSteps(ctx, node, flow, options.owner, options.messageId, { bootAgent });
}
