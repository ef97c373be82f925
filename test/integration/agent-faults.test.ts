/**
 * Agent faults end to end: redfish nodes on the fleet, the virtual IPA agent misbehaving as the
 * fleet is told to, the steps machine waiting on it. Each fault must end the deploy in
 * `deploy failed` with a clear last_error within the heartbeat timeout — never a hung execution,
 * never a node left locked.
 */
import type { AgentFaults } from '../../local/fleet/machine';
import type { LocalStack } from '../../local/stack';
import { type FleetStack, startFleetStack } from './helpers/fleet';
import { ApiClient } from './helpers/stack';

const HEARTBEAT_TIMEOUT_S = 8;
let fleet: FleetStack;
let stack: LocalStack;
let api: ApiClient;

beforeAll(async () => {
  fleet = await startFleetStack({
    count: 6,
    prefix: 'flt',
    image: Buffer.from('a whole-disk image\n'.repeat(200)),
    // No automated cleaning: each case is about the deploy; cleaning with the agent has its own test.
    settings: { heartbeatTimeoutSeconds: HEARTBEAT_TIMEOUT_S, automatedClean: false },
  });
  stack = fleet.stack;
  api = new ApiClient(stack.url, '1.82');
}, 120_000);

afterAll(async () => {
  await fleet?.stop();
});

/** Deploy machine `id` with `faults` injected into its agent; the node as the deploy left it. */
async function deployWith(id: string, faults: AgentFaults, traits: string[] = []): Promise<Record<string, unknown>> {
  const uuid = (await api.get(`/v1/nodes/${id}`)).body.uuid as string;
  await api.provision(uuid, 'manage');
  await api.settle(uuid, ['manageable'], 60_000);
  await api.provision(uuid, 'provide');
  await api.settle(uuid, ['available'], 60_000);
  stack.fleet?.setAgentFaults(id, faults);
  const patched = await api.request('PATCH', `/v1/nodes/${uuid}`, [
    { op: 'add', path: '/instance_info', value: { ...fleet.image, traits } },
  ]);
  expect(patched.status).toBe(200);
  const started = Date.now();
  await api.provision(uuid, 'active');
  await api.settle(uuid, ['active', 'deploy failed'], 120_000);
  const seconds = (Date.now() - started) / 1000;
  return { ...(await api.unlocked(uuid)), seconds };
}

it('a checksum that does not match fails write_image with the agent error', async () => {
  const node = await deployWith('flt-0', { badChecksum: true });
  expect(node).toMatchObject({ provision_state: 'deploy failed', reservation: null });
  expect(String(node.last_error)).toMatch(/write_image/);
  expect(String(node.last_error)).toMatch(/checksum/i);
}, 240_000);

it('an agent that stops heartbeating fails the deploy within the heartbeat timeout', async () => {
  const node = await deployWith('flt-1', { hang: true });
  expect(node).toMatchObject({ provision_state: 'deploy failed', reservation: null });
  expect(String(node.last_error)).toContain('Timed out waiting for a heartbeat from the agent.');
}, 240_000);

it('a failing in-band step fails the deploy naming the step', async () => {
  const node = await deployWith('flt-2', { failStep: 'write_image' });
  expect(node).toMatchObject({ provision_state: 'deploy failed', reservation: null });
  expect(String(node.last_error)).toMatch(/write_image/);
}, 240_000);

it('an agent that dies as write_image reaches it fails the deploy: the command cannot be delivered', async () => {
  const node = await deployWith('flt-3', { crash: 'write_image' });
  expect(node).toMatchObject({ provision_state: 'deploy failed', reservation: null });
  expect(String(node.last_error)).toMatch(
    /^Deploy step deploy\.write_image failed on node .*Connection to agent failed: Failed to connect to the agent running on node \S+ for invoking command deploy\.execute_deploy_step\. Error: ECONNREFUSED$/,
  );
  expect(stack.fleet?.machine('flt-3').disk).toBeUndefined(); // it died before writing anything
}, 240_000);

describe('a step that asks for a reboot', () => {
  // update_firmware is an in-band deploy step the virtual agent offers disabled and with reboot_requested.
  beforeAll(async () => {
    const template = await api.request('POST', '/v1/deploy_templates', {
      name: 'CUSTOM_FIRMWARE',
      steps: [{ interface: 'deploy', step: 'update_firmware', priority: 90, args: { duration_ms: 50 } }],
    });
    expect(template.status).toBe(201);
  });

  it('reboots the ramdisk and continues with the next step in the rebooted agent', async () => {
    const bootsBefore = stack.fleet?.machine('flt-4').boots.length ?? 0;
    const node = await deployWith('flt-4', {}, ['CUSTOM_FIRMWARE']);
    expect(node).toMatchObject({ provision_state: 'active', last_error: null });
    const history = (await api.get(`/v1/nodes/${node.uuid as string}/history`)).body.history as { event: string }[];
    const started = history.map((h) => h.event).filter((e) => e.startsWith('Deploy step'));
    expect(started.map((e) => /deploy\.(\w+)/.exec(e)?.[1])).toEqual([
      'deploy',
      'update_firmware',
      'write_image',
      'prepare_instance_boot',
      'tear_down_agent',
      'switch_to_tenant_network',
      'boot_instance',
    ]);
    // Ramdisk, ramdisk again after the update, then the instance.
    const boots = (stack.fleet?.machine('flt-4').boots ?? []).slice(bootsBefore);
    expect(boots.map((b) => b.device)).toEqual(['Cd', 'Cd', 'Hdd']);
  }, 240_000);

  it('fails the deploy when the agent comes back from that reboot as another version', async () => {
    const node = await deployWith('flt-5', { versionAfterReboot: '9.5.0' }, ['CUSTOM_FIRMWARE']);
    expect(node).toMatchObject({ provision_state: 'deploy failed', reservation: null });
    expect(String(node.last_error)).toMatch(/agent version changed from 9\.4\.3 to 9\.5\.0 after the reboot requested by deploy step/);
    expect(stack.fleet?.machine('flt-5').disk).toBeUndefined(); // write_image never ran
  }, 240_000);
});
