/**
 * Indicator LEDs of a node's hardware components (Ironic's `indicator_states` and `components`,
 * and FakeManagement's indicators). Management interfaces that have them implement the optional
 * indicator methods of `ManagementInterface`; the others refuse with UnsupportedDriverExtension,
 * as Ironic's base class does.
 */
import { InvalidParameterValue, UnsupportedDriverExtension } from '#common/errors';
import type { IndicatorInfo, ManagementInterface, Task } from './base';

/** Ironic's indicator states (`ironic/common/indicator_states.py`). */
export const INDICATOR_STATES = { OFF: 'off', ON: 'on', BLINKING: 'blinking', UNKNOWN: 'unknown' } as const;
/** Ironic's hardware components (`ironic/common/components.py`). */
export const COMPONENTS = { SYSTEM: 'system', CHASSIS: 'chassis', DISK: 'disk' } as const;

export type IndicatorMap = Record<string, Record<string, IndicatorInfo>>;

/**
 * A state asked for. Ironic's constants are lower case while its API reference shows them upper
 * case (`"BLINKING"`); both are taken. NOTE: Ironic's redfish driver fails an unknown one with a
 * 500 (a KeyError); this answers 400 naming the valid states.
 */
export function settableState(state: string): string {
  const lower = state.toLowerCase();
  const valid = [INDICATOR_STATES.OFF, INDICATOR_STATES.ON, INDICATOR_STATES.BLINKING] as string[];
  if (!valid.includes(lower)) {
    throw new InvalidParameterValue(`Invalid indicator state ${state} specified. Valid states are: ${valid.join(', ')}`);
  }
  return lower;
}

/** FakeManagement's indicators: a read-only chassis LED and a settable system LED, both always "on". */
const FAKE_INDICATORS: IndicatorMap = {
  [COMPONENTS.CHASSIS]: { 'led-0': { readonly: true, states: [INDICATOR_STATES.OFF, INDICATOR_STATES.ON] } },
  [COMPONENTS.SYSTEM]: {
    led: { readonly: false, states: [INDICATOR_STATES.BLINKING, INDICATOR_STATES.OFF, INDICATOR_STATES.ON] },
  },
};

function onlyComponent(indicators: IndicatorMap, component?: string): IndicatorMap {
  return Object.fromEntries(Object.entries(indicators).filter(([c]) => component === undefined || component === c));
}

/**
 * Ironic's FakeManagement indicator methods. As in Ironic, setting is not implemented (its base
 * class refuses it), so the fake LEDs read "on" whatever is asked.
 */
export const fakeIndicators: Pick<ManagementInterface, 'getSupportedIndicators' | 'getIndicatorState' | 'setIndicatorState'> = {
  async getSupportedIndicators(_task: Task, component?: string) {
    return onlyComponent(FAKE_INDICATORS, component);
  },
  async getIndicatorState(_task: Task, component: string, indicator: string) {
    const byComponent = FAKE_INDICATORS[component];
    if (byComponent === undefined) throw new InvalidParameterValue(`Invalid component ${component} specified.`);
    if (byComponent[indicator] === undefined) throw new InvalidParameterValue(`Invalid indicator ${indicator} specified.`);
    return INDICATOR_STATES.ON;
  },
  async setIndicatorState(task: Task) {
    throw new UnsupportedDriverExtension(task.node.driver, 'set_indicator_state');
  },
};
