/**
 * Deploy and clean with an agent on a local stack: the API's lookup and heartbeat endpoints, SQS,
 * the conductor, the steps machine waiting on task tokens that heartbeats keep alive and complete,
 * and an IPA-protocol test agent. The heartbeat timeout is 5 s, so a silent agent fails fast.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { selectRelease } from '../../functions/common/releases';
import { createDocumentClient } from '../../functions/db/client';
import { createStores } from '../../functions/db/stores';
import { DeployTemplate } from '../../functions/objects/deploy-template';
import type { LocalStack } from '../../local/stack';
import { ApiClient, faultOf, startStack } from './helpers/stack';
import { TestAgent } from './helpers/test-agent';

/**
 * The executions still running once they have had time to end: the Failed task saves the node
 * first, then the execution finishes its last states, so a test reading the node can be earlier.
 */
async function executionsEnded(timeoutMs = 10_000): Promise<string[]> {
  const until = Date.now() + timeoutMs;
  while (stack.sfn.running().length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  return stack.sfn.running().map((e) => e.name);
}

let stack: LocalStack;
let api: ApiClient;
const agents: TestAgent[] = [];

beforeAll(async () => {
  stack = await startStack({
    settings: { heartbeatTimeoutSeconds: 5, callbackTimeoutSeconds: 60, postDeployPowerStateRetryIntervalSeconds: 1 },
  });
  api = new ApiClient(stack.url);
}, 60_000);

afterAll(async () => {
  await Promise.all(agents.map((a) => a.stop()));
  await stack?.stop();
});

const IMAGE = { image_source: 'http://images.example/disk.raw', image_checksum: 'f00d' };

async function agentNode(
  name: string,
  extra: Record<string, unknown> = {},
  options: { stepMs?: number } = {},
): Promise<{ uuid: string; agent: TestAgent }> {
  const created = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name, deploy_interface: 'direct', ...extra });
  expect(created.status).toBe(201);
  const uuid = created.body.uuid as string;
  const agent = await new TestAgent({ api: stack.url, node: uuid, ...options }).run();
  agent.cleanSteps = [{ interface: 'deploy', step: 'erase_devices_metadata', priority: 99, reboot_requested: false }];
  agent.deploySteps = [
    { interface: 'deploy', step: 'write_image', priority: 0 },
    { interface: 'deploy', step: 'burn_in', priority: 0 },
  ];
  agents.push(agent);
  return { uuid, agent };
}

async function available(uuid: string): Promise<void> {
  await api.provision(uuid, 'manage');
  await api.waitFor(uuid, 'manageable');
  await api.provision(uuid, 'provide');
  await api.waitFor(uuid, 'available', 30_000);
}

async function storeTemplate(name: string, steps: Record<string, unknown>[]): Promise<void> {
  const raw = new DynamoDBClient({
    endpoint: stack.endpoints.dynamodb,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const stores = createStores({ client: createDocumentClient(raw), tables: stack.tables, release: selectRelease('') });
  await stores.deployTemplates.create(new DeployTemplate({ uuid: randomUUID(), name, steps }));
  raw.destroy();
}

function ran(agent: TestAgent): string[] {
  return agent.requests.filter((r) => r.name?.includes('execute_')).map((r) => (r.params?.step as { step: string }).step);
}

describe('the agent protocol on the API', () => {
  it('refuses lookups without an address or node, for nodes not waiting for a ramdisk, and bad heartbeats', async () => {
    const incomplete = await api.get('/v1/lookup');
    expect(incomplete.status).toBe(400);
    expect(faultOf(incomplete).faultstring).toBe("At least one of 'addresses' and 'node_uuid' parameters is required");
    const created = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: 'lookup-enroll' });
    expect((await api.get(`/v1/lookup?node_uuid=${created.body.uuid}`)).status).toBe(404);
    const old = await api.get(`/v1/lookup?node_uuid=${created.body.uuid}`, { 'X-OpenStack-Ironic-API-Version': '1.21' });
    expect(old.status).toBe(404);
    const noToken = await api.request('POST', `/v1/heartbeat/${created.body.uuid}`, { callback_url: 'http://x', agent_version: '9' });
    expect(noToken.status).toBe(400);
    expect(faultOf(noToken).faultstring).toBe('Agent token is required for heartbeat processing.');
    const wrong = await api.request('POST', `/v1/heartbeat/${created.body.uuid}`, {
      callback_url: 'http://x',
      agent_version: '9',
      agent_token: 'x',
    });
    expect(wrong.status).toBe(400);
    expect(faultOf(wrong).faultstring).toBe('Invalid or missing agent token received.');
  });
});

describe('direct deploy with an agent', () => {
  it('cleans with in-band steps, deploys through every step in order with a template-enabled in-band step, undeploys and cleans', async () => {
    const { uuid, agent } = await agentNode('agent-1');
    await available(uuid);
    expect(ran(agent)).toEqual(['erase_devices_metadata']);
    // The one-time token: the agent got it, every later lookup sees it masked.
    expect(agent.lookups.some((l) => typeof l.token === 'string' && l.token !== '******')).toBe(true);

    const template = await api.request(
      'POST',
      '/v1/deploy_templates',
      { name: 'CUSTOM_BURN_IN', steps: [{ interface: 'deploy', step: 'burn_in', priority: 90, args: { hours: 1 } }] },
      { 'X-OpenStack-Ironic-API-Version': '1.55' },
    );
    // The deploy templates API belongs to another part; without it the template goes into the store directly.
    if (template.status !== 201)
      await storeTemplate('CUSTOM_BURN_IN', [{ interface: 'deploy', step: 'burn_in', priority: 90, args: { hours: 1 } }]);
    const patched = await api.request('PATCH', `/v1/nodes/${uuid}`, [
      { op: 'add', path: '/instance_info', value: { ...IMAGE, traits: ['CUSTOM_BURN_IN'] } },
    ]);
    expect(patched.status).toBe(200);
    await api.provision(uuid, 'active');
    const active = await api.waitFor(uuid, 'active', 40_000);
    expect(active).toMatchObject({ last_error: null, power_state: 'power on', deploy_step: {} });
    expect(ran(agent)).toEqual(['erase_devices_metadata', 'burn_in', 'write_image']);
    const write = agent.requests.find((r) => (r.params?.step as { step?: string })?.step === 'write_image');
    expect((write?.params?.step as { args: { image_info: unknown } }).args.image_info).toMatchObject({
      urls: [IMAGE.image_source],
      checksum: IMAGE.image_checksum,
    });

    await api.provision(uuid, 'deleted');
    await api.waitFor(uuid, 'available', 40_000);
    expect(ran(agent)).toEqual(['erase_devices_metadata', 'burn_in', 'write_image', 'erase_devices_metadata']);
  }, 120_000);

  it('fails the deploy with the agent error when an in-band step fails', async () => {
    const { uuid, agent } = await agentNode('agent-2', { automated_clean: false });
    await available(uuid);
    agent.failStep = 'write_image';
    await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/instance_info', value: IMAGE }]);
    await api.provision(uuid, 'active');
    const failed = await api.waitFor(uuid, 'deploy failed', 40_000);
    expect(failed.last_error).toBe(`Deploy step deploy.write_image failed on node ${uuid}. write_image failed on purpose`);
    expect(await api.unlocked(uuid)).toMatchObject({ provision_state: 'deploy failed', power_state: 'power off', reservation: null });
  }, 60_000);

  it('fails the deploy when the agent stops heartbeating, within the heartbeat timeout', async () => {
    const { uuid, agent } = await agentNode('agent-3', { automated_clean: false });
    await available(uuid);
    agent.hangAtStep = 'write_image';
    await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/instance_info', value: IMAGE }]);
    await api.provision(uuid, 'active');
    await api.waitFor(uuid, 'wait call-back', 20_000);
    const failed = await api.waitFor(uuid, 'deploy failed', 30_000);
    expect(failed.last_error).toBe(
      `Deploy step deploy.write_image failed on node ${uuid}. Timed out waiting for a heartbeat from the agent.`,
    );
    expect(await executionsEnded()).toEqual([]);
  }, 60_000);

  it('aborts a deploy waiting for the agent', async () => {
    const { uuid, agent } = await agentNode('agent-4', { automated_clean: false });
    await available(uuid);
    agent.hangAtStep = 'write_image';
    await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/instance_info', value: IMAGE }]);
    await api.provision(uuid, 'active');
    // Waiting for the agent to finish write_image (it never will: it hangs).
    let waiting = await api.waitFor(uuid, 'wait call-back', 20_000);
    for (let i = 0; i < 200 && !(waiting.provision_state === 'wait call-back' && waiting.deploy_step?.step === 'write_image'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      waiting = (await api.get(`/v1/nodes/${uuid}`)).body;
    }
    expect(waiting.deploy_step).toMatchObject({ interface: 'deploy', step: 'write_image' });
    // Abort from wait call-back is API 1.110's.
    await new ApiClient(stack.url, '1.110').provision(uuid, 'abort');
    const aborted = await api.waitFor(uuid, 'deploy failed', 20_000);
    expect(aborted.last_error).toContain('By request, the deploy operation was aborted');
    expect((await api.unlocked(uuid)).reservation).toBeNull();
    expect(await executionsEnded()).toEqual([]);
  }, 60_000);

  it('aborts cleaning during an in-band step that may not be stopped once the agent has finished the step', async () => {
    const { uuid, agent } = await agentNode('agent-5', {}, { stepMs: 3000 });
    agent.cleanSteps = [
      { interface: 'deploy', step: 'erase_devices_metadata', priority: 99, reboot_requested: false, abortable: false },
      { interface: 'deploy', step: 'erase_devices', priority: 10, reboot_requested: false, abortable: true },
    ];
    await api.provision(uuid, 'manage');
    await api.waitFor(uuid, 'manageable');
    await api.provision(uuid, 'provide');
    let waiting = await api.waitFor(uuid, 'clean wait', 20_000);
    for (let i = 0; i < 200 && waiting.clean_step?.step !== 'erase_devices_metadata'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      waiting = (await api.get(`/v1/nodes/${uuid}`)).body;
    }
    expect(waiting.clean_step).toMatchObject({ step: 'erase_devices_metadata', abortable: false });
    // A heartbeat holds the node for a moment every 300 ms: a 409 then is retried, as ironicclient
    // retries a Conflict (5 times by default).
    let reply = await api.request('PUT', `/v1/nodes/${uuid}/states/provision`, { target: 'abort' });
    for (let i = 0; i < 5 && reply.status === 409; i++) {
      await new Promise((r) => setTimeout(r, 100));
      reply = await api.request('PUT', `/v1/nodes/${uuid}/states/provision`, { target: 'abort' });
    }
    expect(reply.status).toBe(202);
    // Still cleaning: the step runs to its end.
    const flagged = (await api.get(`/v1/nodes/${uuid}`)).body;
    expect(flagged).toMatchObject({ provision_state: 'clean wait', clean_step: { step: 'erase_devices_metadata', abort_after: true } });
    const failed = await api.waitFor(uuid, 'clean failed', 20_000);
    expect(failed).toMatchObject({
      last_error: 'By request, the clean operation was aborted during or after the completion of step "deploy.erase_devices_metadata"',
      clean_step: {},
      maintenance: false,
      power_state: 'power off',
    });
    // The finished step was the last one run.
    expect(ran(agent)).toEqual(['erase_devices_metadata']);
    expect((await api.unlocked(uuid)).reservation).toBeNull();
    expect(await executionsEnded()).toEqual([]);
  }, 60_000);
});
