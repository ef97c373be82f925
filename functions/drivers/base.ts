/**
 * Hardware interfaces and hardware types, after Ironic's `ironic/drivers/base.py`.
 *
 * A hardware type (fake-hardware, redfish) names, per interface type, the implementations it
 * supports, first = default. A node's `*_interface` fields pick one implementation of each type.
 * Implementations are stateless objects; everything about a node travels in the `Task`.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { InterfaceType, Node } from '#objects/node';

/** What a driver call gets: the locked node and a logger. The caller saves the node afterwards. */
export interface Task {
  readonly node: Node;
  readonly log: Logger;
}

/** A step as stored on a node (`driver_internal_info.deploy_steps`) and shown by the API. */
export interface Step {
  readonly interface: InterfaceType;
  readonly step: string;
  readonly priority: number;
  readonly args: Record<string, unknown>;
  /** Run by the agent: continues asynchronously until the agent reports the command finished. */
  readonly async?: boolean;
}

/** What a step's implementation returns: done, or wait for the agent (async). */
export type StepOutcome = { readonly wait: false } | { readonly wait: true };

export interface StepDefinition {
  readonly step: string;
  /** Default priority; 0 = not run unless asked for. */
  readonly priority: number;
  readonly argsinfo?: Readonly<Record<string, { readonly description: string; readonly required?: boolean }>>;
  execute(task: Task, args: Record<string, unknown>): Promise<StepOutcome>;
}

export interface HardwareInterface {
  /** The implementation name, as in `deploy_interface: "fake"`. */
  readonly name: string;
  /** Check the node has what this interface needs; throw InvalidParameterValue/MissingParameterValue. */
  validate(task: Task): Promise<void>;
  readonly deploySteps?: readonly StepDefinition[];
  readonly cleanSteps?: readonly StepDefinition[];
  readonly serviceSteps?: readonly StepDefinition[];
}

export interface PowerInterface extends HardwareInterface {
  getPowerState(task: Task): Promise<string>;
  setPowerState(task: Task, state: string, timeoutSeconds?: number): Promise<void>;
  reboot(task: Task, timeoutSeconds?: number): Promise<void>;
  getSupportedPowerStates(task: Task): Promise<string[]>;
}

export interface DeployInterface extends HardwareInterface {
  /** Undo a deployment (power off, clean up); part of `deleted`/`undeploy`. */
  tearDown(task: Task): Promise<void>;
}

export type AnyInterface = HardwareInterface | PowerInterface | DeployInterface;

export interface HardwareType {
  readonly name: string;
  /** Supported implementation names per interface type; the first is the default. */
  readonly supported: Readonly<Record<InterfaceType, readonly string[]>>;
}

/** A node's driver: its hardware type and the implementation chosen for each interface type. */
export interface Driver {
  readonly hardwareType: HardwareType;
  readonly interfaces: Readonly<Record<InterfaceType, HardwareInterface>>;
  readonly power: PowerInterface;
  readonly deploy: DeployInterface;
}
