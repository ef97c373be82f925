/**
 * Provision and power states as the console shows them: a tone (the color, always beside the
 * state's name) and the provision verbs Ironic's state machine expects from each state. The API
 * decides: the console offers every verb and marks the expected ones, it never blocks one (a stale
 * page or another Ironic version may know better). Pure: no DOM, unit-tested.
 */

export type Tone = 'ok' | 'ready' | 'idle' | 'busy' | 'hold' | 'failed' | 'off' | 'unknown';

const TONES: Readonly<Record<string, Tone>> = {
  active: 'ok',
  available: 'ready',
  enroll: 'idle',
  manageable: 'idle',
  rescue: 'hold',
  'deploy hold': 'hold',
  'clean hold': 'hold',
  'service hold': 'hold',
  'deploy failed': 'failed',
  'clean failed': 'failed',
  'inspect failed': 'failed',
  'adopt failed': 'failed',
  'rescue failed': 'failed',
  'unrescue failed': 'failed',
  'service failed': 'failed',
  error: 'failed',
};

/** States in which a flow runs (the page follows them closely). */
export const BUSY_STATES: ReadonlySet<string> = new Set([
  'verifying',
  'deploying',
  'wait call-back',
  'cleaning',
  'clean wait',
  'inspecting',
  'inspect wait',
  'adopting',
  'rescuing',
  'rescue wait',
  'unrescuing',
  'deleting',
  'servicing',
  'service wait',
]);

/** Every provision state Ironic knows, in the order of a node's life (for filters and counts). */
export const PROVISION_STATES: readonly string[] = [
  'enroll',
  'verifying',
  'manageable',
  'inspecting',
  'inspect wait',
  'inspect failed',
  'cleaning',
  'clean wait',
  'clean hold',
  'clean failed',
  'available',
  'deploying',
  'wait call-back',
  'deploy hold',
  'deploy failed',
  'active',
  'servicing',
  'service wait',
  'service hold',
  'service failed',
  'deleting',
  'error',
  'adopting',
  'adopt failed',
  'rescuing',
  'rescue wait',
  'rescue',
  'rescue failed',
  'unrescuing',
  'unrescue failed',
];

export function provisionTone(state: string | null | undefined): Tone {
  if (state === null || state === undefined) return 'unknown';
  return TONES[state] ?? (BUSY_STATES.has(state) ? 'busy' : 'unknown');
}

export function powerTone(state: string | null | undefined): Tone {
  if (state === 'power on') return 'ok';
  if (state === 'power off') return 'off';
  if (state === null || state === undefined || state === 'None') return 'unknown';
  return 'busy';
}

export type ProvisionVerb = 'manage' | 'provide' | 'deploy' | 'undeploy' | 'clean' | 'service' | 'abort' | 'inspect';

/** The verbs Ironic's state machine takes from each state (ironic/common/states.py). */
const EXPECTED: Readonly<Record<string, readonly ProvisionVerb[]>> = {
  enroll: ['manage'],
  manageable: ['provide', 'clean', 'inspect'],
  available: ['deploy', 'manage'],
  active: ['undeploy', 'service'],
  'deploy failed': ['deploy', 'undeploy'],
  'wait call-back': ['abort', 'undeploy'],
  'deploy hold': ['abort'],
  'clean wait': ['abort'],
  'clean hold': ['abort'],
  'clean failed': ['manage'],
  'inspect wait': ['abort'],
  'inspect failed': ['manage', 'inspect'],
  'adopt failed': ['manage'],
  error: ['undeploy'],
  'service wait': ['abort'],
  'service hold': ['abort', 'service'],
  'service failed': ['abort', 'service', 'undeploy'],
  'rescue wait': ['abort', 'undeploy'],
  rescue: ['undeploy'],
  'rescue failed': ['undeploy'],
  'unrescue failed': ['undeploy'],
};

export function expectedVerbs(state: string | null | undefined): readonly ProvisionVerb[] {
  return (state && EXPECTED[state]) || [];
}

/** The `target` of `PUT /v1/nodes/{node}/states/provision` for a verb. */
export const VERB_TARGET: Readonly<Record<ProvisionVerb, string>> = {
  manage: 'manage',
  provide: 'provide',
  deploy: 'active',
  undeploy: 'deleted',
  clean: 'clean',
  service: 'service',
  abort: 'abort',
  inspect: 'inspect',
};

/** Which step flow a state belongs to (its steps are the ones to show). */
export function flowOfState(state: string | null | undefined): 'deploy' | 'clean' | 'service' | undefined {
  if (state === null || state === undefined) return undefined;
  if (state.startsWith('deploy') || state === 'wait call-back') return 'deploy';
  if (state.startsWith('clean')) return 'clean';
  if (state.startsWith('servic')) return 'service';
  return undefined;
}
