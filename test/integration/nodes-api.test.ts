/**
 * The node API on a local stack: updates are conditional writes (no lost update under concurrent
 * PATCHes, 409 on a locked node for every kind of change), maintenance, traits, shards and list
 * filters and ordering, secrets masked in replies. (Ironic-exactness of each answer is the
 * differential compat suite's job; these are the behaviours `npm test` guards.)
 */
import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
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

async function create(body: Record<string, unknown>): Promise<string> {
  const reply = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', ...body });
  if (reply.status !== 201) throw new Error(reply.text);
  return reply.body.uuid as string;
}

/** Lock a node as a conductor would, straight in the table. */
async function lock(uuid: string, host: string, forMs = 600_000): Promise<void> {
  const ddb = new DynamoDBClient({
    endpoint: stack.endpoints.dynamodb,
    region: 'us-east-1',
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  });
  await ddb.send(
    new UpdateItemCommand({
      TableName: stack.tables.nodes,
      Key: { uuid: { S: uuid } },
      UpdateExpression: 'SET reservation = :h, #o = :o, #e = :e, rev = rev + :one',
      ExpressionAttributeNames: { '#o': '_lock_owner', '#e': '_lock_exp' },
      ExpressionAttributeValues: {
        ':h': { S: host },
        ':o': { S: 'test-lock' },
        ':e': { N: String(Date.now() + forMs) },
        ':one': { N: '1' },
      },
    }),
  );
  ddb.destroy();
}

describe('updates are conditional writes', () => {
  it('concurrent PATCHes never lose an update: each is applied or refused with 409', async () => {
    const uuid = await create({ name: 'race-1' });
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) => api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: `/extra/k${i}`, value: i }])),
    );
    const applied = replies.flatMap((r, i) => (r.status === 200 ? [`k${i}`] : []));
    for (const r of replies) expect([200, 409]).toContain(r.status);
    expect(applied.length).toBeGreaterThan(0);
    const node = await api.get(`/v1/nodes/${uuid}`);
    expect(Object.keys(node.body.extra).sort()).toEqual(applied.sort());
  });

  it('two PATCHes of one node side by side both apply, as under Ironic’s lock', async () => {
    const uuid = await create({ name: 'race-2' });
    for (let round = 0; round < 5; round++) {
      const replies = await Promise.all(
        ['a', 'b'].map((k) => api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: `/extra/${k}${round}`, value: round }])),
      );
      expect(replies.map((r) => r.status)).toEqual([200, 200]);
    }
    const node = await api.get(`/v1/nodes/${uuid}`);
    expect(Object.keys(node.body.extra)).toHaveLength(10);
  });

  it('a locked node is not changed by PATCH, maintenance, traits or DELETE: 409 naming the holder', async () => {
    const uuid = await create({ name: 'locked-1' });
    await lock(uuid, 'conductor-x');
    const attempts = [
      await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/extra/a', value: 1 }]),
      await api.request('PUT', `/v1/nodes/${uuid}/maintenance`, { reason: 'r' }),
      await api.request('PUT', `/v1/nodes/${uuid}/traits/CUSTOM_A`),
      await api.request('DELETE', `/v1/nodes/${uuid}`),
    ];
    for (const reply of attempts) {
      expect(reply.status).toBe(409);
      expect(faultOf(reply).faultstring).toBe(
        `Node ${uuid} is locked by host conductor-x, please retry after the current operation is completed.`,
      );
    }
    const node = await api.get(`/v1/nodes/${uuid}`);
    expect(node.body).toMatchObject({ extra: {}, maintenance: false, traits: [], reservation: 'conductor-x' });
  });

  it("waits for a lock released within Ironic's retries (3 × 1 s) instead of answering 409", async () => {
    const uuid = await create({ name: 'locked-briefly' });
    await lock(uuid, 'conductor-x', 1_500);
    const started = Date.now();
    const reply = await api.request('PUT', `/v1/nodes/${uuid}/maintenance`, { reason: 'r' });
    expect(reply.status).toBe(202);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect((await api.get(`/v1/nodes/${uuid}`)).body).toMatchObject({ maintenance: true, maintenance_reason: 'r' });
  });
});

describe('PATCH', () => {
  it('applies a patch, keeps driver_info secrets masked in the reply, and refuses a field newer than the version with 406', async () => {
    const uuid = await create({ name: 'patch-1' });
    const reply = await api.request('PATCH', `/v1/nodes/patch-1`, [
      { op: 'add', path: '/driver_info/redfish_password', value: 'pw' },
      { op: 'replace', path: '/description', value: 'd' },
    ]);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ uuid, description: 'd', driver_info: { redfish_password: '******' } });
    const old = await new ApiClient(stack.url, '1.49').request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/owner', value: 'o' }]);
    expect(old.status).toBe(406);
  });

  it('refuses a failing operation as a whole: nothing of the patch is written', async () => {
    const uuid = await create({ name: 'patch-2' });
    const reply = await api.request('PATCH', `/v1/nodes/${uuid}`, [
      { op: 'add', path: '/extra/ok', value: 1 },
      { op: 'remove', path: '/extra/missing' },
    ]);
    expect(reply.status).toBe(400);
    expect(faultOf(reply).faultstring).toBe(
      "Couldn't apply patch '{'op': 'remove', 'path': '/extra/missing'}'. Reason: can't remove a non-existent object 'missing'",
    );
    expect((await api.get(`/v1/nodes/${uuid}`)).body.extra).toEqual({});
  });
});

describe('DELETE', () => {
  it('refuses a node with an instance unless it is in maintenance', async () => {
    const instance = '77777777-7777-4777-8777-777777777777';
    const uuid = await create({ name: 'del-1', instance_uuid: instance });
    const refused = await api.request('DELETE', '/v1/nodes/del-1');
    expect(refused.status).toBe(409);
    expect(faultOf(refused).faultstring).toBe(`Node ${uuid} is associated with instance ${instance}.`);
    await api.request('PUT', '/v1/nodes/del-1/maintenance');
    expect((await api.request('DELETE', '/v1/nodes/del-1')).status).toBe(204);
    // The name and the instance are free again.
    expect((await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: 'del-1', instance_uuid: instance })).status).toBe(201);
  });
});

describe('maintenance and traits', () => {
  it('sets maintenance with a reason and clears reason and fault when leaving it', async () => {
    await create({ name: 'maint-1' });
    expect((await api.request('PUT', '/v1/nodes/maint-1/maintenance', { reason: 'fan' })).status).toBe(202);
    expect((await api.get('/v1/nodes/maint-1?fields=maintenance,maintenance_reason')).body).toMatchObject({
      maintenance: true,
      maintenance_reason: 'fan',
    });
    expect((await api.request('DELETE', '/v1/nodes/maint-1/maintenance')).status).toBe(202);
    expect((await api.get('/v1/nodes/maint-1?fields=maintenance,maintenance_reason,fault')).body).toMatchObject({
      maintenance: false,
      maintenance_reason: null,
      fault: null,
    });
  });

  it('adds, replaces and removes traits, sorted and unique, at most 50', async () => {
    await create({ name: 'traits-1' });
    const one = await api.request('PUT', '/v1/nodes/traits-1/traits/CUSTOM_Z');
    expect(one.status).toBe(204);
    expect(one.headers.get('location')).toBe(`${stack.url}/v1/nodes/traits-1/traits/CUSTOM_Z`);
    await api.request('PUT', '/v1/nodes/traits-1/traits', { traits: ['CUSTOM_B', 'HW_CPU_X86_AVX2', 'CUSTOM_B'] });
    expect((await api.get('/v1/nodes/traits-1/traits')).body).toEqual({ traits: ['CUSTOM_B', 'HW_CPU_X86_AVX2'] });
    const bad = await api.request('PUT', '/v1/nodes/traits-1/traits/lower');
    expect(faultOf(bad).faultstring).toBe(
      "Schema error for trait: 'lower' is not valid under any of the given schemas. Possible root cause: 'lower' does not match '^CUSTOM_[A-Z0-9_]+$'",
    );
    const many = await api.request('PUT', '/v1/nodes/traits-1/traits', { traits: Array.from({ length: 51 }, (_, i) => `CUSTOM_${i}`) });
    expect(many.status).toBe(400);
    expect((await api.request('DELETE', '/v1/nodes/traits-1/traits/CUSTOM_B')).status).toBe(204);
    expect((await api.request('DELETE', '/v1/nodes/traits-1/traits/CUSTOM_B')).status).toBe(404);
    expect((await api.get('/v1/nodes/traits-1/traits')).body).toEqual({ traits: ['HW_CPU_X86_AVX2'] });
  });
});

describe('lists and shards', () => {
  it('filters by shard (as Ironic: lower-cased values), sharded, description and project, sorts with ties in the same direction, and counts shards', async () => {
    await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: 'sh-1', shard: 'east', description: 'Rack 7', lessee: 'p1' });
    await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: 'sh-2', shard: 'east' });
    await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: 'sh-3', shard: 'West' });
    const names = async (query: string) =>
      ((await api.get(`/v1/nodes?fields=name&${query}`)).body.nodes as { name: string }[]).map((n) => n.name);
    expect(await names('shard=EAST')).toEqual(['sh-1', 'sh-2']);
    expect(await names('shard=West')).toEqual([]);
    expect((await names('sharded=true')).filter((n) => n.startsWith('sh-'))).toEqual(['sh-1', 'sh-2', 'sh-3']);
    expect(await names('description_contains=rack_7')).toEqual(['sh-1']);
    expect(await names('project=p1')).toEqual(['sh-1']);
    const desc = await names('shard=east&sort_key=shard&sort_dir=desc');
    expect(desc).toEqual(['sh-2', 'sh-1']);
    const shards = await api.get('/v1/shards');
    expect(shards.body.shards.slice(0, 2)).toEqual([
      { name: 'None', count: expect.any(Number) },
      { name: 'east', count: 2 },
    ]);
    expect(shards.body.shards).toContainEqual({ name: 'West', count: 1 });
    const old = await new ApiClient(stack.url, '1.81').get('/v1/shards');
    expect(old.status).toBe(404);
  });

  it('answers an unknown marker with 404 and pages with Ironic’s next link', async () => {
    const missing = await api.get('/v1/nodes?marker=44444444-4444-4444-8444-444444444444');
    expect(missing.status).toBe(404);
    const page = await api.get('/v1/nodes?limit=1&maintenance=false&detail=False');
    expect(page.body.next).toMatch(/\/v1\/nodes\?sort_key=id&sort_dir=asc&detail=False&fields=.*&limit=1&marker=/);
  });
});

describe('objects larger than an item may be', () => {
  it('are refused with 400 and nothing is written, on create and on PATCH', async () => {
    const blob = 'x'.repeat(450_000);
    const created = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: 'too-big', extra: { blob } });
    expect(created.status).toBe(400);
    expect(faultOf(created).faultstring).toMatch(/^The object is too large to be stored: a stored object holds at most 400 KB/);
    expect((await api.get('/v1/nodes/too-big')).status).toBe(404);

    const uuid = await create({ name: 'grows', extra: { a: 1 } });
    const patched = await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/extra/blob', value: blob }]);
    expect(patched.status).toBe(400);
    expect(faultOf(patched).faultstring).toMatch(/too large to be stored/);
    expect((await api.get(`/v1/nodes/${uuid}`)).body.extra).toEqual({ a: 1 });
  });
});

describe('configdrive on deploy, checked as Ironic checks it', () => {
  const deploy = (uuid: string, configdrive: unknown, version = '1.82', target = 'active') =>
    new ApiClient(stack.url, version).request('PUT', `/v1/nodes/${uuid}/states/provision`, { target, configdrive });
  let uuid: string;

  beforeAll(async () => {
    uuid = await create({ name: 'cd-1' });
    await api.provision(uuid, 'manage');
    await api.waitFor(uuid, 'manageable');
    await api.provision(uuid, 'provide');
    await api.waitFor(uuid, 'available');
  }, 60_000);

  it('refuses bad configdrives with Ironic’s messages and changes nothing', async () => {
    const cases: [unknown, string, string, string?][] = [
      [[1], '1.82', "Expected types <class 'NoneType'>, <class 'dict'>, <class 'str'> for configdrive: [1]"],
      ['Zm9v', '1.82', 'Adding a config drive is only supported when setting provision state to active, rebuild', 'deploy'],
      ['Zm9v', '1.34', 'Adding a config drive is only supported when setting provision state to active', 'manage'],
      [{ meta_data: {} }, '1.55', 'Providing a JSON object for configdrive is only supported starting with API version 1.56'],
      [{ vendor_data: {} }, '1.58', 'Providing vendor_data in configdrive is only supported starting with API version 1.59'],
      ['not base64!', '1.82', 'Invalid configdrive format: it is neither a JSON, nor a URL, nor a base64 string'],
      [
        { meta_data: 'x' },
        '1.82',
        "Invalid configdrive format: 'x' is not of type 'object'\n\nFailed validating 'type' in schema[0]['properties']['meta_data']:\n    {'type': 'object'}\n\nOn instance['meta_data']:\n    'x'",
      ],
      [
        { foo: 1 },
        '1.82',
        "Invalid configdrive format: Additional properties are not allowed ('foo' was unexpected)\n\n" +
          "Failed validating 'additionalProperties' in schema[0]:\n" +
          "    {'additionalProperties': False,\n" +
          "     'properties': {'meta_data': {'type': 'object'},\n" +
          "                    'network_data': {'type': 'object'},\n" +
          "                    'user_data': {'type': ['object',\n" +
          "                                           'array',\n" +
          "                                           'string',\n" +
          "                                           'null']},\n" +
          "                    'vendor_data': {'type': 'object'}},\n" +
          "     'type': 'object'}\n\nOn instance:\n    {'foo': 1}",
      ],
    ];
    for (const [configdrive, version, message, target] of cases) {
      const reply = await deploy(uuid, configdrive, version, target);
      expect({ status: reply.status, message: faultOf(reply).faultstring }).toEqual({ status: 400, message });
    }
    const node = (await api.get(`/v1/nodes/${uuid}`)).body;
    expect(node).toMatchObject({ provision_state: 'available', target_provision_state: null, instance_info: {} });
  });

  it('accepts a JSON configdrive at active, shown masked', async () => {
    await deploy(uuid, { meta_data: { hostname: 'h1' }, user_data: '#cloud-config\n' });
    await api.waitFor(uuid, 'active');
    const node = (await api.get(`/v1/nodes/${uuid}`)).body;
    expect(node.instance_info).toEqual({ configdrive: '******' });
  });
});
