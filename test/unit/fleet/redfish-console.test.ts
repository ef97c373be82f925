/** The virtual BMC's indicator LEDs and graphical console, without HTTP. */
import { defaultSpec } from '../../../local/fleet/fleet';
import { VirtualMachine } from '../../../local/fleet/machine';
import { routeRedfish } from '../../../local/fleet/redfish';
import { parseFaults } from '../../../local/fleet/server';

function setup() {
  const m = new VirtualMachine(defaultSpec('t', 0, {}));
  const machines = new Map([[m.id, m]]);
  const send = (method: string, path: string, body?: unknown) => routeRedfish(machines, { method, path, body });
  return { m, send };
}

describe('indicator LEDs', () => {
  it('are reported on the system and chassis, and set with PATCH', () => {
    const { m, send } = setup();
    expect(send('GET', '/redfish/v1/Systems/t-0').body).toMatchObject({ IndicatorLED: 'Off' });
    expect(send('GET', '/redfish/v1/Chassis/t-0').body).toMatchObject({ IndicatorLED: 'Off', UUID: m.uuid });
    expect(send('PATCH', '/redfish/v1/Systems/t-0', { IndicatorLED: 'Blinking' }).status).toBe(204);
    expect(send('PATCH', '/redfish/v1/Chassis/t-0', { IndicatorLED: 'Lit' }).status).toBe(204);
    expect(m.leds).toEqual({ system: 'Blinking', chassis: 'Lit', drives: {} });
    expect(send('GET', '/redfish/v1/Systems/t-0').body).toMatchObject({ IndicatorLED: 'Blinking' });
  });

  it('are reported on each Storage drive and set with a PATCH of the drive, which takes nothing else', () => {
    const { m, send } = setup();
    const drive = '/redfish/v1/Systems/t-0/Storage/1/Drives/0';
    expect(send('GET', drive).body).toMatchObject({
      Id: '0',
      IndicatorLED: 'Off',
      'IndicatorLED@Redfish.AllowableValues': ['Lit', 'Off', 'Blinking'],
    });
    expect(send('PATCH', drive, { IndicatorLED: 'Blinking' }).status).toBe(204);
    expect(m.leds.drives).toEqual({ 0: 'Blinking' });
    expect(send('GET', drive).body).toMatchObject({ IndicatorLED: 'Blinking' });
    expect(send('PATCH', drive, { IndicatorLED: 'Pink' }).status).toBe(400);
    expect(send('PATCH', `/redfish/v1/Systems/t-0/Storage/1/Drives/${m.spec.disks.length}`, { IndicatorLED: 'Lit' }).status).toBe(404);
    expect(send('PATCH', '/redfish/v1/Systems/t-0/Storage/1', { IndicatorLED: 'Lit' }).status).toBe(405);
    expect(send('POST', drive, { IndicatorLED: 'Lit' }).status).toBe(405);
    expect(m.leds.drives).toEqual({ 0: 'Blinking' });
  });

  it('refuse a value the BMC does not take, changing nothing', () => {
    const { m, send } = setup();
    const reply = send('PATCH', '/redfish/v1/Chassis/t-0', { IndicatorLED: 'Pink' });
    expect(reply.status).toBe(400);
    expect(JSON.stringify(reply.body)).toContain('PropertyValueNotInList');
    expect(m.leds.chassis).toBe('Off');
  });
});

describe('the graphical console', () => {
  it('is offered by the manager, with the page it serves', () => {
    const { m, send } = setup();
    expect(send('GET', '/redfish/v1/Managers/t-0').body).toMatchObject({
      GraphicalConsole: { ServiceEnabled: true, ConnectTypesSupported: ['KVMIP'] },
      Oem: { Ironless: { GraphicalConsole: { '@odata.id': '/redfish/v1/Managers/t-0/Oem/Ironless/GraphicalConsole' } } },
    });
    expect(send('GET', '/redfish/v1/Managers/t-0/Oem/Ironless/GraphicalConsole')).toMatchObject({
      status: 200,
      body: { Screen: 'No signal' },
    });
    expect(m.consoleViews).toBe(1);
    expect(send('POST', '/redfish/v1/Managers/t-0/Oem/Ironless/GraphicalConsole', {}).status).toBe(405);
  });

  it('is off and its page answers 503 under the consoleUnavailable fault', () => {
    const { m, send } = setup();
    expect(parseFaults({ consoleUnavailable: true })).toEqual({ consoleUnavailable: true });
    expect(parseFaults({ consoleUnavailable: 'yes' })).toBe('consoleUnavailable must be true or false');
    m.setFaults({ consoleUnavailable: true });
    expect(send('GET', '/redfish/v1/Managers/t-0').body).toMatchObject({ GraphicalConsole: { ServiceEnabled: false } });
    expect(send('GET', '/redfish/v1/Managers/t-0/Oem/Ironless/GraphicalConsole').status).toBe(503);
    expect(m.consoleViews).toBe(0);
  });
});
