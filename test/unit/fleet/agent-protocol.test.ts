/** The virtual agent's side of the IPA protocol: lookup, heartbeats, the token, the command API. */
import { jest } from '@jest/globals';
import { createHash } from 'node:crypto';
import { VirtualAgent } from '../../../local/fleet/agent/agent';
import { defaultSpec } from '../../../local/fleet/fleet';
import { VirtualMachine } from '../../../local/fleet/machine';
import { AgentCommandClient, FakeIronic, ImageServer, TOKEN, waitFor } from './helpers/fake-ironic';

const NODE = { uuid: '1be26c0b-03f2-4d2e-ae87-c02d7f33c123', driver_internal_info: {} };

let ironic: FakeIronic;
let images: ImageServer;
let agents: VirtualAgent[] = [];

beforeEach(async () => {
  ironic = await new FakeIronic(NODE.uuid).start();
  images = await new ImageServer().start();
  agents = [];
});

afterEach(async () => {
  images.release();
  await Promise.all(agents.map((a) => a.stop()));
  await Promise.all([ironic.stop(), images.stop()]);
});

async function boot(options: Partial<ConstructorParameters<typeof VirtualAgent>[0]> = {}) {
  const machine = new VirtualMachine(defaultSpec('agent', agents.length));
  const agent = new VirtualAgent({
    machine,
    apiUrl: ironic.url,
    heartbeatIntervalMs: 20,
    lookupIntervalMs: 5,
    lookupMaxIntervalMs: 20,
    ...options,
  });
  agents.push(agent);
  await agent.start();
  return { machine, agent, client: new AgentCommandClient(agent.callbackUrl) };
}

describe('VirtualAgent lookup and heartbeats', () => {
  it('looks up by its MACs until the node is found, then heartbeats with its callback URL, token and version', async () => {
    ironic.lookupAllowed = false;
    const machine = new VirtualMachine(defaultSpec('agent', 9));
    const agent = new VirtualAgent({ machine, apiUrl: ironic.url, heartbeatIntervalMs: 20, lookupIntervalMs: 5, lookupMaxIntervalMs: 20 });
    agents.push(agent);
    const started = agent.start();
    await waitFor(() => ironic.lookups.length >= 3, 'lookups to be retried');
    expect(agent.state).toBe('looking-up');
    ironic.lookupAllowed = true;
    await started;
    await waitFor(() => ironic.heartbeats.length >= 3, 'three heartbeats');

    const lookup = ironic.lookups[0];
    expect(lookup?.query.get('addresses')).toBe(machine.spec.nics.map((n) => n.mac).join(','));
    expect(lookup?.query.has('node_uuid')).toBe(false);
    // IPA asks for min(API version, 1.62) on lookup and min(API version, 1.68) on heartbeat.
    expect(lookup?.headers['x-openstack-ironic-api-version']).toBe('1.62');
    const beat = ironic.heartbeats[0];
    expect(beat?.path).toBe(`/v1/heartbeat/${NODE.uuid}`);
    expect(beat?.method).toBe('POST');
    expect(beat?.headers['x-openstack-ironic-api-version']).toBe('1.68');
    expect(beat?.body).toEqual({ callback_url: agent.callbackUrl, agent_token: TOKEN, agent_version: '9.4.3' });
    expect(agent.callbackUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("heartbeats at heartbeat_timeout × 0.3–0.6 from lookup's config when no interval is configured", async () => {
    ironic.heartbeatTimeout = 0.1;
    const { agent } = await boot({ heartbeatIntervalMs: undefined });
    await waitFor(() => ironic.heartbeats.length >= 4, 'heartbeats at the config interval');
    expect(agent.lookup?.config.heartbeat_timeout).toBe(0.1);
  });

  it('sends the node UUID with its lookups when it knows it, and speaks an older API as IPA does', async () => {
    const { agent } = await boot({ nodeUuid: NODE.uuid, apiVersion: '1.50' });
    await waitFor(() => ironic.heartbeats.length >= 1, 'a heartbeat');
    expect(ironic.lookups[0]?.query.get('node_uuid')).toBe(NODE.uuid);
    expect(ironic.lookups[0]?.headers['x-openstack-ironic-api-version']).toBe('1.50');
    // Before 1.62 there is no token in a heartbeat; agent_version is there from 1.36.
    expect(ironic.heartbeats[0]?.body).toEqual({ callback_url: agent.callbackUrl, agent_version: '9.4.3' });
  });

  it('keeps heartbeating when Ironic refuses a heartbeat (409 locked, 400)', async () => {
    ironic.heartbeatStatus = 409;
    const { agent } = await boot();
    await waitFor(() => ironic.heartbeats.length >= 2, 'heartbeats despite conflicts');
    ironic.heartbeatStatus = 202;
    const before = agent.heartbeats;
    await waitFor(() => agent.heartbeats > before, 'an accepted heartbeat');
    expect(agent.state).toBe('running');
  });

  it('heartbeats at once when an asynchronous command finishes (IPA forces one)', async () => {
    const { agent, client } = await boot({ heartbeatIntervalMs: 3_600_000, forcedHeartbeatGapMs: 0 });
    // The agent has its first heartbeat's answer (not only Ironic the request) before the command.
    await waitFor(() => agent.heartbeats === 1, 'the first heartbeat');
    const step = { step: 'burnin_cpu', interface: 'deploy', priority: 0, args: { duration_ms: 1 } };
    await client.command('deploy.execute_deploy_step', { step, node: NODE, ports: [] });
    await waitFor(
      () => agent.heartbeats >= 2,
      () => `the forced heartbeat (the agent: ${JSON.stringify(agent.describe())}; Ironic saw ${ironic.heartbeats.length} heartbeats)`,
    );
    // One forced heartbeat, not another right after it (the next is an hour away).
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect([agent.heartbeats, ironic.heartbeats.length]).toEqual([2, 2]);
  });

  it('sends one forced heartbeat when the command ends in the same millisecond as it leaves (a coarse clock)', async () => {
    // A clock that moves in 1-second steps: the ask and the heartbeat's send read the same time.
    const real = Date.now.bind(Date);
    const coarse = jest.spyOn(Date, 'now').mockImplementation(() => Math.floor(real() / 1000) * 1000);
    try {
      const { agent, client } = await boot({ heartbeatIntervalMs: 3_600_000, forcedHeartbeatGapMs: 0 });
      await waitFor(() => agent.heartbeats === 1, 'the first heartbeat', 10_000);
      const step = { step: 'burnin_cpu', interface: 'deploy', priority: 0, args: { duration_ms: 1 } };
      await client.command('deploy.execute_deploy_step', { step, node: NODE, ports: [] });
      await waitFor(() => agent.heartbeats >= 2, 'the forced heartbeat', 10_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect([agent.heartbeats, ironic.heartbeats.length]).toEqual([2, 2]);
    } finally {
      coarse.mockRestore();
    }
  });

  it('uses the token its boot ISO’s kernel command line gave when lookup answers "******", and one lookup gives over it', async () => {
    ironic.tokenGiven = true;
    const pregenerated = 'p'.repeat(43);
    const { agent, client } = await boot({ agentToken: pregenerated });
    await waitFor(() => ironic.heartbeats.length >= 1, 'a heartbeat');
    expect(agent.lookup?.config.agent_token).toBe('******');
    expect(agent.tokenSource).toBe('kernel command line');
    expect(ironic.heartbeats[0]?.body).toMatchObject({ agent_token: pregenerated });
    client.token = pregenerated;
    expect((await client.command('deploy.get_deploy_steps', { node: NODE, ports: [] }, true)).status).toBe(200);

    ironic.tokenGiven = false;
    const issued = await boot({ agentToken: pregenerated });
    await waitFor(() => ironic.heartbeats.some((b) => b.body?.agent_token === TOKEN), 'a heartbeat with the issued token');
    expect(issued.agent.tokenSource).toBe('lookup');
  });

  it('gives up after the lookup timeout, as IPA exits', async () => {
    ironic.lookupAllowed = false;
    const machine = new VirtualMachine(defaultSpec('agent', 8));
    const agent = new VirtualAgent({ machine, apiUrl: ironic.url, lookupIntervalMs: 5, lookupMaxIntervalMs: 10, lookupTimeoutMs: 50 });
    agents.push(agent);
    await agent.start();
    expect(agent.state).toBe('lookup-failed');
    expect(ironic.heartbeats).toHaveLength(0);
  });
});

describe('VirtualAgent command API', () => {
  it('requires the agent token from lookup on commands (401 otherwise) but not to read results', async () => {
    const { client } = await boot();
    const listSteps = { node: NODE, ports: [] };
    const none = await new AgentCommandClient(client.agentUrl, null).command('deploy.get_deploy_steps', listSteps, true);
    expect(none).toEqual({ status: 401, body: { faultcode: 'Client', faultstring: '401 Unauthorized: Token invalid.' } });
    const wrong = await new AgentCommandClient(client.agentUrl, 'x'.repeat(40)).command('deploy.get_deploy_steps', listSteps, true);
    expect(wrong.status).toBe(401);
    expect(await new AgentCommandClient(client.agentUrl, null).commands()).toEqual([]);
    const right = await client.command('deploy.get_deploy_steps', listSteps, true);
    expect(right.status).toBe(200);
  });

  it('lists its deploy steps with a disabled burn-in and firmware update for deploy templates, and its hardware manager versions', async () => {
    const { client } = await boot();
    const { status, body } = await client.command('deploy.get_deploy_steps', { node: NODE, ports: [] }, true);
    expect(status).toBe(200);
    expect(body).toMatchObject({ command_name: 'get_deploy_steps', command_status: 'SUCCEEDED', command_error: null });
    expect(typeof body.id).toBe('string');
    const result = body.command_result as {
      deploy_steps: Record<string, { step: string; priority: number }[]>;
      hardware_manager_version: object;
    };
    const all = Object.values(result.deploy_steps).flat();
    expect(all.map((s) => s.step).sort()).toEqual([
      'apply_configuration',
      'burnin_cpu',
      'erase_devices_metadata',
      'inject_files',
      'update_firmware',
      'write_image',
    ]);
    expect(all.every((s) => s.priority === 0)).toBe(true);
    expect(result.hardware_manager_version).toEqual({ generic_hardware_manager: '1.2', ironless_virtual_hardware_manager: '1.0' });
    const clean = await client.command('clean.get_clean_steps', { node: NODE, ports: [] }, true);
    const cleanSteps = Object.values((clean.body.command_result as { clean_steps: object }).clean_steps).flat() as {
      step: string;
      priority: number;
    }[];
    expect(cleanSteps.find((s) => s.step === 'erase_devices_metadata')?.priority).toBe(99);
    expect(cleanSteps.find((s) => s.step === 'erase_devices_express')?.priority).toBe(0);
  });

  it('answers 409 "Agent is busy" while a command runs, and reports it by its short name when done', async () => {
    const { client } = await boot();
    const image = Buffer.from('slow image');
    images.images.set('/slow.img', image);
    images.hold('/slow.img');
    const md5 = createHash('md5').update(image).digest('hex');
    const step = {
      step: 'write_image',
      interface: 'deploy',
      args: { image_info: { id: 'slow', urls: [`${images.url}/slow.img`], checksum: md5 } },
    };
    const started = await client.command('deploy.execute_deploy_step', { step, node: NODE, ports: [] });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ command_name: 'execute_deploy_step', command_status: 'RUNNING', command_result: null });

    const busy = await client.command('standby.sync', {});
    expect(busy).toEqual({
      status: 409,
      body: { faultcode: 'Client', faultstring: 'Agent is busy: executing command execute_deploy_step' },
    });

    images.release();
    const done = await client.finished('execute_deploy_step');
    expect(done.command_status).toBe('SUCCEEDED');
    expect((await client.command('standby.sync', {}, true)).status).toBe(200);
    const byId = await (await fetch(`${client.agentUrl}/v1/commands/${String(started.body.id)}`)).json();
    expect(byId).toMatchObject({ id: started.body.id, command_status: 'SUCCEEDED' });
  });

  it('waits for an asynchronous command with ?wait=true', async () => {
    const { client } = await boot();
    const step = { step: 'burnin_cpu', interface: 'deploy', priority: 85, args: { duration_ms: 30 } };
    const { body } = await client.command('deploy.execute_deploy_step', { step, node: NODE, ports: [] }, true);
    expect(body).toMatchObject({ command_status: 'SUCCEEDED', command_result: { deploy_result: null, deploy_step: step } });
  });

  it("answers bad requests as IPA: bad names, unknown extensions and commands, invalid parameters, Python's TypeError", async () => {
    const { client } = await boot();
    const post = (body: unknown) =>
      fetch(`${client.agentUrl}/v1/commands/?agent_token=${TOKEN}`, { method: 'POST', body: JSON.stringify(body) }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as Record<string, unknown>,
      }));
    expect(await post({ name: 'deploy.get_deploy_steps' })).toEqual({
      status: 400,
      body: { faultcode: 'Client', faultstring: '400 Bad Request: Missing or invalid name or params' },
    });
    expect(await client.command('nodots', {})).toEqual({
      status: 400,
      body: { faultcode: 'Client', faultstring: 'Invalid command: Command name must be of the form <extension>.<name>' },
    });
    expect(await client.command('nosuch.thing', {})).toEqual({
      status: 404,
      body: { faultcode: 'Client', faultstring: 'Not found: Extension with id nosuch not found.' },
    });
    expect((await client.command('standby.nosuch', {})).body.faultstring).toBe('Invalid command: Unknown command: nosuch');
    expect((await client.command('standby.prepare_image', { image_info: { id: 'x' } })).body).toEqual({
      faultcode: 'Client',
      faultstring: "Invalid command parameters: Image is missing 'urls' field.",
    });
    // A synchronous command called with the wrong arguments fails as a result, under its full name.
    const typeError = await client.command('deploy.get_deploy_steps', { node: NODE });
    expect(typeError.status).toBe(200);
    expect(typeError.body).toMatchObject({
      command_name: 'deploy.get_deploy_steps',
      command_status: 'FAILED',
      command_error: { type: 'TypeError', code: 500, message: "get_deploy_steps() missing 1 required positional argument: 'ports'" },
    });
    const notFound = await fetch(`${client.agentUrl}/v1/commands/nope`);
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toEqual({ faultcode: 'Client', faultstring: 'Not found: Command Result with id nope not found.' });
  });

  it('locks itself down on system.lockdown: the answer goes out, then no more commands nor heartbeats', async () => {
    const { agent, client } = await boot();
    await waitFor(() => ironic.heartbeats.length >= 1, 'a heartbeat');
    const reply = await client.command('system.lockdown', {}, true);
    expect(reply).toMatchObject({ status: 200, body: { command_status: 'SUCCEEDED', command_name: 'lockdown' } });
    await waitFor(() => agent.state === 'locked-down', 'the lockdown');
    const beats = ironic.heartbeats.length;
    await expect(client.commands()).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 100));
    expect(ironic.heartbeats.length).toBe(beats);
  });

  it('serves its status and version documents', async () => {
    const { client } = await boot();
    const status = (await (await fetch(`${client.agentUrl}/v1/status`)).json()) as Record<string, unknown>;
    expect(status.version).toBe('9.4.3');
    expect(typeof status.started_at).toBe('number');
    const root = (await (await fetch(`${client.agentUrl}/`)).json()) as Record<string, unknown>;
    expect(root.name).toBe('OpenStack Ironic Python Agent API');
    expect((await fetch(`${client.agentUrl}/v1/nothing`)).status).toBe(404);
  });
});
