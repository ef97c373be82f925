/**
 * Ports, portgroups, chassis and deploy templates on a local stack: every verb and its errors,
 * fields per microversion, nested lists, pagination, and the checks that depend on the node (its
 * lock, its state, VIFs). Ironic-exactness of every answer is the differential suite's job; these
 * are the behaviours `npm test` guards.
 */
import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { LocalStack } from '../../local/stack';
import { ApiClient, type Json, faultOf, startStack } from './helpers/stack';

let stack: LocalStack;
let api: ApiClient;
let node1: string;
let node2: string;

beforeAll(async () => {
  stack = await startStack();
  api = new ApiClient(stack.url, '1.82');
  node1 = await create('/v1/nodes', { driver: 'fake-hardware', name: 'res-1' });
  node2 = await create('/v1/nodes', { driver: 'fake-hardware', name: 'res-2', shard: 'blue' });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

async function create(path: string, body: Record<string, unknown>): Promise<string> {
  const reply = await api.request('POST', path, body);
  if (reply.status !== 201) throw new Error(`${path}: ${reply.status} ${reply.text}`);
  return reply.body.uuid as string;
}

function expectFault(reply: { status: number; body: Json; text: string }, status: number, message: string | RegExp): void {
  expect({ status: reply.status, text: reply.text }).toMatchObject({ status });
  const fault = faultOf(reply as never);
  const text = fault.faultstring ?? fault.description;
  if (typeof message === 'string') expect(text).toBe(message);
  else expect(text).toMatch(message);
}

async function setNode(uuid: string, values: Record<string, string | null>): Promise<void> {
  const ddb = new DynamoDBClient({
    endpoint: stack.endpoints.dynamodb,
    region: 'us-east-1',
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  });
  const names: Record<string, string> = {};
  const vals: Record<string, { S: string } | { NULL: true } | { N: string }> = { ':one': { N: '1' } };
  const sets = Object.entries(values).map(([k, v], i) => {
    names[`#f${i}`] = k;
    vals[`:v${i}`] = v === null ? { NULL: true } : { S: v };
    return `#f${i} = :v${i}`;
  });
  await ddb.send(
    new UpdateItemCommand({
      TableName: stack.tables.nodes,
      Key: { uuid: { S: uuid } },
      UpdateExpression: `SET ${sets.join(', ')}, rev = rev + :one`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: vals,
    }),
  );
  ddb.destroy();
}

describe('chassis', () => {
  it('creates, shows, lists, patches and deletes; deletion is refused while nodes are in it', async () => {
    const created = await api.request('POST', '/v1/chassis', { description: 'rack', extra: { row: 1 } });
    expect(created.status).toBe(201);
    const uuid = created.body.uuid as string;
    expect(created.headers.get('location')).toBe(`${stack.url}/v1/chassis/${uuid}`);
    expect(created.body.nodes).toEqual([
      [
        { href: `${stack.url}/v1/chassis/${uuid}/nodes`, rel: 'self' },
        { href: `${stack.url}/chassis/${uuid}/nodes`, rel: 'bookmark' },
      ],
    ]);
    expect(created.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+00:00$/);

    expect((await api.get('/v1/chassis')).body.chassis.map((c: Json) => Object.keys(c).sort())).toContainEqual([
      'description',
      'links',
      'uuid',
    ]);
    expect((await api.get(`/v1/chassis/${uuid}?fields=extra`)).body).toEqual({ extra: { row: 1 }, links: expect.any(Array) });
    expectFault(await api.get('/v1/chassis/abc'), 400, 'Expected UUID for chassis_uuid: abc');
    expectFault(await api.request('POST', '/v1/chassis', { description: 'x'.repeat(256) }), 400, /^Schema error for chassis: /);

    const patched = await api.request('PATCH', `/v1/chassis/${uuid}`, [{ op: 'replace', path: '/description', value: 'rack 2' }]);
    expect(patched.body).toMatchObject({ description: 'rack 2', updated_at: expect.any(String) });
    expectFault(
      await api.request('PATCH', `/v1/chassis/${uuid}`, [{ op: 'replace', path: '/uuid', value: '44444444-4444-4444-8444-444444444444' }]),
      400,
      'Cannot overwrite UUID for an existing Chassis.',
    );

    const node = await create('/v1/nodes', { driver: 'fake-hardware', chassis_uuid: uuid });
    expect((await api.get(`/v1/chassis/${uuid}/nodes`)).body.nodes.map((n: Json) => n.uuid)).toEqual([node]);
    expect((await api.get(`/v1/nodes/${node}?fields=chassis_uuid`)).body.chassis_uuid).toBe(uuid);
    expectFault(
      await api.request('DELETE', `/v1/chassis/${uuid}`),
      400,
      `Cannot complete the requested action because chassis ${uuid} contains nodes.`,
    );
    expectFault(
      await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', chassis_uuid: '44444444-4444-4444-8444-444444444444' }),
      400,
      'Chassis 44444444-4444-4444-8444-444444444444 could not be found.',
    );
    expect((await api.request('PATCH', `/v1/nodes/${node}`, [{ op: 'remove', path: '/chassis_uuid' }])).body.chassis_uuid).toBeNull();
    expect((await api.request('DELETE', `/v1/chassis/${uuid}`)).status).toBe(204);
    expectFault(await api.get(`/v1/chassis/${uuid}`), 404, `Chassis ${uuid} could not be found.`);
    expect((await api.request('DELETE', `/v1/nodes/${node}`)).status).toBe(204);
  });
});

describe('portgroups', () => {
  it('creates with the default mode, refuses duplicates, hides nothing by version but refuses asking for mode before 1.26', async () => {
    const pg = await api.request('POST', '/v1/portgroups', { node_uuid: node1, name: 'bond0', address: 'AA:BB:CC:00:00:01' });
    expect(pg.status).toBe(201);
    expect(pg.body).toMatchObject({ mode: 'active-backup', address: 'aa:bb:cc:00:00:01', standalone_ports_supported: true });
    expectFault(
      await api.request('POST', '/v1/portgroups', { node_uuid: node1, name: 'bond0' }),
      409,
      'A portgroup with name bond0 already exists.',
    );
    expectFault(
      await api.request('POST', '/v1/portgroups', { node_uuid: node2, address: 'aa:bb:cc:00:00:01' }),
      409,
      'A portgroup with MAC address aa:bb:cc:00:00:01 already exists.',
    );
    expectFault(
      await api.request('POST', '/v1/portgroups', { node_uuid: node1, address: 'x' }),
      400,
      'Expected valid MAC address for address: x',
    );
    expectFault(
      await api.request('POST', '/v1/portgroups', { node_uuid: node1, name: 'a b' }),
      400,
      "Cannot create portgroup with invalid name 'a b'",
    );
    const old = new ApiClient(stack.url, '1.25');
    expect((await old.get('/v1/portgroups/bond0')).body.mode).toBe('active-backup');
    expect((await old.get('/v1/portgroups/bond0?fields=mode')).status).toBe(406);
    expect((await new ApiClient(stack.url, '1.22').get('/v1/portgroups')).status).toBe(404);
    expect((await api.get(`/v1/nodes/${node1}/portgroups`)).body.portgroups.map((p: Json) => p.name)).toEqual(['bond0']);
    expectFault(await api.get(`/v1/nodes/${node1}/portgroups/bond0`), 403, 'Operation not permitted.');
  });

  it('patches, refuses removing mode, and refuses deleting a portgroup with ports', async () => {
    const uuid = await create('/v1/portgroups', { node_uuid: node2, name: 'bond1' });
    const patched = await api.request('PATCH', '/v1/portgroups/bond1', [
      { op: 'replace', path: '/mode', value: '802.3ad' },
      { op: 'add', path: '/properties/miimon', value: 100 },
    ]);
    expect(patched.body).toMatchObject({ mode: '802.3ad', properties: { miimon: 100 } });
    expectFault(
      await api.request('PATCH', '/v1/portgroups/bond1', [{ op: 'remove', path: '/mode' }]),
      400,
      "'mode' is a mandatory attribute and can not be removed",
    );
    expectFault(
      await api.request('PATCH', '/v1/portgroups/bond1', [{ op: 'add', path: '/internal_info/x', value: 1 }]),
      400,
      /^Cannot patch \/internal_info\/x\. Only the following can be updated: address, extra, mode/,
    );
    const port = await create('/v1/ports', { node_uuid: node2, address: 'aa:bb:cc:00:01:01', portgroup_uuid: uuid });
    expectFault(
      await api.request('DELETE', '/v1/portgroups/bond1'),
      400,
      `Cannot complete the requested action because portgroup ${uuid} contains ports.`,
    );
    expect((await api.get(`/v1/portgroups/${uuid}/ports`)).body.ports.map((p: Json) => p.uuid)).toEqual([port]);
    expect((await api.request('DELETE', `/v1/ports/${port}`)).status).toBe(204);
    expect((await api.request('DELETE', '/v1/portgroups/bond1')).status).toBe(204);
    expectFault(await api.get('/v1/portgroups/bond1'), 404, 'Portgroup bond1 could not be found.');
  });
});

describe('ports', () => {
  it('creates with a lower-cased MAC, refuses a duplicate address with 409, shows fields by version', async () => {
    const reply = await api.request('POST', '/v1/ports', { node_uuid: node1, address: '52:54:00:AA:00:01', physical_network: 'net1' });
    expect(reply.status).toBe(201);
    const uuid = reply.body.uuid as string;
    expect(reply.body).toMatchObject({ address: '52:54:00:aa:00:01', pxe_enabled: true, is_smartnic: false, portgroup_uuid: null });
    expect(reply.headers.get('location')).toBe(`${stack.url}/v1/ports/${uuid}`);
    expectFault(
      await api.request('POST', '/v1/ports', { node_uuid: node2, address: '52:54:00:aa:00:01' }),
      409,
      'A port with MAC address 52:54:00:aa:00:01 already exists.',
    );
    expectFault(
      await api.request('POST', '/v1/ports', { node_uuid: node1, address: '52:54:00:aa:00' }),
      400,
      'Expected valid MAC address for address: 52:54:00:aa:00',
    );
    expectFault(
      await api.request('POST', '/v1/ports', { node_uuid: '44444444-4444-4444-8444-444444444444', address: '52:54:00:aa:00:09' }),
      400,
      'Node 44444444-4444-4444-8444-444444444444 could not be found.',
    );
    expect(
      (
        await new ApiClient(stack.url, '1.33').request('POST', '/v1/ports', {
          node_uuid: node1,
          address: '52:54:00:aa:00:09',
          physical_network: 'x',
        })
      ).status,
    ).toBe(406);

    const at118 = (await new ApiClient(stack.url, '1.18').get(`/v1/ports/${uuid}`)).body;
    expect(Object.keys(at118).sort()).toEqual([
      'address',
      'created_at',
      'extra',
      'internal_info',
      'links',
      'node_uuid',
      'updated_at',
      'uuid',
    ]);
    const latest = (await api.get(`/v1/ports/${uuid}`)).body;
    expect(latest).toHaveProperty('is_smartnic');
    expect(latest).toHaveProperty('physical_network', 'net1');
    expectFault(await api.get(`/v1/ports/${uuid}?fields=bogus`), 400, 'Field(s) "bogus" are not valid');
    expectFault(await api.get('/v1/ports/nope'), 400, 'Expected UUID for port_uuid: nope');
  });

  it('lists with filters, nested paths, shards, pages with next links and refuses two exclusive filters', async () => {
    const a = await create('/v1/ports', { node_uuid: node2, address: '52:54:00:bb:00:01' });
    const b = await create('/v1/ports', { node_uuid: node2, address: '52:54:00:bb:00:02' });
    expect((await api.get('/v1/ports?node=res-2')).body.ports.map((p: Json) => p.uuid)).toEqual([a, b]);
    expect((await api.get(`/v1/nodes/${node2}/ports`)).body.ports).toEqual([
      { uuid: a, address: '52:54:00:bb:00:01', links: expect.any(Array) },
      { uuid: b, address: '52:54:00:bb:00:02', links: expect.any(Array) },
    ]);
    expect((await api.get('/v1/ports?shard=blue')).body.ports.map((p: Json) => p.uuid)).toEqual([a, b]);
    expect((await api.get('/v1/ports?address=52:54:00:BB:00:02')).body.ports.map((p: Json) => p.uuid)).toEqual([b]);
    const page = await api.get(`/v1/ports?node_uuid=${node2}&limit=1`);
    expect(page.body.next).toBe(`${stack.url}/v1/ports?sort_key=id&sort_dir=asc&fields=uuid,address&limit=1&marker=${a}`);
    expect((await api.get(`/v1/ports?node_uuid=${node2}&limit=1&marker=${a}`)).body.ports.map((p: Json) => p.uuid)).toEqual([b]);
    expectFault(await api.get('/v1/ports?node=res-2&shard=blue'), 403, 'Operation not permitted.');
    expectFault(await api.get('/v1/ports?sort_key=extra'), 400, 'The sort_key value extra is an invalid field for sorting');
    expectFault(
      await new ApiClient(stack.url, '1.81').get('/v1/ports?shard=blue'),
      406,
      'Request not acceptable. The minimal required API version should be 1.82',
    );
    expect((await api.get('/v1/ports/detail?node=res-2')).body.ports[0]).toHaveProperty('local_link_connection', {});
  });

  it('patches connectivity only in enroll, manageable or inspecting states, the address not while active', async () => {
    const node = await create('/v1/nodes', { driver: 'fake-hardware' });
    const port = await create('/v1/ports', { node_uuid: node, address: '52:54:00:cc:00:01' });
    const pxeOff = [{ op: 'replace', path: '/pxe_enabled', value: false }];
    expect((await api.request('PATCH', `/v1/ports/${port}`, pxeOff)).body.pxe_enabled).toBe(false);
    await setNode(node, { provision_state: 'active' });
    expectFault(
      await api.request('PATCH', `/v1/ports/${port}`, [{ op: 'replace', path: '/pxe_enabled', value: true }]),
      409,
      /^Port .* can not have any connectivity attributes \(.*\) updated unless node .* is in a enroll, inspecting, inspect wait, manageable state or in maintenance mode\. The current state is active\.$/,
    );
    expectFault(
      await api.request('PATCH', `/v1/ports/${port}`, [{ op: 'replace', path: '/address', value: '52:54:00:cc:00:02' }]),
      409,
      `Cannot update hardware address for port ${port} as node ${node} is active or has instance UUID assigned`,
    );
    expect((await api.request('PATCH', `/v1/ports/${port}`, [{ op: 'add', path: '/extra/a', value: 1 }])).body.extra).toEqual({ a: 1 });
    expectFault(
      await api.request('PATCH', `/v1/ports/${port}`, [{ op: 'replace', path: '/node_uuid', value: 'res-1' }]),
      400,
      'Expected a UUID or int but received res-1.',
    );
    expect((await api.get(`/v1/ports/${port}`)).body.address).toBe('52:54:00:cc:00:01');
  });

  it('refuses changes while the node is locked, and deleting a port bound to a VIF unless in maintenance', async () => {
    const node = await create('/v1/nodes', { driver: 'fake-hardware' });
    const port = await create('/v1/ports', { node_uuid: node, address: '52:54:00:dd:00:01' });
    const ddb = new DynamoDBClient({
      endpoint: stack.endpoints.dynamodb,
      region: 'us-east-1',
      credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
    });
    await ddb.send(
      new UpdateItemCommand({
        TableName: stack.tables.ports,
        Key: { uuid: { S: port } },
        UpdateExpression: 'SET internal_info = :i, rev = rev + :one',
        ExpressionAttributeValues: { ':i': { M: { tenant_vif_port_id: { S: 'vif-1' } } }, ':one': { N: '1' } },
      }),
    );
    await ddb.send(
      new UpdateItemCommand({
        TableName: stack.tables.nodes,
        Key: { uuid: { S: node } },
        UpdateExpression: 'SET reservation = :h, #o = :o, #e = :e, rev = rev + :one',
        ExpressionAttributeNames: { '#o': '_lock_owner', '#e': '_lock_exp' },
        ExpressionAttributeValues: {
          ':h': { S: 'host-1' },
          ':o': { S: 't' },
          ':e': { N: String(Date.now() + 600_000) },
          ':one': { N: '1' },
        },
      }),
    );
    const locked = `Node ${node} is locked by host host-1, please retry after the current operation is completed.`;
    expectFault(await api.request('PATCH', `/v1/ports/${port}`, [{ op: 'add', path: '/extra/a', value: 1 }]), 409, locked);
    expectFault(await api.request('DELETE', `/v1/ports/${port}`), 409, locked);
    expectFault(await api.request('POST', '/v1/ports', { node_uuid: node, address: '52:54:00:dd:00:02' }), 409, locked);
    await ddb.send(
      new UpdateItemCommand({
        TableName: stack.tables.nodes,
        Key: { uuid: { S: node } },
        UpdateExpression: 'SET reservation = :n, rev = rev + :one REMOVE #o, #e',
        ExpressionAttributeNames: { '#o': '_lock_owner', '#e': '_lock_exp' },
        ExpressionAttributeValues: { ':n': { NULL: true }, ':one': { N: '1' } },
      }),
    );
    ddb.destroy();
    expectFault(
      await api.request('DELETE', `/v1/ports/${port}`),
      409,
      `Cannot delete the port ${port} as it is bound to VIF vif-1 for tenant use.`,
    );
    expect((await api.request('PATCH', `/v1/nodes/${node}`, [{ op: 'replace', path: '/maintenance', value: true }])).status).toBe(200);
    expect((await api.request('DELETE', `/v1/ports/${port}`)).status).toBe(204);
    expectFault(await api.get(`/v1/ports/${port}`), 404, `Port ${port} could not be found.`);
  });
});

describe('deploy templates', () => {
  const steps = [{ interface: 'bios', step: 'apply_configuration', args: { settings: [], password: 'pw' }, priority: 10 }];

  it('creates with a trait name, masks secrets in step arguments, refuses duplicates and bad steps', async () => {
    expect((await new ApiClient(stack.url, '1.54').get('/v1/deploy_templates')).status).toBe(404);
    const created = await api.request('POST', '/v1/deploy_templates', { name: 'CUSTOM_BIOS', steps, extra: { a: 1 } });
    expect(created.status).toBe(201);
    expect(created.body.steps).toEqual([{ ...steps[0], args: { settings: [], password: '******' } }]);
    expectFault(
      await api.request('POST', '/v1/deploy_templates', { name: 'CUSTOM_BIOS', steps }),
      409,
      'A deploy template with name CUSTOM_BIOS already exists.',
    );
    expectFault(
      await api.request('POST', '/v1/deploy_templates', { name: 'bios', steps }),
      400,
      /^Schema error for template: 'bios' is not valid under any of the given schemas/,
    );
    expectFault(
      await api.request('POST', '/v1/deploy_templates', { name: 'CUSTOM_X', steps: [{ ...steps[0], interface: 'boot' }] }),
      400,
      "Schema error for template: 'boot' is not one of ['vendor', 'power', 'management', 'firmware', 'deploy', 'bios', 'raid']",
    );
    expectFault(
      await api.request('POST', '/v1/deploy_templates', { name: 'CUSTOM_X', steps: [steps[0], { ...steps[0], priority: 1 }] }),
      400,
      'Deploy template invalid: Duplicate deploy steps. A deploy template cannot have multiple deploy steps with the same interface and step. Duplicates: interface: bios, step: apply_configuration.',
    );
    expect((await api.get('/v1/deploy_templates')).body.deploy_templates).toEqual([
      { uuid: created.body.uuid, name: 'CUSTOM_BIOS', links: expect.any(Array) },
    ]);
  });

  it('patches by name, validates the patched steps, and deletes', async () => {
    await create('/v1/deploy_templates', { name: 'CUSTOM_P', steps });
    const renamed = await api.request('PATCH', '/v1/deploy_templates/CUSTOM_P', [
      { op: 'replace', path: '/name', value: 'CUSTOM_Q' },
      { op: 'add', path: '/steps/-', value: { interface: 'raid', step: 'create_configuration', args: {}, priority: 5 } },
    ]);
    expect(renamed.body).toMatchObject({ name: 'CUSTOM_Q', steps: [{ interface: 'bios' }, { interface: 'raid' }] });
    expectFault(
      await api.request('PATCH', '/v1/deploy_templates/CUSTOM_Q', [{ op: 'add', path: '/steps/0/priority', value: -1 }]),
      400,
      'Schema error for patch: -1 is less than the minimum of 0',
    );
    expectFault(
      await api.request('PATCH', '/v1/deploy_templates/CUSTOM_Q', [{ op: 'remove', path: '/steps' }]),
      400,
      "Schema error for patch: 'steps' is a required property",
    );
    expect((await api.request('DELETE', '/v1/deploy_templates/CUSTOM_Q')).status).toBe(204);
    expectFault(await api.get('/v1/deploy_templates/CUSTOM_Q'), 404, 'Deploy template CUSTOM_Q could not be found.');
  });
});
