/**
 * The virtual ramdisk agent against a real Ironic 21.4 conductor: fake-hardware with the `direct`
 * deploy interface, so Ironic's own agent client drives our agent through automated cleaning,
 * a deploy from an image URL with its checksum and a config drive Ironic builds from JSON (the same
 * files Ironless's own builder writes), and undeploy. What Ironless's conductor must do
 * with the agent, Ironic does here first — proof the agent speaks the protocol Ironic expects.
 *
 * Fake power does not touch the virtual machine, so the test plays the BMC: it boots the machine
 * from the agent ISO when Ironic waits for the ramdisk (and the agent's own power_off takes it down).
 */
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { buildConfigdrive } from '../../functions/drivers/configdrive';
import { PROJECT_ROOT } from '../../lib/bundling';
import { inspectConfigdrive } from '../../local/fleet/agent/configdrive';
import { type AgentGuestFactory, agentGuestFactory } from '../../local/fleet/agent/factory';
import { AGENT_ISO_PATH, Fleet } from '../../local/fleet/fleet';
import type { VirtualMachine } from '../../local/fleet/machine';
import { ImageServer } from '../unit/fleet/helpers/fake-ironic';

const run = promisify(execFile);
const PORT = 6395;
const IMAGE = Buffer.from('a whole-disk image\n'.repeat(500));

let dir: string;
let api: string;
let fleet: Fleet;
let factory: AgentGuestFactory;
let images: ImageServer;
let machine: VirtualMachine;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${api}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', 'X-OpenStack-Ironic-API-Version': '1.81' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** Wait for one of `states`, booting the agent whenever Ironic waits for a ramdisk. */
async function until(uuid: string, states: string[], seen: string[] = []): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 150_000;
  while (Date.now() < deadline) {
    const node = (await call('GET', `/v1/nodes/${uuid}`)).body;
    const state = String(node.provision_state);
    if (seen.at(-1) !== state) seen.push(state);
    if (states.includes(state)) return node;
    if ((state === 'clean wait' || state === 'wait call-back') && machine.powerState === 'Off') machine.reset('On');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`node ${uuid} never reached ${states.join(' or ')}; went through ${seen.join(' → ')}`);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ironic-agent-ref-'));
  const extra = [
    '[DEFAULT]',
    'enabled_deploy_interfaces = fake,direct',
    'enabled_raid_interfaces = fake,no-raid,agent',
    '[api]',
    // IPA heartbeats every 0.3–0.6 × this: a few seconds.
    'ramdisk_heartbeat_timeout = 6',
    '[service_catalog]',
    `endpoint_override = http://127.0.0.1:${PORT}`,
    '[agent]',
    'post_deploy_get_power_state_retries = 1',
    'post_deploy_get_power_state_retry_interval = 1',
  ].join('\n');
  const script = join(PROJECT_ROOT, 'test/compat/reference/ironic.sh');
  const { stdout } = await run('bash', [script, 'start', dir, String(PORT)], {
    timeout: 120_000,
    env: { ...process.env, IRONIC_EXTRA_CONF: extra },
  });
  api = stdout.trim().split('\n').pop() as string;
  images = await new ImageServer().start();
  images.images.set('/disk.img', IMAGE);
  factory = agentGuestFactory({ apiUrl: api, forcedHeartbeatGapMs: 1000, lookupMaxIntervalMs: 2000, shutdownDelayMs: 10 });
  fleet = await new Fleet({ count: 1, prefix: `ref${process.pid}`, guestFactory: factory }).start();
  machine = fleet.machine(`ref${process.pid}-0`);
  machine.setBoot({ target: 'Cd', enabled: 'Continuous' });
  machine.insertMedia('Cd', `${fleet.url}${AGENT_ISO_PATH}`);
}, 150_000);

afterAll(async () => {
  await fleet?.stop();
  await images?.stop();
  await run('bash', [join(PROJECT_ROOT, 'test/compat/reference/ironic.sh'), 'stop', dir]).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

it('is cleaned, deployed and undeployed by a real Ironic 21.4 through the agent protocol', async () => {
  const created = await call('POST', '/v1/nodes', {
    driver: 'fake-hardware',
    name: machine.id,
    deploy_interface: 'direct',
    raid_interface: 'agent',
    // fake management can only boot from PXE; Ironic skips setting the boot device to disk for
    // Lenovo machines in UEFI mode (bug 2053064), which lets a fake-hardware deploy finish.
    properties: { vendor: 'lenovo' },
  });
  expect(created.status).toBe(201);
  const uuid = String(created.body.uuid);
  expect((await call('POST', '/v1/ports', { node_uuid: uuid, address: machine.spec.nics[0]?.mac })).status).toBe(201);

  await call('PUT', `/v1/nodes/${uuid}/states/provision`, { target: 'manage' });
  await until(uuid, ['manageable']);
  await call('PUT', `/v1/nodes/${uuid}/states/provision`, { target: 'provide' });
  const cleaned = await until(uuid, ['available', 'clean failed']);
  expect(cleaned.last_error).toBeNull();
  expect(cleaned.provision_state).toBe('available');
  const cleaning = factory.agent(machine.id)?.runner.results.map((r) => `${r.name}:${r.status}`);
  expect(cleaning).toEqual(['get_clean_steps:SUCCEEDED', 'execute_clean_step:SUCCEEDED', 'execute_clean_step:SUCCEEDED']);

  machine.reset('ForceOff');
  const md5 = createHash('md5').update(IMAGE).digest('hex');
  const instanceInfo = { image_source: `${images.url}/disk.img`, image_checksum: md5, root_gb: 1 };
  expect((await call('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/instance_info', value: instanceInfo }])).status).toBe(200);
  const configdrive = { meta_data: { hostname: 'ref-host' }, user_data: { runcmd: ['true'] }, network_data: { links: [] } };
  expect((await call('PUT', `/v1/nodes/${uuid}/states/provision`, { target: 'active', configdrive })).status).toBe(202);
  const deployed = await until(uuid, ['active', 'deploy failed']);
  expect(deployed.last_error).toBeNull();
  expect(deployed.provision_state).toBe('active');
  const deploying = factory.agent(machine.id)?.runner.results.map((r) => r.name);
  expect(deploying).toEqual(['get_deploy_steps', 'execute_deploy_step', 'get_partition_uuids', 'install_bootloader', 'power_off']);
  expect(machine.disk).toMatchObject({ imageId: 'disk.img', size: IMAGE.length });
  // Ironic built the config drive with genisoimage; the agent read it; Ironless builds the same files.
  expect(machine.disk?.configdrive?.label).toBe('config-2');
  const ours = inspectConfigdrive(gunzipSync(Buffer.from(buildConfigdrive({ uuid, name: machine.id }, configdrive), 'base64')));
  expect(machine.disk?.configdrive?.files).toEqual(ours.files);
  expect(Object.keys(ours.files)).toHaveLength(6);
  expect(machine.powerState).toBe('Off');

  expect((await call('PUT', `/v1/nodes/${uuid}/states/provision`, { target: 'deleted' })).status).toBe(202);
  const undeployed = await until(uuid, ['available', 'clean failed']);
  expect(undeployed.last_error).toBeNull();
  expect(undeployed.provision_state).toBe('available');
  expect(machine.disk).toBeUndefined();
}, 300_000);
