/**
 * In-band inspection through the API on fake-hardware (the test posts what a ramdisk would), and
 * during a rolling upgrade: services pinned to 2026.3 (RPC 1.1, no continue_inspection) never start
 * an in-band inspection — the pinned API refuses the verb with a 503 before anything changes, a
 * pinned conductor fails it before booting anything — and a pinned API answers a ramdisk's post
 * with a 503 (IPA retries) instead of sending a message an old conductor would dead-letter.
 * Pinned services serve API 1.87 at most and write Node 1.0 items (no instance_name), unpinned
 * ones Node 1.1; each reads what the other wrote. Ports are Port 1.0 in both (unchanged).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { RELEASE_MAPPING } from '../../functions/common/releases';
import type { LocalStack } from '../../local/stack';
import { ApiClient, faultOf, startStack } from './helpers/stack';

let stack: LocalStack;
let api: ApiClient;
let unpinned: { api: string; conductor: string };

beforeAll(async () => {
  // Beyond Ironic's default hooks, those that set memory_mb, cpus, local_gb and the boot mode.
  stack = await startStack({ settings: { inspectorHooks: '$default_hooks,memory,cpus,root-device,boot-mode' } });
  api = new ApiClient(stack.url, '1.87');
  unpinned = { api: stack.lambda.getAlias('api', 'live')!.version, conductor: stack.lambda.getAlias('conductor', 'live')!.version };
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** The stored item itself, as DynamoDB holds it. */
async function stored(table: 'nodes' | 'ports', uuid: string): Promise<Record<string, unknown>> {
  const db = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: stack.endpoints.dynamodb,
      region: 'us-east-1',
      credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
    }),
  );
  const { Item } = await db.send(new GetCommand({ TableName: stack.tables[table], Key: { uuid }, ConsistentRead: true }));
  db.destroy();
  return Item ?? {};
}

afterEach(() => {
  stack.lambda.setAlias('api', 'live', unpinned.api);
  stack.lambda.setAlias('conductor', 'live', unpinned.conductor);
});

/** Send one of the functions' traffic to a new version of it pinned to 2026.3. */
async function pin(name: 'api' | 'conductor'): Promise<void> {
  stack.lambda.setAlias(name, 'live', stack.lambda.publishVersion(name, { env: { PIN_RELEASE_VERSION: '2026.3' } }));
  if (name === 'conductor') await stack.conductorHeartbeat();
}

async function agentNode(name: string): Promise<string> {
  const created = await api.request('POST', '/v1/nodes', { name, driver: 'fake-hardware', inspect_interface: 'agent' });
  expect(created.status).toBe(201);
  const uuid = created.body.uuid as string;
  await api.provision(uuid, 'manage');
  await api.settle(uuid, ['manageable']);
  return uuid;
}

/** The node waiting for its ramdisk, and no longer locked by the conductor. */
async function waiting(uuid: string): Promise<void> {
  await api.provision(uuid, 'inspect');
  await api.settle(uuid, ['inspect wait', 'inspect failed']);
  const deadline = Date.now() + 20_000;
  while ((await api.get(`/v1/nodes/${uuid}`)).body.reservation !== null) {
    if (Date.now() > deadline) throw new Error('the node stayed locked');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** What a ramdisk posts: an inventory with one NIC of this MAC, the root disk it guessed, its logs. */
function dataFor(mac: string, memoryMb = 8192) {
  return {
    inventory: {
      interfaces: [{ name: 'eth0', mac_address: mac, ipv4_address: '10.1.0.5' }],
      cpu: { count: 4, architecture: 'aarch64' },
      memory: { physical_mb: memoryMb },
      disks: [{ name: '/dev/vda', size: 20 * 1024 ** 3 }],
      boot: { current_boot_mode: 'bios' },
      bmc_address: null,
    },
    root_disk: { name: '/dev/vda', size: 20 * 1024 ** 3 },
    logs: 'H4sIAAAAAAAA/w==',
  };
}

describe('continue_inspection through the API', () => {
  it('takes a ramdisk’s data at 1.84 (giving the agent its token) and at 1.1, and processes it in the conductor', async () => {
    const uuid = await agentNode('ramdisk-84');
    await waiting(uuid);
    const data = dataFor('52:54:00:ab:cd:01');
    const reply = await api.request('POST', `/v1/continue_inspection?node_uuid=${uuid}`, data);
    expect(reply.status).toBe(202);
    expect(reply.body.node.uuid).toBe(uuid);
    expect(reply.body.config).toMatchObject({ agent_token_required: true, agent_token: expect.stringMatching(/^.{32,}$/) });
    const node = await api.settle(uuid, ['manageable', 'inspect failed']);
    expect(node).toMatchObject({ provision_state: 'manageable', last_error: null });
    expect(node.properties).toMatchObject({ cpu_arch: 'aarch64', memory_mb: 8192, cpus: 4, local_gb: 19, capabilities: 'boot_mode:bios' });
    expect((await api.get(`/v1/ports?node=${uuid}`)).body.ports.map((p: { address: string }) => p.address)).toEqual(['52:54:00:ab:cd:01']);
    const stored = (await api.get(`/v1/nodes/${uuid}/inventory`)).body;
    expect(stored.inventory).toEqual(data.inventory);
    expect(stored.plugin_data).not.toHaveProperty('logs');

    // Again, found by its port this time, at 1.1 as IPA posts: the answer is inspector's {uuid}.
    await waiting(uuid);
    const v1 = await new ApiClient(stack.url, '1.1').request('POST', '/v1/continue_inspection', dataFor('52:54:00:ab:cd:01', 4096));
    expect([v1.status, v1.body]).toEqual([202, { uuid }]);
    expect(await api.settle(uuid, ['manageable', 'inspect failed'])).toMatchObject({ properties: { memory_mb: 4096 } });
  });

  it('answers 413 for data too large to pass on, and 400 for a node inspected out of band', async () => {
    const uuid = await agentNode('ramdisk-codes');
    await waiting(uuid);
    const data = dataFor('52:54:00:ab:cd:02');
    const huge = await api.request('POST', `/v1/continue_inspection?node_uuid=${uuid}`, { ...data, extra: 'x'.repeat(300_000) });
    expect([huge.status, faultOf(huge).faultstring]).toEqual([
      413,
      expect.stringMatching(
        new RegExp(`^The inspection data of node ${uuid} is \\d+ bytes without its logs; Ironless takes at most \\d+\\.$`),
      ),
    ]);
    expect((await api.get(`/v1/nodes/${uuid}`)).body.provision_state).toBe('inspect wait');
    const outOfBand = await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'replace', path: '/inspect_interface', value: 'fake' }]);
    expect(outOfBand.status).toBe(200);
    const refused = await api.request('POST', `/v1/continue_inspection?node_uuid=${uuid}`, data);
    expect([refused.status, faultOf(refused).faultstring]).toEqual([
      400,
      'Driver fake-hardware does not support inspect (disabled or not implemented).',
    ]);
  });
});

describe('pinned to release 2026.3', () => {
  it('the API refuses to start an in-band inspection, changing nothing; out of band still works', async () => {
    const uuid = await agentNode('pinned-api');
    await pin('api');
    const refused = await api.request('PUT', `/v1/nodes/${uuid}/states/provision`, { target: 'inspect' });
    expect(refused.status).toBe(503);
    expect(faultOf(refused).faultstring).toBe(
      `Node ${uuid} cannot be inspected in band while this service is pinned to release 2026.3: its ramdisk's data needs RPC 1.2 (continue_inspection), above this service's cap 1.1. ` +
        'Inspect it once the upgrade is finished (unpinned), or with an out-of-band inspect interface.',
    );
    expect((await api.get(`/v1/nodes/${uuid}`)).body).toMatchObject({ provision_state: 'manageable', last_error: null, reservation: null });
    expect((await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'replace', path: '/inspect_interface', value: 'fake' }])).status).toBe(
      200,
    );
    await api.provision(uuid, 'inspect');
    expect(await api.settle(uuid, ['manageable', 'inspect failed'])).toMatchObject({ provision_state: 'manageable', last_error: null });
  });

  it('a conductor fails the inspection before booting anything', async () => {
    const uuid = await agentNode('pinned-conductor');
    await pin('conductor');
    await api.provision(uuid, 'inspect');
    const node = await api.settle(uuid, ['inspect wait', 'inspect failed']);
    expect(node.provision_state).toBe('inspect failed');
    expect(node.last_error).toBe(
      "Failed to inspect hardware. Reason: In-band inspection needs RPC API 1.2 (continue_inspection) to hand the ramdisk's data to a conductor, above RPC 1.1 of release 2026.3 this service is pinned to. " +
        'Inspect the node once every service runs the new release unpinned, or with an out-of-band inspect interface.',
    );
    expect(node.driver_internal_info).not.toHaveProperty('inspector_manage_boot');
    // The validation says so too.
    const validation = (await api.get(`/v1/nodes/${uuid}/validate`)).body;
    expect(validation.inspect).toMatchObject({ result: false, reason: expect.stringContaining('In-band inspection needs RPC API 1.2') });
  });

  it('the API answers a ramdisk 503 (it retries) rather than send what an older conductor cannot handle', async () => {
    const uuid = await agentNode('pinned-callback');
    await waiting(uuid);
    await pin('api');
    const data = dataFor('52:54:00:ab:cd:03');
    const refused = await api.request('POST', `/v1/continue_inspection?node_uuid=${uuid}`, data);
    expect(refused.status).toBe(503);
    expect(faultOf(refused).faultstring).toBe(
      `Inspection data for node ${uuid} cannot be processed while this service is pinned to release 2026.3 (RPC 1.1; continue_inspection needs 1.2). Retry later.`,
    );
    expect((await api.get(`/v1/nodes/${uuid}`)).body).toMatchObject({ provision_state: 'inspect wait', reservation: null });
    expect((await api.get(`/v1/nodes/${uuid}`)).body.driver_internal_info).not.toHaveProperty('agent_secret_token');
    // A node not waiting for inspection is the usual 404, pinned or not (an always-inspecting ramdisk's deploy boots).
    const other = await api.request('POST', '/v1/continue_inspection', {
      inventory: { interfaces: [{ mac_address: '52:54:00:ff:00:01' }] },
    });
    expect(other.status).toBe(404);

    stack.lambda.setAlias('api', 'live', unpinned.api);
    expect((await api.request('POST', `/v1/continue_inspection?node_uuid=${uuid}`, data)).status).toBe(202);
    expect(await api.settle(uuid, ['manageable', 'inspect failed'])).toMatchObject({ provision_state: 'manageable' });
  });

  it('the API serves at most 1.87: 1.88 is a 406 with Ironic’s message, and GET / says 1.87', async () => {
    await pin('api');
    const refused = await api.get('/v1/nodes', { 'X-OpenStack-Ironic-API-Version': '1.88' });
    expect(refused.status).toBe(406);
    expect(faultOf(refused)).toMatchObject({
      code: 406,
      description:
        'Version 1.88 was requested but the minor version is not supported by this service. The supported version range is: [1.1, 1.87].',
    });
    expect(refused.headers.get('x-openstack-ironic-api-maximum-version')).toBe('1.87');
    expect((await api.get('/')).body.default_version).toMatchObject({ version: '1.87' });
    stack.lambda.setAlias('api', 'live', unpinned.api);
    expect((await api.get('/v1/nodes', { 'X-OpenStack-Ironic-API-Version': '1.88' })).status).toBe(200);
  });

  it('services write Node 1.0 (without instance_name) and Port 1.0 pinned, the latest versions unpinned, and read both', async () => {
    const NODE = RELEASE_MAPPING.master!.objects.Node![0]!;
    const PORT = RELEASE_MAPPING.master!.objects.Port![0]!;
    const created = await api.request('POST', '/v1/nodes', {
      name: 'versions',
      driver: 'fake-hardware',
      instance_info: { display_name: 'vm-a' },
    });
    const uuid = created.body.uuid as string;
    expect(await stored('nodes', uuid)).toMatchObject({ version: NODE, instance_name: 'vm-a' });
    const port = await api.request('POST', '/v1/ports', { node_uuid: uuid, address: '52:54:00:ab:cd:10' });
    expect(await stored('ports', port.body.uuid as string)).toMatchObject({ version: PORT });

    // A pinned API reads the latest item and writes it back at 1.0, without the fields 2026.3 lacks.
    await pin('api');
    const patched = await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/extra/by', value: 'pinned' }]);
    expect(patched.status).toBe(200);
    const old = await stored('nodes', uuid);
    expect(old).toMatchObject({ version: '1.0', extra: { by: 'pinned' }, instance_info: { display_name: 'vm-a' } });
    expect(old).not.toHaveProperty('instance_name');
    const pinnedPort = await api.request('POST', '/v1/ports', { node_uuid: uuid, address: '52:54:00:ab:cd:11' });
    expect(await stored('ports', pinnedPort.body.uuid as string)).toMatchObject({ version: '1.0' });

    // A pinned conductor writes 1.0 too.
    stack.lambda.setAlias('api', 'live', unpinned.api);
    await pin('conductor');
    expect((await api.request('PUT', `/v1/nodes/${uuid}/states/power`, { target: 'power on' })).status).toBe(202);
    const deadline = Date.now() + 20_000;
    while ((await api.get(`/v1/nodes/${uuid}`)).body.power_state !== 'power on' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await stored('nodes', uuid)).toMatchObject({ version: '1.0', power_state: 'power on' });

    // Unpinned again: the 1.0 item is read with its instance_name computed, and written at the latest.
    stack.lambda.setAlias('conductor', 'live', unpinned.conductor);
    expect((await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/extra/by', value: 'unpinned' }])).status).toBe(200);
    expect(await stored('nodes', uuid)).toMatchObject({ version: NODE, instance_name: 'vm-a', extra: { by: 'unpinned' } });
  });
});
