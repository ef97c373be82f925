/**
 * Indicator LEDs through Redfish (Ironic's RedfishManagement indicator methods): the system's and
 * its chassis' `IndicatorLED`, each named by its resource's UUID, as Ironic names them. Drive
 * LEDs (Ironic's `disk` component) are not read.
 */
import { MissingParameterValue, RedfishError } from '#common/errors';
import type { ManagementInterface, Task } from '../base';
import { COMPONENTS, INDICATOR_STATES, type IndicatorMap, settableState } from '../indicators';
import type { Resource } from './client';
import type { RedfishConfig } from './config';
import { type RedfishSystem, getSystem, isRedfishFailure } from './system';

const INDICATOR_MAP: Readonly<Record<string, string>> = {
  Lit: INDICATOR_STATES.ON,
  Off: INDICATOR_STATES.OFF,
  Blinking: INDICATOR_STATES.BLINKING,
  Unknown: INDICATOR_STATES.UNKNOWN,
};
const INDICATOR_MAP_REV: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(INDICATOR_MAP).map(([k, v]) => [v, k]));

const SETTABLE = { readonly: false, states: [INDICATOR_STATES.BLINKING, INDICATOR_STATES.OFF, INDICATOR_STATES.ON] };

interface Led {
  readonly component: string;
  readonly id: string;
  readonly path: string;
  readonly state: string | undefined;
}

/** The LEDs of the system and its chassis that report an IndicatorLED. */
async function leds(system: RedfishSystem, component?: string): Promise<Led[]> {
  const out: Led[] = [];
  const ledOf = (doc: Resource, c: string, path: string) => {
    if (typeof doc.UUID === 'string' && typeof doc.IndicatorLED === 'string')
      out.push({ component: c, id: doc.UUID, path, state: doc.IndicatorLED });
  };
  if (component === undefined || component === COMPONENTS.CHASSIS) {
    const links = ((system.doc.Links as Resource | undefined)?.Chassis ?? []) as { '@odata.id'?: unknown }[];
    for (const link of links) {
      const path = link['@odata.id'];
      if (typeof path === 'string') ledOf(await system.client.get(path), COMPONENTS.CHASSIS, path);
    }
  }
  if (component === undefined || component === COMPONENTS.SYSTEM) ledOf(system.doc, COMPONENTS.SYSTEM, system.path);
  return out;
}

function unknownIndicator(task: Task, component: string, indicator: string): never {
  throw new MissingParameterValue(`Unknown indicator ${indicator} for component ${component} of node ${task.node.uuid}`);
}

export function createRedfishIndicators(
  config: RedfishConfig,
): Pick<ManagementInterface, 'getSupportedIndicators' | 'getIndicatorState' | 'setIndicatorState'> {
  return {
    async getSupportedIndicators(task, component) {
      const system = await getSystem(task, config);
      const out: IndicatorMap = {};
      try {
        for (const led of await leds(system, component)) out[led.component] = { ...out[led.component], [led.id]: SETTABLE };
      } catch (err) {
        // As Ironic: a component whose LED cannot be read is left out.
        if (!isRedfishFailure(err)) throw err;
        task.log.debug('Indicators not available', { node: task.node.uuid, error: String(err) });
      }
      return out;
    },
    async getIndicatorState(task, component, indicator) {
      const system = await getSystem(task, config);
      let found: Led | undefined;
      try {
        found = (await leds(system, component)).find((l) => l.component === component && l.id === indicator);
      } catch (err) {
        if (!isRedfishFailure(err)) throw err;
        throw new RedfishError(
          `Redfish get ${component} indicator ${indicator} state failed for node ${task.node.uuid}. Error: ${err.message}`,
        );
      }
      if (found === undefined) unknownIndicator(task, component, indicator);
      return INDICATOR_MAP[found.state ?? 'Unknown'] ?? INDICATOR_STATES.UNKNOWN;
    },
    async setIndicatorState(task, component, indicator, state) {
      const wanted = settableState(state);
      const system = await getSystem(task, config);
      try {
        const found = (await leds(system, component)).find((l) => l.component === component && l.id === indicator);
        if (found === undefined) unknownIndicator(task, component, indicator);
        await system.client.patch(found.path, { IndicatorLED: INDICATOR_MAP_REV[wanted] as string });
      } catch (err) {
        if (!isRedfishFailure(err)) throw err;
        throw new RedfishError(
          `Redfish set ${component} indicator ${indicator} state ${state} failed for node ${task.node.uuid}. Error: ${err.message}`,
        );
      }
    },
  };
}
