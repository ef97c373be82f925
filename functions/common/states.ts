/**
 * Ironic's provision and power states, and its provisioning state machine as one table.
 *
 * The API (to refuse a verb a state does not allow) and the conductor (to move a node) use this
 * same table, so the two can never disagree. Names and transitions follow Ironic's
 * `ironic/common/states.py` and `state_machine.py`.
 */

export const ENROLL = 'enroll';
export const VERIFYING = 'verifying';
export const MANAGEABLE = 'manageable';
export const AVAILABLE = 'available';
export const ACTIVE = 'active';
export const DEPLOYWAIT = 'wait call-back';
export const DEPLOYING = 'deploying';
export const DEPLOYFAIL = 'deploy failed';
export const DEPLOYHOLD = 'deploy hold';
export const DEPLOYDONE = 'deploy complete';
export const DELETING = 'deleting';
export const DELETED = 'deleted';
export const CLEANING = 'cleaning';
export const CLEANWAIT = 'clean wait';
export const CLEANFAIL = 'clean failed';
export const CLEANHOLD = 'clean hold';
export const ERROR = 'error';
export const INSPECTING = 'inspecting';
export const INSPECTWAIT = 'inspect wait';
export const INSPECTFAIL = 'inspect failed';
export const ADOPTING = 'adopting';
export const ADOPTFAIL = 'adopt failed';
export const RESCUE = 'rescue';
export const RESCUING = 'rescuing';
export const RESCUEWAIT = 'rescue wait';
export const RESCUEFAIL = 'rescue failed';
export const UNRESCUING = 'unrescuing';
export const UNRESCUEFAIL = 'unrescue failed';
export const SERVICING = 'servicing';
export const SERVICEWAIT = 'service wait';
export const SERVICEFAIL = 'service failed';
export const SERVICEHOLD = 'service hold';

/** Every provision state a node can be in (Ironic's ALL_STATES, 32 of them). */
export const ALL_STATES = [
  ACTIVE,
  ADOPTFAIL,
  ADOPTING,
  AVAILABLE,
  CLEANFAIL,
  CLEANHOLD,
  CLEANING,
  CLEANWAIT,
  DELETED,
  DELETING,
  DEPLOYDONE,
  DEPLOYFAIL,
  DEPLOYHOLD,
  DEPLOYING,
  DEPLOYWAIT,
  ENROLL,
  ERROR,
  INSPECTFAIL,
  INSPECTING,
  INSPECTWAIT,
  MANAGEABLE,
  RESCUE,
  RESCUEFAIL,
  RESCUING,
  RESCUEWAIT,
  SERVICEFAIL,
  SERVICEHOLD,
  SERVICING,
  SERVICEWAIT,
  UNRESCUEFAIL,
  UNRESCUING,
  VERIFYING,
] as const;
export type ProvisionState = (typeof ALL_STATES)[number];

export const STABLE_STATES: readonly string[] = [ENROLL, MANAGEABLE, AVAILABLE, ACTIVE, ERROR, RESCUE];

/** States a node is left in when the conductor working on it dies; they are failed, not resumed. */
export const STUCK_STATES_TREATED_AS_FAIL: readonly string[] = [
  DEPLOYING,
  CLEANING,
  VERIFYING,
  INSPECTING,
  ADOPTING,
  RESCUING,
  UNRESCUING,
  DELETING,
  SERVICING,
];

/** States in which a node may be updated although it is not stable. */
export const UPDATE_ALLOWED_STATES: readonly string[] = [
  DEPLOYFAIL,
  INSPECTING,
  INSPECTFAIL,
  INSPECTWAIT,
  CLEANFAIL,
  ERROR,
  VERIFYING,
  ADOPTFAIL,
  RESCUEFAIL,
  UNRESCUEFAIL,
  SERVICEHOLD,
  SERVICEFAIL,
];

/** States in which a node may be deleted. */
export const DELETE_ALLOWED_STATES: readonly string[] = [MANAGEABLE, ENROLL, ADOPTFAIL];

/** States in which the ramdisk agent may look its node up. */
export const LOOKUP_ALLOWED_STATES: readonly string[] = [
  DEPLOYING,
  DEPLOYWAIT,
  CLEANING,
  CLEANWAIT,
  INSPECTING,
  INSPECTWAIT,
  RESCUING,
  RESCUEWAIT,
  SERVICEWAIT,
];

export const FAILURE_STATES: readonly string[] = [DEPLOYFAIL, CLEANFAIL, INSPECTFAIL, RESCUEFAIL, UNRESCUEFAIL, ADOPTFAIL, SERVICEFAIL];

export const POWER_ON = 'power on';
export const POWER_OFF = 'power off';
export const REBOOT = 'rebooting';
export const SOFT_REBOOT = 'soft rebooting';
export const SOFT_POWER_OFF = 'soft power off';

/** API provision targets (`PUT /v1/nodes/{id}/states/provision {target}`) → FSM events. */
export const VERBS: Readonly<Record<string, string>> = {
  active: 'deploy',
  deploy: 'deploy',
  deleted: 'delete',
  undeploy: 'delete',
  manage: 'manage',
  provide: 'provide',
  inspect: 'inspect',
  abort: 'abort',
  clean: 'clean',
  adopt: 'adopt',
  rescue: 'rescue',
  unrescue: 'unrescue',
  unhold: 'unhold',
  service: 'service',
  rebuild: 'rebuild',
};

export type ProvisionEvent =
  | 'deploy'
  | 'rebuild'
  | 'delete'
  | 'manage'
  | 'provide'
  | 'inspect'
  | 'abort'
  | 'clean'
  | 'adopt'
  | 'rescue'
  | 'unrescue'
  | 'unhold'
  | 'service'
  | 'done'
  | 'fail'
  | 'wait'
  | 'resume'
  | 'hold';

/** The target state a transitional state leads to (Ironic's `add_state(..., target=...)`). */
const TARGETS: Readonly<Record<string, string>> = {
  [VERIFYING]: MANAGEABLE,
  [DEPLOYING]: ACTIVE,
  [DEPLOYWAIT]: ACTIVE,
  [DEPLOYFAIL]: ACTIVE,
  [DEPLOYHOLD]: ACTIVE,
  [CLEANING]: AVAILABLE,
  [CLEANWAIT]: AVAILABLE,
  [CLEANFAIL]: AVAILABLE,
  [CLEANHOLD]: AVAILABLE,
  [DELETING]: AVAILABLE,
  [INSPECTING]: MANAGEABLE,
  [INSPECTFAIL]: MANAGEABLE,
  [INSPECTWAIT]: MANAGEABLE,
  [ADOPTING]: ACTIVE,
  [ADOPTFAIL]: ACTIVE,
  [RESCUING]: RESCUE,
  [RESCUEWAIT]: RESCUE,
  [RESCUEFAIL]: RESCUE,
  [UNRESCUING]: ACTIVE,
  [UNRESCUEFAIL]: ACTIVE,
  [SERVICING]: ACTIVE,
  [SERVICEWAIT]: ACTIVE,
  [SERVICEFAIL]: ACTIVE,
  [SERVICEHOLD]: ACTIVE,
};

type Transition = readonly [from: string, event: ProvisionEvent, to: string];

/** Ironic's 93 transitions, in the order `state_machine.py` adds them. */
export const TRANSITIONS: readonly Transition[] = [
  [AVAILABLE, 'deploy', DEPLOYING],
  [DEPLOYING, 'fail', DEPLOYFAIL],
  [DEPLOYFAIL, 'rebuild', DEPLOYING],
  [DEPLOYFAIL, 'deploy', DEPLOYING],
  [DEPLOYING, 'wait', DEPLOYWAIT],
  [DEPLOYING, 'hold', DEPLOYHOLD],
  [DEPLOYWAIT, 'hold', DEPLOYHOLD],
  [DEPLOYWAIT, 'resume', DEPLOYING],
  [DEPLOYWAIT, 'fail', DEPLOYFAIL],
  [DEPLOYHOLD, 'unhold', DEPLOYWAIT],
  [DEPLOYHOLD, 'abort', DEPLOYFAIL],
  [DEPLOYWAIT, 'abort', DEPLOYFAIL],
  [DEPLOYING, 'done', ACTIVE],
  [ACTIVE, 'rebuild', DEPLOYING],
  [ACTIVE, 'delete', DELETING],
  [DEPLOYWAIT, 'delete', DELETING],
  [DEPLOYFAIL, 'delete', DELETING],
  [DELETING, 'fail', ERROR],
  [DELETING, 'clean', CLEANING],
  [CLEANING, 'done', AVAILABLE],
  [CLEANING, 'fail', CLEANFAIL],
  [CLEANWAIT, 'fail', CLEANFAIL],
  [CLEANWAIT, 'abort', CLEANFAIL],
  [CLEANING, 'wait', CLEANWAIT],
  [CLEANING, 'hold', CLEANHOLD],
  [CLEANWAIT, 'hold', CLEANHOLD],
  [CLEANWAIT, 'resume', CLEANING],
  [CLEANHOLD, 'abort', CLEANFAIL],
  [CLEANHOLD, 'unhold', CLEANWAIT],
  [CLEANFAIL, 'manage', MANAGEABLE],
  [MANAGEABLE, 'provide', CLEANING],
  [MANAGEABLE, 'clean', CLEANING],
  [CLEANING, 'manage', MANAGEABLE],
  [AVAILABLE, 'manage', MANAGEABLE],
  [ERROR, 'rebuild', DEPLOYING],
  [ERROR, 'delete', DELETING],
  [MANAGEABLE, 'inspect', INSPECTING],
  [INSPECTING, 'done', MANAGEABLE],
  [INSPECTING, 'fail', INSPECTFAIL],
  [INSPECTING, 'wait', INSPECTWAIT],
  [INSPECTWAIT, 'done', MANAGEABLE],
  [INSPECTWAIT, 'fail', INSPECTFAIL],
  [INSPECTWAIT, 'abort', INSPECTFAIL],
  [INSPECTWAIT, 'resume', INSPECTING],
  [INSPECTFAIL, 'manage', MANAGEABLE],
  [INSPECTFAIL, 'inspect', INSPECTING],
  [ACTIVE, 'rescue', RESCUING],
  [RESCUING, 'done', RESCUE],
  [RESCUING, 'wait', RESCUEWAIT],
  [RESCUEWAIT, 'resume', RESCUING],
  [RESCUE, 'rescue', RESCUING],
  [RESCUE, 'delete', DELETING],
  [RESCUEWAIT, 'fail', RESCUEFAIL],
  [RESCUING, 'fail', RESCUEFAIL],
  [RESCUEWAIT, 'abort', RESCUEFAIL],
  [RESCUEFAIL, 'rescue', RESCUING],
  [RESCUEFAIL, 'unrescue', UNRESCUING],
  [RESCUEFAIL, 'delete', DELETING],
  [RESCUEWAIT, 'delete', DELETING],
  [RESCUE, 'unrescue', UNRESCUING],
  [UNRESCUING, 'done', ACTIVE],
  [UNRESCUING, 'fail', UNRESCUEFAIL],
  [UNRESCUEFAIL, 'rescue', RESCUING],
  [UNRESCUEFAIL, 'unrescue', UNRESCUING],
  [UNRESCUEFAIL, 'delete', DELETING],
  [ENROLL, 'manage', VERIFYING],
  [VERIFYING, 'done', MANAGEABLE],
  [VERIFYING, 'fail', ENROLL],
  [MANAGEABLE, 'adopt', ADOPTING],
  [ADOPTING, 'done', ACTIVE],
  [ADOPTING, 'fail', ADOPTFAIL],
  [ADOPTFAIL, 'adopt', ADOPTING],
  [ADOPTFAIL, 'manage', MANAGEABLE],
  [SERVICING, 'done', ACTIVE],
  [ACTIVE, 'service', SERVICING],
  [SERVICING, 'fail', SERVICEFAIL],
  [SERVICING, 'wait', SERVICEWAIT],
  [SERVICING, 'hold', SERVICEHOLD],
  [SERVICEWAIT, 'hold', SERVICEHOLD],
  [SERVICEHOLD, 'service', SERVICING],
  [SERVICEHOLD, 'unhold', SERVICEWAIT],
  [SERVICEWAIT, 'resume', SERVICING],
  [SERVICEWAIT, 'fail', SERVICEFAIL],
  [SERVICEHOLD, 'fail', SERVICEFAIL],
  [SERVICEWAIT, 'abort', SERVICEFAIL],
  [SERVICEHOLD, 'abort', SERVICEFAIL],
  [SERVICEFAIL, 'service', SERVICING],
  [SERVICEFAIL, 'rescue', RESCUING],
  [SERVICEFAIL, 'wait', SERVICEWAIT],
  [SERVICEFAIL, 'hold', SERVICEHOLD],
  [SERVICEFAIL, 'delete', DELETING],
  [SERVICEFAIL, 'abort', ACTIVE],
  [SERVICEWAIT, 'delete', DELETING],
];

const TABLE = new Map<string, string>(TRANSITIONS.map(([from, event, to]) => [`${from}\u0000${event}`, to]));

/** The result of applying an event to a state, as Ironic's FSM computes it. */
export interface TransitionResult {
  readonly provisionState: string;
  /** The new `target_provision_state`: the target of a transitional state, or null once stable. */
  readonly targetProvisionState: string | null;
}

/** The state `event` leads to from `state`, or undefined when the table has no such row. */
export function nextState(state: string, event: ProvisionEvent): string | undefined {
  return TABLE.get(`${state}\u0000${event}`);
}

export function isAllowed(state: string, event: ProvisionEvent): boolean {
  return TABLE.has(`${state}\u0000${event}`);
}

/** The states a manual clean passes through, which lead back to manageable rather than available. */
const CLEAN_STATES: ReadonlySet<string> = new Set([CLEANING, CLEANWAIT, CLEANHOLD, CLEANFAIL]);

/**
 * Apply `event` to `state`. Like Ironic's FSM, entering a stable state clears the target, entering a
 * transitional state sets its declared target. `target` is the target the flow has: a manual clean
 * (target manageable) keeps it through the clean states, as Ironic passes `target_state=MANAGEABLE`
 * at each of its transitions.
 */
export function transition(state: string, event: ProvisionEvent, target: string | null = null): TransitionResult | undefined {
  const to = nextState(state, event);
  if (to === undefined) return undefined;
  const manualClean = target === MANAGEABLE && CLEAN_STATES.has(to);
  return { provisionState: to, targetProvisionState: manualClean ? MANAGEABLE : targetOf(to) };
}

/** The target a state leads to: its declared target, or null for a stable state. */
export function targetOf(state: string): string | null {
  if (STABLE_STATES.includes(state)) return null;
  return TARGETS[state] ?? null;
}

export function isStable(state: string): boolean {
  return STABLE_STATES.includes(state);
}

/**
 * The node field holding the current step while `abort` may find the node waiting on it: the step
 * whose `abortable` decides whether abort acts at once or once the step has finished.
 */
export const ABORTABLE_STEP_FIELD: Readonly<Record<string, 'deploy_step' | 'clean_step' | 'service_step'>> = {
  [DEPLOYWAIT]: 'deploy_step',
  [CLEANWAIT]: 'clean_step',
  [CLEANHOLD]: 'clean_step',
  [SERVICEWAIT]: 'service_step',
  [SERVICEHOLD]: 'service_step',
};

/**
 * Ironic's last_error for a deploy, clean or service operation aborted by request, naming the step
 * it was in (cleaning/servicing `get_last_error`, `do_node_deploy_abort`).
 */
export function abortedByRequest(
  operation: 'deploy' | 'clean' | 'service',
  step: Readonly<Record<string, unknown>> | null | undefined,
): string {
  const during =
    step && typeof step.step === 'string' ? ` during or after the completion of step "${String(step.interface)}.${step.step}"` : '';
  return `By request, the ${operation} operation was aborted${during}`;
}
