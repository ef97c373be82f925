/**
 * The node parts of API 1.95–1.110 on a local stack, each at its version and just below it:
 * disable_power_off (1.95) with its conductor semantics (power off refused, a deploy that locks the
 * agent down and reboots instead of powering off), instance_name (1.104) kept in step with
 * instance_info's display_name and filterable, disable_ramdisk for servicing (1.108), health
 * (1.109) read from the virtual BMCs by the power sync, and abort from `wait call-back` (1.110).
 */
import { jest } from '@jest/globals';
import type { LocalStack } from '../../local/stack';
import { type FleetStack, startFleetStack } from './helpers/fleet';
import { ApiClient, type Json, faultOf, startStack } from './helpers/stack';
import { TestAgent } from './helpers/test-agent';

// Real services on a loaded machine: jest's project-level testTimeout is not applied (see jest.config.js).
jest.setTimeout(60_000);

let stack: LocalStack;
const agents: TestAgent[] = [];
const at = (minor: number) => new ApiClient(stack.url, `1.${minor}`);

beforeAll(async () => {
  stack = await startStack({
    fleet: { count: 1, prefix: 'nf' },
    settings: { heartbeatTimeoutSeconds: 5, callbackTimeoutSeconds: 60, postDeployPowerStateRetryIntervalSeconds: 1 },
  });
}, 60_000);

afterAll(async () => {
  await Promise.all(agents.map((a) => a.stop()));
  await stack?.stop();
});

const IMAGE = { image_source: 'http://images.example/disk.raw', image_checksum: 'f00d' };

async function create(minor: number, body: Record<string, unknown>): Promise<string> {
  const reply = await at(minor).request('POST', '/v1/nodes', { driver: 'fake-hardware', ...body });
  if (reply.status !== 201) throw new Error(`create: ${reply.status} ${reply.text}`);
  return reply.body.uuid as string;
}

async function settled(uuid: string, done: (node: Json) => boolean, timeoutMs = 30_000): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  let node: Json;
  while (Date.now() < deadline) {
    node = (await at(115).get(`/v1/nodes/${uuid}`)).body;
    if (node.reservation === null && done(node)) return node;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`node ${uuid} never got there: ${JSON.stringify(node)}`);
}

/** A fake-hardware node taken through manage and provide (no cleaning) to `available`. */
async function available(uuid: string): Promise<void> {
  const api = at(115);
  await api.provision(uuid, 'manage');
  await api.waitFor(uuid, 'manageable', 30_000);
  await api.provision(uuid, 'provide');
  await api.waitFor(uuid, 'available', 30_000);
}

/** A node with the `direct` deploy interface and a test agent that boots when the node reboots. */
async function agentNode(name: string, extra: Record<string, unknown> = {}): Promise<{ uuid: string; agent: TestAgent }> {
  const uuid = await create(115, { name, deploy_interface: 'direct', automated_clean: false, ...extra });
  const agent = await new TestAgent({ api: stack.url, node: uuid }).run();
  agent.deploySteps = [{ interface: 'deploy', step: 'write_image', priority: 0 }];
  agents.push(agent);
  return { uuid, agent };
}

describe('disable_power_off (1.95)', () => {
  it('is refused below 1.95 and hidden there; from 1.95 it is set at create and by PATCH', async () => {
    const refused = await at(94).request('POST', '/v1/nodes', { driver: 'fake-hardware', disable_power_off: true });
    expect(refused.status).toBe(406);
    const uuid = await create(95, { disable_power_off: true });
    expect((await at(95).get(`/v1/nodes/${uuid}`)).body.disable_power_off).toBe(true);
    expect((await at(94).get(`/v1/nodes/${uuid}`)).body).not.toHaveProperty('disable_power_off');
    expect((await at(94).get(`/v1/nodes/${uuid}?fields=disable_power_off`)).status).toBe(406);
    const patch = [{ op: 'replace', path: '/disable_power_off', value: 'false' }];
    expect((await at(94).request('PATCH', `/v1/nodes/${uuid}`, patch)).status).toBe(406);
    const patched = await at(95).request('PATCH', `/v1/nodes/${uuid}`, patch);
    expect([patched.status, patched.body.disable_power_off]).toEqual([200, false]);
  });

  it('refuses power off and soft power off with 409 PowerStateFailure; reboot and power on still work', async () => {
    const uuid = await create(95, { disable_power_off: true });
    const api = at(95);
    expect((await api.request('PUT', `/v1/nodes/${uuid}/states/power`, { target: 'power on' })).status).toBe(202);
    await settled(uuid, (n) => n.power_state === 'power on');
    for (const target of ['power off', 'soft power off']) {
      const reply = await api.request('PUT', `/v1/nodes/${uuid}/states/power`, { target });
      expect({ status: reply.status, message: faultOf(reply).faultstring }).toEqual({
        status: 409,
        message: `Failed to set node power state to ${target}.`,
      });
    }
    expect((await api.request('PUT', `/v1/nodes/${uuid}/states/power`, { target: 'rebooting' })).status).toBe(202);
    expect(await settled(uuid, (n) => n.target_power_state === null)).toMatchObject({ power_state: 'power on', last_error: null });
    // A service step that powers off is refused by the conductor as well: servicing fails.
    await available(uuid);
    await api.provision(uuid, 'active');
    await api.waitFor(uuid, 'active', 30_000);
    await api.provision(uuid, 'service', { service_steps: [{ interface: 'power', step: 'power_off' }] });
    const failed = await settled(uuid, (n) => n.provision_state === 'service failed');
    expect(failed.last_error).toContain('Failed to set node power state to power off.');
    expect(failed.power_state).toBe('power on');
  });

  it('deploys with the agent locked down instead of powered off, reboots into the instance, and undeploys by rebooting', async () => {
    const { uuid, agent } = await agentNode('nf-dpo', { disable_power_off: true });
    await available(uuid);
    const api = at(115);
    await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/instance_info', value: IMAGE }]);
    await api.provision(uuid, 'active');
    const active = await api.settle(uuid, ['active', 'deploy failed'], 45_000);
    expect(active).toMatchObject({ provision_state: 'active', power_state: 'power on', last_error: null });
    const commands = agent.requests.filter((r) => r.method === 'POST').map((r) => r.name);
    expect(commands).toEqual(expect.arrayContaining(['standby.sync', 'system.lockdown']));
    expect(commands).not.toContain('standby.power_off');
    expect(agent.lockedDown).toBe(true);
    await api.provision(uuid, 'deleted');
    expect(await api.settle(uuid, ['available', 'error'], 30_000)).toMatchObject({ provision_state: 'available', power_state: 'power on' });
  });
});

describe('disable_power_off on a redfish node of the fleet', () => {
  const disk = Buffer.from('a whole-disk image\n'.repeat(200));
  let fleetStack: FleetStack;
  beforeAll(async () => {
    // Its own stack: the virtual agent needs the fleet's agent timings to boot from virtual media.
    fleetStack = await startFleetStack({ count: 1, prefix: 'nfr', image: disk });
  }, 60_000);
  afterAll(async () => {
    await fleetStack?.stop();
  });

  it('deploys through the virtual agent, which locks itself down, and never switches the machine off', async () => {
    const api = new ApiClient(fleetStack.stack.url, '1.115');
    const machine = fleetStack.stack.fleet!.machine('nfr-0');
    const uuid = (await api.get('/v1/nodes/nfr-0')).body.uuid as string;
    expect(
      (
        await api.request('PATCH', `/v1/nodes/${uuid}`, [
          { op: 'add', path: '/disable_power_off', value: true },
          { op: 'add', path: '/automated_clean', value: false },
        ])
      ).status,
    ).toBe(200);
    await api.provision(uuid, 'manage');
    await api.settle(uuid, ['manageable'], 60_000);
    await api.provision(uuid, 'provide');
    await api.settle(uuid, ['available'], 60_000);
    await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/instance_info', value: fleetStack.image }]);
    await api.provision(uuid, 'active');
    const active = await api.settle(uuid, ['active', 'deploy failed'], 150_000);
    expect(active).toMatchObject({ provision_state: 'active', last_error: null, power_state: 'power on' });
    // The machine was off when the deploy began; from then on it was only switched on and restarted.
    expect(machine.resets).not.toContain('ForceOff');
    expect(machine.resets).not.toContain('GracefulShutdown');
    expect(machine.resets).toContain('ForceRestart');
    expect(machine.powerState).toBe('On');
    expect(machine.disk).toMatchObject({ imageId: 'disk.img', size: disk.length });
  }, 240_000);
});

describe('instance_name (1.104)', () => {
  it('follows instance_info display_name, is set by PATCH, filters the list; all refused below 1.104', async () => {
    const uuid = await create(115, {});
    const info = [{ op: 'add', path: '/instance_info', value: { display_name: 'vm-from-nova' } }];
    expect((await at(103).request('PATCH', `/v1/nodes/${uuid}`, info)).body).not.toHaveProperty('instance_name');
    expect((await at(104).get(`/v1/nodes/${uuid}`)).body.instance_name).toBe('vm-from-nova');

    const rename = [{ op: 'replace', path: '/instance_name', value: 'chosen' }];
    expect((await at(103).request('PATCH', `/v1/nodes/${uuid}`, rename)).status).toBe(406);
    expect((await at(104).request('PATCH', `/v1/nodes/${uuid}`, rename)).body.instance_name).toBe('chosen');
    // A name set is kept when display_name changes later.
    const renamedInfo = [{ op: 'replace', path: '/instance_info', value: { display_name: 'other' } }];
    expect((await at(104).request('PATCH', `/v1/nodes/${uuid}`, renamedInfo)).body.instance_name).toBe('chosen');
    const empty = await at(104).request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'replace', path: '/instance_name', value: '' }]);
    expect([empty.status, faultOf(empty).faultstring]).toEqual([400, "Schema error for patch: '' is too short"]);

    const listed = await at(104).get('/v1/nodes?instance_name=chosen&fields=uuid,instance_name');
    expect(listed.body.nodes).toEqual([{ uuid, instance_name: 'chosen', links: expect.any(Array) }]);
    const old = await at(103).get('/v1/nodes?instance_name=chosen');
    expect([old.status, faultOf(old).faultstring]).toEqual([406, 'instance_name is not acceptable in this API version']);
  });
});

describe('health (1.109)', () => {
  async function syncPowerStates(): Promise<void> {
    await stack.lambda.invoke('conductor:live', { entry: 'periodic', task: 'sync_power_states' });
  }

  it('is null for fake-hardware, hidden below 1.109', async () => {
    const uuid = await create(115, {});
    await syncPowerStates();
    expect((await at(109).get(`/v1/nodes/${uuid}`)).body.health).toBeNull();
    expect((await at(108).get(`/v1/nodes/${uuid}`)).body).not.toHaveProperty('health');
    expect((await at(108).get(`/v1/nodes/${uuid}?fields=health`)).status).toBe(406);
  });

  it("is the redfish BMC's Status.Health, cached by the power sync with a monitoring event in the node's history", async () => {
    const fleet = stack.fleet!;
    const machine = fleet.add();
    const api = at(115);
    const uuid = (await api.request('POST', '/v1/nodes', { driver: 'redfish', driver_info: fleet.driverInfo(machine) })).body
      .uuid as string;
    await api.provision(uuid, 'manage');
    await api.waitFor(uuid, 'manageable', 30_000);
    await syncPowerStates();
    expect((await api.get(`/v1/nodes/${uuid}`)).body.health).toBe('OK');
    machine.setFaults({ health: 'Critical' });
    await syncPowerStates();
    expect((await api.get(`/v1/nodes/${uuid}`)).body.health).toBe('Critical');
    const events = (await api.get(`/v1/nodes/${uuid}/history?detail=true`)).body.history as Json[];
    expect(events.filter((e) => e.event_type === 'monitoring').map((e) => [e.event, e.severity])).toEqual([
      ["Node health status changed: health='OK' (previously 'None')", 'INFO'],
      ["Node health status changed: health='Critical' (previously 'OK')", 'INFO'],
    ]);
    machine.clearFaults();
    await syncPowerStates();
    expect((await api.get(`/v1/nodes/${uuid}`)).body.health).toBe('OK');
  });
});

describe('service with disable_ramdisk (1.108)', () => {
  it('runs out-of-band steps without the ramdisk and refuses in-band ones; refused below 1.108', async () => {
    const { uuid, agent } = await agentNode('nf-svc');
    await available(uuid);
    const api = at(115);
    await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/instance_info', value: IMAGE }]);
    await api.provision(uuid, 'active');
    expect(await api.settle(uuid, ['active', 'deploy failed'], 45_000)).toMatchObject({ provision_state: 'active' });
    const reboot = { service_steps: [{ interface: 'power', step: 'reboot' }], disable_ramdisk: true };
    const old = await at(107).request('PUT', `/v1/nodes/${uuid}/states/provision`, { target: 'service', ...reboot });
    expect([old.status, faultOf(old).faultstring]).toEqual([406, 'disable_ramdisk is not acceptable in this API version']);
    await at(108).provision(uuid, 'service', reboot);
    expect(await settled(uuid, (n) => n.provision_state === 'active')).toMatchObject({ last_error: null });
    // An in-band step needs the ramdisk the request ruled out: servicing fails without booting it.
    const found = () => agent.lookups.filter((l) => l.status === 200).length;
    const lookups = found();
    const inband = { service_steps: [{ interface: 'deploy', step: 'burnin_cpu' }], disable_ramdisk: true };
    await at(108).provision(uuid, 'service', inband);
    const failed = await settled(uuid, (n) => n.provision_state === 'service failed');
    expect(failed.last_error).toBe(
      `Cannot service node ${uuid}: node does not support this service step: {'interface': 'deploy', 'step': 'burnin_cpu'}`,
    );
    expect(found()).toBe(lookups);
  });
});

describe('abort in wait call-back (1.110)', () => {
  it('is refused below 1.110; from 1.110 the deploy fails and no cleaning follows', async () => {
    const { uuid, agent } = await agentNode('nf-abort');
    await available(uuid);
    agent.hangAtStep = 'write_image';
    const api = at(115);
    await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/instance_info', value: IMAGE }]);
    await api.provision(uuid, 'active');
    await settled(uuid, (n) => n.provision_state === 'wait call-back' && n.deploy_step?.step === 'write_image');
    const old = await at(109).request('PUT', `/v1/nodes/${uuid}/states/provision`, { target: 'abort' });
    expect(old.status).toBe(406);
    expect((await api.get(`/v1/nodes/${uuid}`)).body.provision_state).toBe('wait call-back');
    await at(110).provision(uuid, 'abort');
    const aborted = await settled(uuid, (n) => n.provision_state === 'deploy failed');
    expect(aborted.last_error).toContain('By request, the deploy operation was aborted');
    await new Promise((r) => setTimeout(r, 2000));
    expect((await api.get(`/v1/nodes/${uuid}`)).body.provision_state).toBe('deploy failed');
  });
});
