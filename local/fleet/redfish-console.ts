/**
 * What the virtual BMCs offer beside power, boot and media: indicator LEDs (the system's, the
 * chassis' and each Storage drive's `IndicatorLED`, settable with PATCH) and a graphical console (the Manager's
 * `GraphicalConsole` with KVM-IP, and the console page it serves at an OEM link, since Redfish has
 * no standard property for its URL). The `consoleUnavailable` fault turns the console service off
 * and makes the page answer 503. Kept apart from `redfish.ts` so each addition stays small.
 */
import type { VirtualMachine } from './machine';

type Doc = Record<string, unknown>;

/** Redfish IndicatorLED values the BMC accepts (Unknown is only ever reported). */
export const INDICATOR_LEDS = ['Lit', 'Off', 'Blinking'] as const;
export type IndicatorLed = (typeof INDICATOR_LEDS)[number] | 'Unknown';

/** The path of a machine's console page (an OEM resource of its Manager). */
export function consolePath(root: string, m: VirtualMachine): string {
  return `${root}/Managers/${m.id}/Oem/Ironless/GraphicalConsole`;
}

/** The console properties of a Manager document. */
export function managerConsoleFields(root: string, m: VirtualMachine): Doc {
  return {
    GraphicalConsole: { ServiceEnabled: !m.faults.consoleUnavailable, MaxConcurrentSessions: 1, ConnectTypesSupported: ['KVMIP'] },
    Oem: { Ironless: { GraphicalConsole: { '@odata.id': consolePath(root, m) } } },
  };
}

/** GET of the console page: what the screen shows, or 503 when the console is unavailable. */
export function consolePage(root: string, m: VirtualMachine): { status: number; body: Doc } {
  if (m.faults.consoleUnavailable) {
    return {
      status: 503,
      body: { error: { code: 'Base.1.8.ServiceTemporarilyUnavailable', message: 'The graphical console is unavailable.' } },
    };
  }
  m.consoleViews++;
  return {
    status: 200,
    body: {
      '@odata.id': consolePath(root, m),
      Id: 'GraphicalConsole',
      Name: `Graphical console of ${m.id}`,
      ConnectType: 'KVMIP',
      Screen: m.powerState === 'On' ? `${m.id} login: ` : 'No signal',
    },
  };
}

/** The IndicatorLED of a system or chassis document. */
export function ledField(led: IndicatorLed): Doc {
  return { IndicatorLED: led, 'IndicatorLED@Redfish.AllowableValues': INDICATOR_LEDS };
}

/**
 * Apply `IndicatorLED` of a PATCH body to `which` LED of the machine (a number: that drive's); an
 * error message for a value the BMC does not take, undefined when the body has none or it was applied.
 */
export function patchLed(m: VirtualMachine, which: 'system' | 'chassis' | number, body: Doc): string | undefined {
  if (!('IndicatorLED' in body)) return undefined;
  const value = body.IndicatorLED;
  if (!INDICATOR_LEDS.includes(value as (typeof INDICATOR_LEDS)[number])) {
    return `The value ${JSON.stringify(value)} for the property IndicatorLED is not in the list of acceptable values.`;
  }
  if (typeof which === 'number') m.leds.drives[which] = value as IndicatorLed;
  else m.leds[which] = value as IndicatorLed;
  return undefined;
}
