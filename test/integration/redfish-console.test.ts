/**
 * The `redfish-graphical` console and redfish indicators end to end: API → conductor → Redfish
 * driver → virtual BMC. The console's URL is the page the BMC serves; a BMC whose console is
 * unavailable fails the start with last_error and a `console` history event. LEDs are the
 * system's and chassis' IndicatorLED, named by their UUIDs as Ironic names them, and the Storage
 * drives' (`disk`), named `<storage Id>:<drive Id>`.
 */
import { jest } from '@jest/globals';
import type { VirtualMachine } from '../../local/fleet/machine';
import type { LocalStack } from '../../local/stack';
import { ApiClient, type Json, faultOf, startStack } from './helpers/stack';

// Real services on a loaded machine: jest's project-level testTimeout is not applied (see jest.config.js).
jest.setTimeout(30_000);

let stack: LocalStack;
let api: ApiClient;

beforeAll(async () => {
  stack = await startStack({
    fleet: { count: 1, prefix: 'rcon' },
    functionEnv: { REDFISH_CONNECTION_ATTEMPTS: '2', REDFISH_CONNECTION_RETRY_INTERVAL: '0', REDFISH_READ_TIMEOUT: '2' },
  });
  api = new ApiClient(stack.url, '1.82');
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

async function redfishNode(overrides: Record<string, unknown> = {}): Promise<{ uuid: string; machine: VirtualMachine }> {
  const fleet = stack.fleet!;
  const machine = fleet.add();
  const reply = await api.request('POST', '/v1/nodes', { driver: 'redfish', driver_info: fleet.driverInfo(machine), ...overrides });
  if (reply.status !== 201) throw new Error(reply.text);
  return { uuid: reply.body.uuid as string, machine };
}

describe('the redfish-graphical console', () => {
  it('starts on the BMC’s graphical console and shows the URL of the page the BMC serves', async () => {
    const { uuid, machine } = await redfishNode({ console_interface: 'redfish-graphical' });
    expect((await api.request('PUT', `/v1/nodes/${uuid}/states/console`, { enabled: true })).status).toBe(202);
    await api.until(uuid, (n) => n.console_enabled === true && n.reservation === null);

    const { body } = await api.get(`/v1/nodes/${uuid}/states/console`);
    const address = String(stack.fleet!.driverInfo(machine).redfish_address);
    expect(body).toEqual({
      console_enabled: true,
      console_info: { type: 'vnc', url: `${address}/redfish/v1/Managers/${machine.id}/Oem/Ironless/GraphicalConsole` },
    });
    // The URL is the BMC's own page, reachable with the BMC's credentials.
    const views = machine.consoleViews;
    const auth = Buffer.from(`${machine.spec.username}:${machine.spec.password}`).toString('base64');
    const page = await fetch(body.console_info.url, { headers: { Authorization: `Basic ${auth}` } });
    expect(page.status).toBe(200);
    expect(((await page.json()) as Json).ConnectType).toBe('KVMIP');
    expect(machine.consoleViews).toBe(views + 1);

    expect((await api.request('PUT', `/v1/nodes/${uuid}/states/console`, { enabled: false })).status).toBe(202);
    const off = await api.until(uuid, (n) => n.console_enabled === false && n.reservation === null);
    expect(off.driver_internal_info.redfish_console_url).toBeUndefined();
    expect((await api.get(`/v1/nodes/${uuid}/states/console`)).body).toEqual({ console_enabled: false, console_info: null });
  });

  it('fails to start when the BMC’s console is unavailable: last_error, a console history event, console still off', async () => {
    const { uuid, machine } = await redfishNode({ console_interface: 'redfish-graphical' });
    machine.setFaults({ consoleUnavailable: true });
    expect((await api.request('PUT', `/v1/nodes/${uuid}/states/console`, { enabled: true })).status).toBe(202);
    const node = await api.until(uuid, (n) => n.last_error !== null && n.reservation === null);
    expect(node.console_enabled).toBe(false);
    expect(node.last_error).toBe(
      `Error enabling the console on node ${uuid}. Reason: Redfish exception occurred. Error: ` +
        `The BMC of node ${uuid} offers no graphical console (GraphicalConsole is not enabled for KVMIP).`,
    );
    const history = (await new ApiClient(stack.url, '1.78').get(`/v1/nodes/${uuid}/history?detail=true`)).body.history as Json[];
    expect(history.map((h) => [h.event_type, h.severity])).toContainEqual(['console', 'ERROR']);

    // Once the BMC offers it again, the console starts and last_error is cleared.
    machine.clearFaults();
    expect((await api.request('PUT', `/v1/nodes/${uuid}/states/console`, { enabled: true })).status).toBe(202);
    const on = await api.until(uuid, (n) => n.console_enabled === true && n.reservation === null);
    expect(on.last_error).toBeNull();
  });

  it('is refused for redfish’s default no-console and for missing driver_info', async () => {
    const { uuid } = await redfishNode();
    const refused = await api.request('PUT', `/v1/nodes/${uuid}/states/console`, { enabled: true });
    expect([refused.status, faultOf(refused).faultstring]).toEqual([
      400,
      'Driver redfish does not support console (disabled or not implemented).',
    ]);
    const bare = await api.request('POST', '/v1/nodes', { driver: 'redfish', console_interface: 'redfish-graphical' });
    const missing = await api.request('PUT', `/v1/nodes/${bare.body.uuid as string}/states/console`, { enabled: true });
    expect([missing.status, faultOf(missing).faultstring]).toEqual([
      400,
      `Missing the following Redfish properties in node ${bare.body.uuid as string} driver_info: ['redfish_address']`,
    ]);
  });
});

describe('redfish indicators', () => {
  it('lists the system’s, chassis’ and drives’ LEDs, reads and sets them on the BMC', async () => {
    const { uuid, machine } = await redfishNode();
    const list = (await api.get(`/v1/nodes/${uuid}/management/indicators`)).body.indicators as Json[];
    const drives = machine.spec.disks.map((_, i) => [`1:${i}@disk`, 'disk', false, ['blinking', 'off', 'on']]);
    expect(drives.length).toBeGreaterThan(0);
    expect(list.map((i) => [i.name, i.component, i.readonly, i.states])).toEqual([
      [`${machine.uuid}@chassis`, 'chassis', false, ['blinking', 'off', 'on']],
      [`${machine.uuid}@system`, 'system', false, ['blinking', 'off', 'on']],
      ...drives,
    ]);
    const system = `/v1/nodes/${uuid}/management/indicators/${machine.uuid}@system`;
    expect((await api.get(system)).body).toEqual({ state: 'off' });

    expect((await api.request('PUT', system, { state: 'BLINKING' })).status).toBe(204);
    expect(machine.leds.system).toBe('Blinking');
    expect((await api.get(system)).body).toEqual({ state: 'blinking' });
    expect((await api.request('PUT', `/v1/nodes/${uuid}/management/indicators/${machine.uuid}@chassis`, { state: 'on' })).status).toBe(204);
    expect(machine.leds.chassis).toBe('Lit');

    const disk = `/v1/nodes/${uuid}/management/indicators/1:0@disk`;
    expect((await api.get(disk)).body).toEqual({ state: 'off' });
    expect((await api.request('PUT', disk, { state: 'on' })).status).toBe(204);
    expect(machine.leds.drives).toEqual({ 0: 'Lit' });
    expect((await api.get(disk)).body).toEqual({ state: 'on' });
    const missing = await api.get(`/v1/nodes/${uuid}/management/indicators/1:${machine.spec.disks.length}@disk`);
    expect([missing.status, faultOf(missing).faultstring]).toEqual([
      400,
      `Unknown indicator 1:${machine.spec.disks.length} for component disk of node ${uuid}`,
    ]);
    expect((await api.get(`/v1/nodes/${uuid}`)).body.reservation).toBeNull();
  });

  it('refuses an unknown LED or state, and reports the BMC’s failure', async () => {
    const { uuid, machine } = await redfishNode();
    const unknown = await api.get(`/v1/nodes/${uuid}/management/indicators/nope@system`);
    expect([unknown.status, faultOf(unknown).faultstring]).toEqual([400, `Unknown indicator nope for component system of node ${uuid}`]);
    const bad = await api.request('PUT', `/v1/nodes/${uuid}/management/indicators/${machine.uuid}@system`, { state: 'pink' });
    expect([bad.status, faultOf(bad).faultstring]).toEqual([
      400,
      'Invalid indicator state pink specified. Valid states are: off, on, blinking',
    ]);
    expect(machine.leds.system).toBe('Off');

    machine.setFaults({ errorStatus: 500, errorMethods: ['PATCH'] });
    const failed = await api.request('PUT', `/v1/nodes/${uuid}/management/indicators/${machine.uuid}@system`, { state: 'on' });
    expect(failed.status).toBe(500);
    expect(faultOf(failed).faultstring).toMatch(
      new RegExp(
        `^Redfish exception occurred. Error: Redfish set system indicator ${machine.uuid} state on failed for node ${uuid}. Error: `,
      ),
    );
    machine.clearFaults();
  });
});
