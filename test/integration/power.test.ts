/** Power actions and driver validation through the API, the RPC cast/call and the conductor. */
import type { LocalStack } from '../../local/stack';
import { ApiClient, faultOf, startStack } from './helpers/stack';

let stack: LocalStack;
let api: ApiClient;

beforeAll(async () => {
  stack = await startStack();
  api = new ApiClient(stack.url, '1.82');
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

async function waitPower(uuid: string, state: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const states = (await api.get(`/v1/nodes/${uuid}/states`)).body;
    if (states.power_state === state && states.target_power_state === null) return states;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`power state of ${uuid} never became ${state}`);
}

it('powers a node on, reboots it, soft-powers it off, and shows the target while it works', async () => {
  const uuid = (await api.request('POST', '/v1/nodes', { driver: 'fake-hardware' })).body.uuid as string;
  const on = await api.request('PUT', `/v1/nodes/${uuid}/states/power`, { target: 'power on' });
  expect(on.status).toBe(202);
  expect(on.headers.get('location')).toBe(`${stack.url}/v1/nodes/${uuid}/states`);
  await waitPower(uuid, 'power on');
  await api.request('PUT', `/v1/nodes/${uuid}/states/power`, { target: 'rebooting' });
  await waitPower(uuid, 'power on');
  await api.request('PUT', `/v1/nodes/${uuid}/states/power`, { target: 'soft power off', timeout: 30 });
  const off = await waitPower(uuid, 'power off');
  expect(off.last_error).toBeNull();
});

it.each([
  [{ target: 'sleep' }, 400, 'The requested action "sleep" can not be performed on node "%n" while it is in state "None".'],
  [{ target: 'power off', timeout: 0 }, 400, 'timeout has to be positive integer'],
  [{ target: 'power off', timeout: 'x' }, 400, 'Expected an integer for timeout: x'],
  [{}, 400, 'Missing mandatory parameter: target'],
  [{ target: 'power off', when: 'now' }, 400, 'Unexpected arguments: when'],
])('refuses %j with Ironic’s message', async (body, status, message) => {
  const uuid = (await api.request('POST', '/v1/nodes', { driver: 'fake-hardware' })).body.uuid as string;
  const reply = await api.request('PUT', `/v1/nodes/${uuid}/states/power`, body);
  expect(reply.status).toBe(status);
  expect(faultOf(reply).faultstring).toBe(message.replace('%n', uuid));
  expect((await api.get(`/v1/nodes/${uuid}/states`)).body).toMatchObject({ power_state: null, target_power_state: null });
});

it('refuses soft power actions below 1.27 with 406', async () => {
  const uuid = (await api.request('POST', '/v1/nodes', { driver: 'fake-hardware' })).body.uuid as string;
  const reply = await new ApiClient(stack.url, '1.20').request('PUT', `/v1/nodes/${uuid}/states/power`, { target: 'soft power off' });
  expect(reply.status).toBe(406);
});

it('validates every interface of the node’s driver through a synchronous call', async () => {
  const uuid = (await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', bios_interface: 'no-bios' })).body.uuid as string;
  const reply = await api.get(`/v1/nodes/${uuid}/validate`);
  expect(reply.status).toBe(200);
  expect(Object.keys(reply.body)).toEqual([
    'boot',
    'deploy',
    'management',
    'network',
    'power',
    'bios',
    'console',
    'firmware',
    'inspect',
    'raid',
    'rescue',
    'storage',
  ]);
  expect(reply.body.power).toEqual({ result: true });
  expect(reply.body.firmware).toEqual({ result: true });
  expect(reply.body.bios).toEqual({ result: false, reason: 'Driver fake-hardware does not support bios (disabled or not implemented).' });
  expect((await api.get('/v1/nodes/nope/validate')).status).toBe(404);
  const without = (
    await new ApiClient(stack.url, '1.86').request('POST', '/v1/nodes', { driver: 'fake-hardware', firmware_interface: 'no-firmware' })
  ).body.uuid as string;
  expect((await api.get(`/v1/nodes/${without}/validate`)).body.firmware).toEqual({
    result: false,
    reason: 'Driver fake-hardware does not support firmware (disabled or not implemented).',
  });
});
