/**
 * The node console, indicators, external events and vendor passthru on the local stack with
 * fake-hardware: the console through the `set_console_mode` cast (console_enabled, last_error,
 * the lock waited for), indicators and passthru methods through conductor calls (an async method
 * then runs after the answer, through a cast, the node locked until it is done), events through
 * the API alone, each with Ironic's refusals.
 */
import { jest } from '@jest/globals';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { selectRelease } from '../../functions/common/releases';
import { createDocumentClient } from '../../functions/db/client';
import { type Stores, createStores } from '../../functions/db/stores';
import type { LocalStack } from '../../local/stack';
import { ApiClient, type Json, faultOf, startStack } from './helpers/stack';

// Real services on a loaded machine: jest's project-level testTimeout is not applied (see jest.config.js).
jest.setTimeout(30_000);

let stack: LocalStack;
let api: ApiClient;
let raw: DynamoDBClient;
let stores: Stores;

beforeAll(async () => {
  stack = await startStack();
  api = new ApiClient(stack.url, '1.82');
  raw = new DynamoDBClient({
    endpoint: stack.endpoints.dynamodb,
    region: 'us-east-1',
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  });
  stores = createStores({ client: createDocumentClient(raw), tables: stack.tables, release: selectRelease('') });
}, 60_000);

afterAll(async () => {
  raw?.destroy();
  await stack?.stop();
});

async function create(body: Record<string, unknown> = {}): Promise<string> {
  const reply = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', ...body });
  if (reply.status !== 201) throw new Error(reply.text);
  return reply.body.uuid as string;
}

async function until(uuid: string, done: (node: Json) => boolean): Promise<Json> {
  for (let i = 0; i < 300; i++) {
    const node = (await api.get(`/v1/nodes/${uuid}`)).body;
    if (done(node)) return node;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`node ${uuid} never got there`);
}

describe('the console', () => {
  it('is enabled and disabled through the conductor; GET shows it with fake-hardware’s empty info', async () => {
    const uuid = await create({ name: 'console-1' });
    expect((await api.get('/v1/nodes/console-1/states/console')).body).toEqual({ console_enabled: false, console_info: null });

    const on = await api.request('PUT', '/v1/nodes/console-1/states/console', { enabled: 'yes' });
    expect(on.status).toBe(202);
    expect(on.headers.get('location')).toBe(`${stack.url}/v1/nodes/console-1/states/console`);
    await until(uuid, (n) => n.console_enabled === true && n.reservation === null);
    expect((await api.get(`/v1/nodes/${uuid}/states/console`)).body).toEqual({ console_enabled: true, console_info: {} });
    expect((await api.get(`/v1/nodes/${uuid}/states`)).body.console_enabled).toBe(true);

    // Asking again for what is already so changes nothing and locks nothing.
    expect((await api.request('PUT', `/v1/nodes/${uuid}/states/console`, { enabled: true })).status).toBe(202);
    expect((await api.get(`/v1/nodes/${uuid}`)).body.reservation).toBeNull();

    expect((await api.request('PUT', `/v1/nodes/${uuid}/states/console`, { enabled: false })).status).toBe(202);
    await until(uuid, (n) => n.console_enabled === false && n.reservation === null);
    expect((await api.get(`/v1/nodes/${uuid}/states/console`)).body).toEqual({ console_enabled: false, console_info: null });
  });

  it.each([
    [{}, 'Missing mandatory parameter: enabled'],
    [{ enabled: 'maybe' }, /^Invalid enabled: Unrecognized value 'maybe'/],
    [{ enabled: true, x: 1 }, 'Unexpected arguments: x'],
  ])('refuses %j with Ironic’s message', async (body, message) => {
    const uuid = await create();
    const reply = await api.request('PUT', `/v1/nodes/${uuid}/states/console`, body);
    expect(reply.status).toBe(400);
    expect(faultOf(reply).faultstring).toMatch(message);
  });

  it('is refused for no-console (400), an unknown node (404), and a node locked by another (409)', async () => {
    const none = await create({ console_interface: 'no-console' });
    const refused = await api.request('PUT', `/v1/nodes/${none}/states/console`, { enabled: true });
    expect([refused.status, faultOf(refused).faultstring]).toEqual([
      400,
      'Driver fake-hardware does not support console (disabled or not implemented).',
    ]);
    // A console that is off is shown as off whatever the interface (Ironic checks console_enabled first).
    expect((await api.get(`/v1/nodes/${none}/states/console`)).body).toEqual({ console_enabled: false, console_info: null });
    expect((await api.get('/v1/nodes/no-such-node/states/console')).status).toBe(404);

    const locked = await create();
    await stores.nodes.reserve(locked, { host: 'other-conductor', token: 'test', ttlSeconds: 600 });
    const busy = await api.request('PUT', `/v1/nodes/${locked}/states/console`, { enabled: true });
    expect([busy.status, faultOf(busy).faultstring]).toEqual([
      409,
      `Node ${locked} is locked by host other-conductor, please retry after the current operation is completed.`,
    ]);
    expect((await api.get(`/v1/nodes/${locked}`)).body.console_enabled).toBe(false);
  });

  it('and the other states are served node-last too, as Ironic’s pecan routes /v1/nodes/states/…/{node}', async () => {
    const uuid = await create({ name: 'console-alias' });
    expect((await api.get(`/v1/nodes/states/console/${uuid}`)).body).toEqual({ console_enabled: false, console_info: null });
    expect((await api.request('PUT', '/v1/nodes/states/console/console-alias', { enabled: true })).status).toBe(202);
    await until(uuid, (n) => n.console_enabled === true && n.reservation === null);
    const states = await api.get('/v1/nodes/states/console-alias');
    expect([states.status, states.body.console_enabled]).toEqual([200, true]);
    expect((await api.request('PUT', `/v1/nodes/states/power/${uuid}`, { target: 'power on' })).status).toBe(202);
    await until(uuid, (n) => n.power_state === 'power on' && n.reservation === null);
    expect((await api.get('/v1/nodes/states/console/no-such-node')).status).toBe(404);
  });
});

describe('indicators', () => {
  it('lists fake-hardware’s LEDs with links by the node’s name, reads them, and refuses to set them as Ironic’s fake does', async () => {
    await create({ name: 'leds-1' });
    const list = await api.get('/v1/nodes/leds-1/management/indicators');
    expect(list.status).toBe(200);
    expect(list.body.indicators.map((i: Json) => [i.name, i.component, i.readonly, i.states])).toEqual([
      ['led-0@chassis', 'chassis', true, ['off', 'on']],
      ['led@system', 'system', false, ['blinking', 'off', 'on']],
    ]);
    expect(list.body.indicators[1].links[0]).toEqual({
      href: `${stack.url}/v1/nodes/leds-1/management/indicators/led@system`,
      rel: 'self',
    });
    expect((await api.get('/v1/nodes/leds-1/management/indicators/led@system')).body).toEqual({ state: 'on' });
    const set = await api.request('PUT', '/v1/nodes/leds-1/management/indicators/led@system', { state: 'BLINKING' });
    expect([set.status, faultOf(set).faultstring]).toEqual([
      400,
      'Driver fake-hardware does not support set_indicator_state (disabled or not implemented).',
    ]);
  });

  it.each([
    ['GET', 'led@chassis', undefined, 'Invalid indicator led specified.'],
    ['GET', 'led@disk', undefined, 'Invalid component disk specified.'],
    ['GET', 'led', undefined, 'Malformed indicator name "led"'],
    ['PUT', 'led@system', {}, 'Missing mandatory parameter: state'],
    ['PUT', 'led@system', { state: 'on', x: 1 }, 'Unexpected arguments: x'],
  ])('%s %s %j: 400 %s', async (method, indicator, body, message) => {
    const uuid = await create();
    const reply = await api.request(method, `/v1/nodes/${uuid}/management/indicators/${indicator}`, body);
    expect([reply.status, faultOf(reply).faultstring]).toEqual([400, message]);
  });
});

describe('external events', () => {
  const event = {
    event: 'network.bind_port',
    port_id: '11111111-2222-3333-4444-555555555555',
    mac_address: '52:54:00:12:34:56',
    status: 'ACTIVE',
  };

  it('are accepted from 1.54 (204) and unknown before', async () => {
    expect((await api.request('POST', '/v1/events', { events: [event] })).status).toBe(204);
    const old = await new ApiClient(stack.url, '1.53').request('POST', '/v1/events', { events: [event] });
    expect([old.status, faultOf(old).faultstring]).toEqual([404, 'Resource could not be found.']);
    expect((await api.get('/v1/events')).status).toBe(405);
  });

  it.each([
    [{ events: [] }, 'Schema error for evts: [] is too short'],
    [{}, "Schema error for evts: 'events' is a required property"],
    [
      { events: [{ event: 'compute.x' }] },
      "Schema error for evts: 'compute.x' is not one of ['network.bind_port', 'network.unbind_port', 'network.delete_port']",
    ],
    [{ events: [{ event: 'network.bind_port' }] }, "Schema error for evts: 'port_id' is a required property"],
    [{ events: [{ ...event, port_id: 'x' }] }, 'Expected UUID for port_id: x'],
    [{ events: [{ ...event, mac_address: 'zz' }] }, 'Expected valid MAC address for mac_address: zz'],
    [{ events: [{ ...event, extra: 1 }] }, "Schema error for evts: Additional properties are not allowed ('extra' was unexpected)"],
  ])('refuses %j with Ironic’s message', async (body, message) => {
    const reply = await api.request('POST', '/v1/events', body);
    expect([reply.status, faultOf(reply).faultstring]).toEqual([400, message]);
  });
});

describe('vendor passthru', () => {
  it('lists the fake vendor’s methods and runs them: sync answers 200 with the result, async 202', async () => {
    const uuid = await create({ name: 'vendor-1' });
    const methods = (await api.get('/v1/nodes/vendor-1/vendor_passthru/methods')).body;
    expect(Object.keys(methods).sort()).toEqual(['fourth_method_shared_lock', 'log_passthrough', 'second_method', 'third_method_sync']);
    expect(methods.third_method_sync).toEqual({
      http_methods: ['POST'],
      async: false,
      description: 'Test if the value of bar is meow',
      attach: false,
      require_exclusive_lock: true,
    });
    const sync = await api.request('POST', `/v1/nodes/${uuid}/vendor_passthru?method=third_method_sync`, { bar: 'meow' });
    expect([sync.status, sync.body]).toEqual([200, true]);
    const byPath = await api.request('POST', `/v1/nodes/${uuid}/vendor_passthru/third_method_sync`, { bar: 'x' });
    expect([byPath.status, byPath.body]).toEqual([200, false]);
    // An async method runs after the 202, as in Ironic's worker: with the conductor's queue held,
    // the node stays locked for it (a sync method then finds it locked), and is let go once it ran.
    stack.setEventSourcesEnabled(false);
    try {
      const async = await api.request('POST', `/v1/nodes/${uuid}/vendor_passthru?method=second_method`, { bar: 'kazoo' });
      expect([async.status, async.text]).toEqual([202, '']);
      const holder = (await api.get(`/v1/nodes/${uuid}`)).body.reservation;
      expect(typeof holder).toBe('string');
      const busy = await api.request('POST', `/v1/nodes/${uuid}/vendor_passthru?method=third_method_sync`, { bar: 'meow' });
      expect([busy.status, faultOf(busy).faultstring]).toEqual([
        409,
        `Node ${uuid} is locked by host ${String(holder)}, please retry after the current operation is completed.`,
      ]);
    } finally {
      stack.setEventSourcesEnabled(true);
    }
    expect((await until(uuid, (n) => n.reservation === null)).last_error).toBeNull();
    // A method that needs no exclusive lock takes none, before or after the answer.
    expect((await api.request('POST', `/v1/nodes/${uuid}/vendor_passthru?method=fourth_method_shared_lock`, { bar: 'woof' })).status).toBe(
      202,
    );
    expect((await api.get(`/v1/nodes/${uuid}`)).body.reservation).toBeNull();
  });

  it.each([
    ['POST', '?method=third_method_sync', {}, "Parameter 'bar' not passed to method 'third_method_sync'."],
    ['GET', '?method=third_method_sync', undefined, 'The method third_method_sync does not support HTTP GET'],
    ['POST', '?method=nope', {}, 'No handler for method nope'],
    ['POST', '', {}, 'Missing mandatory parameter: method'],
    ['POST', '?method=third_method_sync&x=1', { bar: 'meow' }, 'Unexpected arguments: x'],
  ])('%s %s %j: 400 %s', async (method, query, body, message) => {
    const uuid = await create();
    const reply = await api.request(method, `/v1/nodes/${uuid}/vendor_passthru${query}`, body);
    expect([reply.status, faultOf(reply).faultstring]).toEqual([400, message]);
  });

  it('has no methods on no-vendor nodes and none at the fake-hardware driver level; unknown drivers are 404', async () => {
    const uuid = await create({ vendor_interface: 'no-vendor' });
    expect((await api.get(`/v1/nodes/${uuid}/vendor_passthru/methods`)).body).toEqual({});
    const none = await api.request('POST', `/v1/nodes/${uuid}/vendor_passthru?method=second_method`, { bar: 'kazoo' });
    expect([none.status, faultOf(none).faultstring]).toEqual([400, 'No handler for method second_method']);
    expect((await api.get('/v1/drivers/fake-hardware/vendor_passthru/methods')).body).toEqual({});
    const driver = await api.request('POST', '/v1/drivers/fake-hardware/vendor_passthru?method=x', {});
    expect([driver.status, faultOf(driver).faultstring]).toEqual([400, 'No handler for method x']);
    const unknown = await api.get('/v1/drivers/nope/vendor_passthru/methods');
    expect([unknown.status, faultOf(unknown).faultstring]).toEqual([404, "The driver 'nope' is unknown."]);
  });
});
