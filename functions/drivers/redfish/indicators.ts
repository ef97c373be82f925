/**
 * Indicator LEDs through Redfish (Ironic's RedfishManagement indicator methods): the `IndicatorLED`
 * of the system and of its chassis, each named by its resource's UUID, and of the drives of its
 * Storage (the `disk` component), each named `<storage Id>:<drive Id>` since a drive has no UUID and
 * its Id need not be unique across controllers. Resources that report no IndicatorLED have none.
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

const linkPath = (link: unknown): string | undefined => {
  const path = (link as { '@odata.id'?: unknown } | undefined)?.['@odata.id'];
  return typeof path === 'string' ? path : undefined;
};
const linkPaths = (links: unknown): string[] =>
  (Array.isArray(links) ? links : []).map(linkPath).filter((p): p is string => p !== undefined);

/**
 * The LEDs of one component (`chassis`, `system` or `disk`); none for any other. Given the
 * indicator looked for, only the drives of its storage are read, as Ironic reads them.
 */
async function componentLeds(system: RedfishSystem, component: string, indicator?: string): Promise<Led[]> {
  const out: Led[] = [];
  const ledOf = (doc: Resource, id: unknown, path: string) => {
    if (typeof id === 'string' && typeof doc.IndicatorLED === 'string') out.push({ component, id, path, state: doc.IndicatorLED });
  };
  if (component === COMPONENTS.CHASSIS) {
    for (const path of linkPaths((system.doc.Links as Resource | undefined)?.Chassis)) {
      const doc = await system.client.get(path);
      ledOf(doc, doc.UUID, path);
    }
  } else if (component === COMPONENTS.SYSTEM) {
    ledOf(system.doc, system.doc.UUID, system.path);
  } else if (component === COMPONENTS.DISK) {
    for (const storage of await system.members('Storage')) {
      if (indicator !== undefined && indicator.split(':')[0] !== storage.Id) continue;
      for (const path of linkPaths(storage.Drives)) {
        const drive = await system.client.get(path);
        ledOf(drive, typeof storage.Id === 'string' && typeof drive.Id === 'string' ? `${storage.Id}:${drive.Id}` : undefined, path);
      }
    }
  }
  return out;
}

function unknownIndicator(task: Task, component: string, indicator: string): never {
  throw new MissingParameterValue(`Unknown indicator ${indicator} for component ${component} of node ${task.node.uuid}`);
}

/** How the indicators reach the BMC (unit tests give a system over a stub client). */
export interface IndicatorDeps {
  readonly getSystem: (task: Task, config: RedfishConfig) => Promise<RedfishSystem>;
}

export function createRedfishIndicators(
  config: RedfishConfig,
  deps: IndicatorDeps = { getSystem },
): Pick<ManagementInterface, 'getSupportedIndicators' | 'getIndicatorState' | 'setIndicatorState'> {
  return {
    async getSupportedIndicators(task, component) {
      const system = await deps.getSystem(task, config);
      const out: IndicatorMap = {};
      const wanted = [COMPONENTS.CHASSIS, COMPONENTS.SYSTEM, COMPONENTS.DISK].filter((c) => component === undefined || c === component);
      for (const c of wanted) {
        try {
          for (const led of await componentLeds(system, c)) out[c] = { ...out[c], [led.id]: SETTABLE };
        } catch (err) {
          // As Ironic: a component whose LEDs cannot be read is left out, the others still listed.
          if (!isRedfishFailure(err)) throw err;
          task.log.debug('Indicators not available', { node: task.node.uuid, component: c, error: String(err) });
        }
      }
      return out;
    },
    async getIndicatorState(task, component, indicator) {
      const system = await deps.getSystem(task, config);
      let found: Led | undefined;
      try {
        found = (await componentLeds(system, component, indicator)).find((l) => l.id === indicator);
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
      const system = await deps.getSystem(task, config);
      try {
        const found = (await componentLeds(system, component, indicator)).find((l) => l.id === indicator);
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
