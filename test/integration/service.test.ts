/**
 * Servicing (API 1.87), hold/unhold (1.85) and the reserved step names on the local stack: the
 * API's checks and Ironic's messages; fake-hardware serviced out-of-band; a manual clean paused by
 * a `hold` step and continued by `unhold`; a redfish node on the fleet serviced in-band through the
 * virtual agent (booted from virtual media, then the instance booted again), and a failing in-band
 * service step ending in `service failed`, from which `abort` returns the node to `active`.
 */
import type { LocalStack } from '../../local/stack';
import { type FleetStack, startFleetStack } from './helpers/fleet';
import { ApiClient, faultOf } from './helpers/stack';

let fleet: FleetStack;
let stack: LocalStack;
let api: ApiClient;
const IMAGE = Buffer.from('a whole-disk image\n'.repeat(200));

beforeAll(async () => {
  fleet = await startFleetStack({
    count: 1,
    prefix: 'svc',
    image: IMAGE,
    settings: { automatedClean: false },
  });
  stack = fleet.stack;
  api = new ApiClient(stack.url, '1.87');
}, 120_000);

afterAll(async () => {
  await fleet?.stop();
});

/** A fake-hardware node taken to `state` (manageable or active) through the API. */
async function fakeNode(state: 'manageable' | 'active'): Promise<string> {
  const created = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware' });
  expect(created.status).toBe(201);
  const uuid = created.body.uuid as string;
  await api.provision(uuid, 'manage');
  await api.settle(uuid, ['manageable'], 30_000);
  if (state === 'manageable') return uuid;
  await api.provision(uuid, 'provide');
  await api.settle(uuid, ['available'], 30_000);
  await api.provision(uuid, 'active');
  expect(await api.settle(uuid, ['active', 'deploy failed'], 30_000)).toMatchObject({ provision_state: 'active' });
  return uuid;
}

async function events(uuid: string, type: string): Promise<string[]> {
  const history = (await api.get(`/v1/nodes/${uuid}/history?detail=true`)).body.history as { event: string; event_type: string }[];
  return history.filter((e) => e.event_type === type).map((e) => e.event);
}

describe('the service verb refuses bad requests as Ironic does', () => {
  let uuid: string;
  beforeAll(async () => {
    uuid = await fakeNode('active');
  }, 60_000);

  const put = (body: Record<string, unknown>, version = '1.87') =>
    api.request('PUT', `/v1/nodes/${uuid}/states/provision`, body, { 'X-OpenStack-Ironic-API-Version': version });

  it('before 1.87 service is not acceptable, nor unhold before 1.85', async () => {
    const steps = [{ interface: 'vendor', step: 'log_passthrough' }];
    expect((await put({ target: 'service', service_steps: steps }, '1.86')).status).toBe(406);
    expect((await put({ target: 'unhold' }, '1.84')).status).toBe(406);
  });

  it('service_steps is required, validated, and only valid with service', async () => {
    const missing = await put({ target: 'service' });
    expect(missing.status).toBe(400);
    expect(faultOf(missing).faultstring).toBe('"service_steps" is required when setting target provision state to service');
    const bad = await put({ target: 'service', service_steps: [{ interface: 'nope', step: 'x' }] });
    expect(bad.status).toBe(400);
    expect(faultOf(bad).faultstring).toMatch(/^Invalid service_steps: 'nope' is not one of /);
    const manageable = await fakeNode('manageable');
    const misplaced = await api.request('PUT', `/v1/nodes/${manageable}/states/provision`, {
      target: 'clean',
      clean_steps: [{ interface: 'power', step: 'power_on' }],
      service_steps: [{ interface: 'power', step: 'x' }],
    });
    expect(misplaced.status).toBe(400);
    expect(faultOf(misplaced).faultstring).toBe('"service_steps" is only valid when setting target provision state to service');
  }, 60_000);

  it('a node not active cannot be serviced, nor unheld outside a hold state', async () => {
    const manageable = await fakeNode('manageable');
    const reply = await api.request('PUT', `/v1/nodes/${manageable}/states/provision`, {
      target: 'service',
      service_steps: [{ interface: 'vendor', step: 'log_passthrough' }],
    });
    expect(reply.status).toBe(400);
    expect(faultOf(reply).faultstring).toBe(
      `The requested action "service" can not be performed on node "${manageable}" while it is in state "manageable".`,
    );
    const unhold = await put({ target: 'unhold' });
    expect(unhold.status).toBe(400);
  }, 60_000);
});

it('services a fake-hardware node out-of-band, with reserved power steps, back to active', async () => {
  const uuid = await fakeNode('active');
  await api.provision(uuid, 'service', {
    service_steps: [
      { interface: 'power', step: 'power_off' },
      { interface: 'vendor', step: 'log_passthrough' },
      { interface: 'power', step: 'power_on' },
    ],
  });
  const node = await api.settle(uuid, ['active', 'service failed'], 30_000);
  expect(node).toMatchObject({ provision_state: 'active', last_error: null, power_state: 'power on' });
  expect(node.service_step ?? {}).toEqual({});
  expect(await events(uuid, 'servicing')).toEqual([
    'Service step power.power_off (priority 0) started',
    'Service step vendor.log_passthrough (priority 0) started',
    'Service step power.power_on (priority 0) started',
  ]);
}, 60_000);

it('a service step the node does not have fails servicing; abort returns the node to active', async () => {
  const uuid = await fakeNode('active');
  await api.provision(uuid, 'service', { service_steps: [{ interface: 'deploy', step: 'no_such_step' }] });
  await api.settle(uuid, ['active', 'service failed'], 30_000);
  const failed = await api.unlocked(uuid);
  expect(failed).toMatchObject({ provision_state: 'service failed', reservation: null });
  expect(failed.last_error).toBe(
    `Cannot service node ${uuid}: node does not support this service step: {'interface': 'deploy', 'step': 'no_such_step'}`,
  );
  await api.provision(uuid, 'abort');
  expect(await api.settle(uuid, ['active'], 30_000)).toMatchObject({ provision_state: 'active' });
}, 60_000);

it('a manual clean holds at a hold step, and unhold continues with the next step', async () => {
  const uuid = await fakeNode('manageable');
  await api.provision(uuid, 'clean', {
    clean_steps: [
      { interface: 'power', step: 'power_on' },
      { interface: 'power', step: 'hold' },
      { interface: 'power', step: 'wait', args: { seconds: 1 } },
      { interface: 'power', step: 'power_off' },
    ],
  });
  const held = await api.settle(uuid, ['clean hold', 'manageable', 'clean failed'], 30_000);
  expect(held).toMatchObject({ provision_state: 'clean hold', reservation: null, power_state: 'power on' });
  expect(held.clean_step).toMatchObject({ interface: 'power', step: 'hold' });
  await api.provision(uuid, 'unhold');
  const done = await api.settle(uuid, ['manageable', 'clean failed'], 30_000);
  expect(done).toMatchObject({ provision_state: 'manageable', last_error: null, power_state: 'power off', reservation: null });
  expect(await events(uuid, 'cleaning')).toEqual([
    'Clean step power.power_on (priority 0) started',
    'Clean step power.hold (priority 0) started',
    'Clean step power.wait (priority 0) started',
    'Clean step power.power_off (priority 0) started',
  ]);
}, 60_000);

describe('a redfish node with the virtual agent', () => {
  let uuid: string;
  beforeAll(async () => {
    uuid = (await api.get('/v1/nodes/svc-0')).body.uuid as string;
    await api.provision(uuid, 'manage');
    await api.settle(uuid, ['manageable'], 60_000);
    await api.provision(uuid, 'provide');
    await api.settle(uuid, ['available'], 60_000);
    const patched = await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/instance_info', value: fleet.image }]);
    expect(patched.status).toBe(200);
    await api.provision(uuid, 'active');
    expect(await api.settle(uuid, ['active', 'deploy failed'], 180_000)).toMatchObject({ provision_state: 'active' });
  }, 240_000);

  it('is serviced with an in-band step through the agent and boots its instance again', async () => {
    await api.provision(uuid, 'service', { service_steps: [{ interface: 'deploy', step: 'burnin_cpu', args: {} }] });
    const node = await api.settle(uuid, ['active', 'service failed'], 180_000);
    expect(node).toMatchObject({ provision_state: 'active', last_error: null, power_state: 'power on', reservation: null });
    expect(await events(uuid, 'servicing')).toEqual(['Service step deploy.burnin_cpu (priority 0) started']);
    // The instance is still on the disk and boots from it.
    expect(stack.fleet?.machine('svc-0').disk).toMatchObject({ imageId: 'disk.img', size: IMAGE.length });
  }, 240_000);

  it('a failing in-band service step fails servicing; abort returns it to active', async () => {
    stack.fleet?.setAgentFaults('svc-0', { failStep: 'burnin_memory' });
    await api.provision(uuid, 'service', { service_steps: [{ interface: 'deploy', step: 'burnin_memory' }] });
    const failed = await api.settle(uuid, ['active', 'service failed'], 180_000);
    expect(failed).toMatchObject({ provision_state: 'service failed', reservation: null });
    expect(failed.service_step ?? {}).toEqual({});
    expect(String(failed.last_error)).toContain('deploy.burnin_memory');
    expect(String(failed.last_error)).toContain(`Injected failure of step burnin_memory on svc-0`);
    stack.fleet?.setAgentFaults('svc-0', {});
    // A failed service step puts the node in maintenance, and abort waits for an operator to clear it.
    expect(failed).toMatchObject({ maintenance: true, fault: 'service failure' });
    const refused = await api.request('PUT', `/v1/nodes/${uuid}/states/provision`, { target: 'abort' });
    expect(refused.status).toBe(409);
    expect(faultOf(refused).faultstring).toContain('Please remove the node from maintenance prior to issuing the request to abort');
    expect((await api.request('DELETE', `/v1/nodes/${uuid}/maintenance`)).status).toBe(202);
    await api.provision(uuid, 'abort');
    expect(await api.settle(uuid, ['active'], 30_000)).toMatchObject({ provision_state: 'active', maintenance: false, fault: null });
  }, 240_000);

  it('abort while servicing waits for the agent returns the node to active, the ramdisk off and the instance booted', async () => {
    const machine = stack.fleet!.machine('svc-0');
    // The abort that ended the test before shows the node active at once; its conductor lets go later.
    for (let i = 0; i < 200 && (await api.get(`/v1/nodes/${uuid}`)).body.reservation !== null; i++)
      await new Promise((r) => setTimeout(r, 50));
    stack.fleet?.setAgentFaults('svc-0', { hang: true });
    await api.provision(uuid, 'service', { service_steps: [{ interface: 'deploy', step: 'burnin_cpu', args: {} }] });
    await api.settle(uuid, ['service wait'], 60_000);
    // Wait for the ramdisk to be up (booted from the virtual CD), never heartbeating.
    for (let i = 0; i < 200 && machine.boots.at(-1)?.device !== 'Cd'; i++) await new Promise((r) => setTimeout(r, 50));
    expect(machine.boots.at(-1)?.device).toBe('Cd');
    await api.provision(uuid, 'abort');
    const node = await api.settle(uuid, ['active'], 30_000);
    expect(node).toMatchObject({
      provision_state: 'active',
      last_error: 'By request, the service operation was aborted',
      service_step: {},
    });
    for (let i = 0; i < 200 && (await api.get(`/v1/nodes/${uuid}`)).body.reservation !== null; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect((await api.get(`/v1/nodes/${uuid}`)).body).toMatchObject({ reservation: null, power_state: 'power on' });
    expect(machine.boots.at(-1)?.device).toBe('Hdd');
    expect(stack.sfn.running()).toEqual([]);
    stack.fleet?.setAgentFaults('svc-0', {});
  }, 240_000);
});
