/**
 * The virtual agent on a fleet: booted from the agent ISO by the guest factory, stopped on power off,
 * and every injected fault (crash, hang, failing step, bad checksum, version change after reboot),
 * through the fleet's method and its control API.
 */
import { createHash } from 'node:crypto';
import { agentGuestFactory, type AgentGuestFactory } from '../../../local/fleet/agent/factory';
import { AGENT_ISO_PATH, Fleet } from '../../../local/fleet/fleet';
import type { VirtualMachine } from '../../../local/fleet/machine';
import { AgentCommandClient, FakeIronic, ImageServer, TOKEN, waitFor } from './helpers/fake-ironic';

const NODE = { uuid: '0d7b0e43-8d0f-4f66-b1a4-9c3a6c0de2a7', driver_internal_info: {} };
const IMAGE = Buffer.from('instance image bytes');
const MD5 = createHash('md5').update(IMAGE).digest('hex');

let ironic: FakeIronic;
let images: ImageServer;
let fleet: Fleet;
let factory: AgentGuestFactory;
let machine: VirtualMachine;

beforeEach(async () => {
  ironic = await new FakeIronic(NODE.uuid).start();
  images = await new ImageServer().start();
  images.images.set('/disk.img', IMAGE);
  factory = agentGuestFactory({
    apiUrl: ironic.url,
    heartbeatIntervalMs: 20,
    forcedHeartbeatGapMs: 0,
    lookupIntervalMs: 5,
    lookupMaxIntervalMs: 20,
    shutdownDelayMs: 1,
    hardware: { stepDurationMs: 1 },
  });
  fleet = await new Fleet({ count: 1, prefix: 'fault', guestFactory: factory }).start();
  machine = fleet.machine('fault-0');
  machine.setBoot({ target: 'Cd', enabled: 'Continuous' });
  machine.insertMedia('Cd', `${fleet.url}${AGENT_ISO_PATH}`);
});

afterEach(async () => {
  await fleet.stop();
  await Promise.all([ironic.stop(), images.stop()]);
});

async function bootAgent() {
  const before = factory.agent(machine.id);
  machine.reset(machine.powerState === 'Off' ? 'On' : 'ForceRestart');
  await waitFor(() => factory.agent(machine.id) !== before && factory.agent(machine.id)?.state === 'running', 'the agent to run');
  const agent = factory.agent(machine.id);
  if (!agent) throw new Error('no agent');
  return { agent, client: new AgentCommandClient(agent.callbackUrl) };
}

const reachable = (url: string) =>
  fetch(`${url}/v1/status`).then(
    () => true,
    () => false,
  );

function writeImage(client: AgentCommandClient, checksum = MD5) {
  const step = {
    interface: 'deploy',
    step: 'write_image',
    args: { image_info: { id: 'disk.img', urls: [`${images.url}/disk.img`], checksum } },
  };
  return client.command('deploy.execute_deploy_step', { step, node: NODE, ports: [] });
}

describe('the agent on a fleet machine', () => {
  it('boots on the agent ISO only, keeps its port across reboots, and stops when the machine powers off', async () => {
    machine.setBoot({ target: 'Hdd', enabled: 'Once' });
    machine.reset('On');
    await new Promise((resolve) => setImmediate(resolve));
    expect(factory.agent(machine.id)).toBeUndefined();
    machine.reset('ForceOff');
    machine.setBoot({ target: 'Cd', enabled: 'Continuous' });
    machine.insertMedia('Cd', 'http://elsewhere/other.iso');
    machine.reset('On');
    await new Promise((resolve) => setImmediate(resolve));
    expect(factory.agent(machine.id)).toBeUndefined();
    machine.reset('ForceOff');
    machine.insertMedia('Cd', `${fleet.url}${AGENT_ISO_PATH}`);

    const first = await bootAgent();
    expect(ironic.lookups[0]?.query.get('addresses')).toBe(machine.spec.nics.map((n) => n.mac).join(','));
    const second = await bootAgent();
    expect(second.agent).not.toBe(first.agent);
    expect(first.agent.state).toBe('stopped');
    expect(second.agent.callbackUrl).toBe(first.agent.callbackUrl);
    machine.reset('ForceOff');
    await waitFor(() => second.agent.state === 'stopped', 'the agent to stop');
    expect(await reachable(second.agent.callbackUrl)).toBe(false);
  });

  it('crash: the agent dies at once, its API and heartbeats gone, the machine still on', async () => {
    const { agent } = await bootAgent();
    await waitFor(() => agent.heartbeats > 0, 'a heartbeat');
    fleet.setAgentFaults(machine.id, { crash: true });
    await waitFor(() => agent.state === 'crashed', 'the crash');
    expect(await reachable(agent.callbackUrl)).toBe(false);
    const count = ironic.heartbeats.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ironic.heartbeats).toHaveLength(count);
    expect(machine.powerState).toBe('On');
  });

  it('crash at a named step: the agent dies as the step starts and the result never comes', async () => {
    const { agent, client } = await bootAgent();
    fleet.setAgentFaults(machine.id, { crash: 'write_image' });
    await writeImage(client).catch(() => undefined);
    await waitFor(() => agent.state === 'crashed', 'the crash');
    expect(await reachable(agent.callbackUrl)).toBe(false);
    expect(machine.disk).toBeUndefined();
  });

  it('hang: heartbeats stop while the API still answers; clearing the fault brings them back', async () => {
    const { agent, client } = await bootAgent();
    await waitFor(() => agent.heartbeats > 0, 'a heartbeat');
    fleet.setAgentFaults(machine.id, { hang: true });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const count = ironic.heartbeats.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ironic.heartbeats).toHaveLength(count);
    expect((await client.command('standby.sync', {}, true)).status).toBe(200);
    fleet.setAgentFaults(machine.id, {});
    await waitFor(() => ironic.heartbeats.length > count, 'heartbeats again');
  });

  it('failStep: the named step (or command) fails', async () => {
    const { client } = await bootAgent();
    fleet.setAgentFaults(machine.id, { failStep: 'write_image' });
    await writeImage(client);
    const failed = await client.finished('execute_deploy_step');
    expect(failed).toMatchObject({ command_status: 'FAILED', command_error: { type: 'DeploymentError', message: 'Deploy step failed' } });
    fleet.setAgentFaults(machine.id, { failStep: 'image.install_bootloader' });
    await client.command('image.install_bootloader', { root_uuid: '0x1' });
    expect(await client.finished('install_bootloader')).toMatchObject({
      command_status: 'FAILED',
      command_error: { type: 'CommandExecutionError' },
    });
    expect((await client.command('standby.sync', {}, true)).body.command_status).toBe('SUCCEEDED');
  });

  it('badChecksum: a correct checksum no longer matches the corrupted download', async () => {
    const { client } = await bootAgent();
    fleet.setAgentFaults(machine.id, { badChecksum: true });
    await writeImage(client);
    const failed = await client.finished('execute_deploy_step');
    expect(failed).toMatchObject({ command_status: 'FAILED', command_error: { type: 'ImageChecksumError' } });
    expect(machine.disk).toBeUndefined();
    fleet.setAgentFaults(machine.id, {});
    await writeImage(client);
    expect((await client.finished('execute_deploy_step')).command_status).toBe('SUCCEEDED');
    expect(machine.disk?.content?.equals(IMAGE)).toBe(true);
  });

  it('versionAfterReboot: the next boot reports another agent_version and refuses steps planned with the old versions', async () => {
    const { agent, client } = await bootAgent();
    const steps = await client.command('deploy.get_deploy_steps', { node: NODE, ports: [] }, true);
    const planned = (steps.body.command_result as { hardware_manager_version: object }).hardware_manager_version;
    fleet.setAgentFaults(machine.id, { versionAfterReboot: '9.5.0' });
    await waitFor(() => agent.heartbeats > 1, 'heartbeats');
    expect(ironic.heartbeats.every((h) => h.body?.agent_version === '9.4.3')).toBe(true);

    // Ironic wipes the token when it reboots a node; the new agent gets a fresh one.
    ironic.tokenGiven = false;
    await client.command('standby.run_image', {});
    await waitFor(() => factory.agent(machine.id) !== agent && factory.agent(machine.id)?.state === 'running', 'the rebooted agent');
    const rebooted = factory.agent(machine.id);
    await waitFor(() => ironic.heartbeats.at(-1)?.body?.agent_version === '9.5.0', 'a heartbeat from the new version');
    const again = new AgentCommandClient(rebooted?.callbackUrl ?? '', TOKEN);
    const step = { interface: 'deploy', step: 'burnin_cpu', priority: 85, args: { duration_ms: 1 } };
    await again.command('deploy.execute_deploy_step', { step, node: NODE, ports: [], deploy_version: planned });
    expect(await again.finished('execute_deploy_step')).toMatchObject({
      command_status: 'CLEAN_VERSION_MISMATCH',
      command_error: { type: 'VersionMismatch' },
    });
  });
});

describe("the fleet's control API for agent faults", () => {
  it('sets, shows, refuses bad and clears agent faults per machine', async () => {
    const url = `${fleet.url}/fleet/v1/machines/${machine.id}/agent-faults`;
    const put = (body: unknown) => fetch(url, { method: 'PUT', body: JSON.stringify(body) });
    const ok = await put({ hang: true, failStep: 'erase_devices_metadata' });
    expect(ok.status).toBe(200);
    expect(machine.agentFaults).toEqual({ hang: true, failStep: 'erase_devices_metadata' });
    expect(await (await fetch(url)).json()).toEqual({ hang: true, failStep: 'erase_devices_metadata' });
    const bad = await put({ explode: true });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/unknown agent fault\(s\): explode/);
    expect((await put({ crash: 3 })).status).toBe(400);
    expect((await fetch(url, { method: 'DELETE' })).status).toBe(204);
    expect(machine.agentFaults).toEqual({});
    const described = (await (await fetch(`${fleet.url}/fleet/v1/machines/${machine.id}`)).json()) as Record<string, unknown>;
    expect(described).toMatchObject({ agent_faults: {}, disk: null });
  });
});
