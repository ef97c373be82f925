/**
 * Volume connectors and targets (API 1.32) on a local stack: Nova's cleanup read, every verb and
 * its errors, the unique values, the node's power state and lock, nested paths and the cascade of
 * a node's deletion. Ironic-exactness of each answer is the differential suite's job.
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
  api = new ApiClient(stack.url, '1.46');
  node1 = await create('/v1/nodes', { driver: 'fake-hardware', name: 'vol-1' });
  node2 = await create('/v1/nodes', { driver: 'fake-hardware', name: 'vol-2' });
}, 120_000);

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

/** Set node attributes behind the API's back (what a conductor would have done). */
async function setNode(uuid: string, values: Record<string, string | number | null>): Promise<void> {
  const ddb = new DynamoDBClient({
    endpoint: stack.endpoints.dynamodb,
    region: 'us-east-1',
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  });
  const names: Record<string, string> = {};
  const vals: Record<string, { S: string } | { NULL: true } | { N: string }> = { ':one': { N: '1' } };
  const sets = Object.entries(values).map(([k, v], i) => {
    names[`#f${i}`] = k;
    vals[`:v${i}`] = v === null ? { NULL: true } : typeof v === 'number' ? { N: String(v) } : { S: v };
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

describe('discovery and versions', () => {
  it('serves /v1/volume from 1.32 with its links, and 404s below', async () => {
    expectFault(
      await api.request('GET', '/v1/volume', undefined, { 'X-OpenStack-Ironic-API-Version': '1.31' }),
      404,
      'Resource could not be found.',
    );
    const old = await api.request('GET', '/v1/volume/connectors', undefined, { 'X-OpenStack-Ironic-API-Version': '1.31' });
    expect(old.status).toBe(404);
    const root = await api.get('/v1/volume');
    expect(root.status).toBe(200);
    expect(root.body.connectors[0]).toEqual({ href: `${stack.url}/v1/volume/connectors`, rel: 'self' });
    expect(root.body.targets[1]).toEqual({ href: `${stack.url}/volume/targets`, rel: 'bookmark' });
    const nested = await api.get('/v1/nodes/vol-1/volume');
    expect(nested.body.links[0].href).toBe(`${stack.url}/v1/nodes/vol-1/volume/`);
    const v1 = await api.get('/v1');
    expect(v1.body.volume).toBeDefined();
    const v1Old = await api.request('GET', '/v1', undefined, { 'X-OpenStack-Ironic-API-Version': '1.31' });
    expect(v1Old.body.volume).toBeUndefined();
  });

  it("answers Nova's cleanup read of a node's targets", async () => {
    const reply = await api.get(`/v1/nodes/${node1}/volume/targets?detail=True`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ targets: [] });
    expectFault(await api.get('/v1/nodes/vol-1/volume/targets'), 404, 'Node vol-1 could not be found.');
  });
});

describe('volume connectors', () => {
  it('creates, shows, lists (also per node), and refuses duplicates and unknown nodes', async () => {
    const body = { node_uuid: node1, type: 'iqn', connector_id: 'iqn.2026-11.org.example:vol-1', extra: { a: 1 } };
    const created = await api.request('POST', '/v1/volume/connectors', body);
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${stack.url}/v1/volume/connectors/${created.body.uuid}`);
    expect(created.body).toMatchObject({
      node_uuid: node1,
      type: 'iqn',
      connector_id: body.connector_id,
      extra: { a: 1 },
      updated_at: null,
    });
    const uuid = created.body.uuid as string;
    expectFault(
      await api.request('POST', '/v1/volume/connectors', { ...body, node_uuid: node2 }),
      409,
      `A volume connector with type iqn and connector ID ${body.connector_id} already exists.`,
    );
    expectFault(
      await api.request('POST', '/v1/volume/connectors', { ...body, node_uuid: '44444444-4444-4444-8444-444444444444' }),
      400,
      "Invalid input for field/attribute node_uuid. Value: '44444444-4444-4444-8444-444444444444'. ",
    );
    expectFault(await api.request('POST', '/v1/volume/connectors', { type: 'iqn' }), 400, /^Schema error for connector: /);
    expect((await api.request('POST', '/v1/volume/connectors', { ...body, connector_id: 'other', node_uuid: node2 })).status).toBe(201);

    const list = await api.get('/v1/volume/connectors');
    expect(list.body.connectors.map((c: Json) => Object.keys(c).sort())).toEqual([
      ['connector_id', 'links', 'node_uuid', 'type', 'uuid'],
      ['connector_id', 'links', 'node_uuid', 'type', 'uuid'],
    ]);
    const mine = await api.get(`/v1/nodes/${node1}/volume/connectors?detail=True`);
    expect(mine.body.connectors).toHaveLength(1);
    expect(mine.body.connectors[0].extra).toEqual({ a: 1 });
    expect((await api.get('/v1/volume/connectors?node=vol-2')).body.connectors.map((c: Json) => c.connector_id)).toEqual(['other']);
    const page = await api.get('/v1/volume/connectors?limit=1');
    expect(page.body.next).toBe(
      `${stack.url}/v1/volume/connectors?sort_key=id&sort_dir=asc&fields=uuid,node_uuid,type,connector_id&limit=1&marker=${uuid}`,
    );
    expect((await api.get(`/v1/volume/connectors?marker=${uuid}`)).body.connectors).toHaveLength(1);
    expectFault(await api.get('/v1/volume/connectors?sort_key=extra'), 400, 'The sort_key value extra is an invalid field for sorting');
    expectFault(await api.get('/v1/volume/connectors?fields=uuid&detail=True'), 400, "Can't fetch a subset of fields with 'detail' set");
    expect((await api.get(`/v1/volume/connectors/${uuid}?fields=type`)).body).toEqual({
      type: 'iqn',
      links: expect.any(Array),
    });
    expectFault(await api.get(`/v1/nodes/${node1}/volume/connectors/${uuid}`), 403, 'Operation not permitted.');
    expectFault(
      await api.get('/v1/volume/connectors/44444444-4444-4444-8444-444444444444'),
      404,
      'Volume connector 44444444-4444-4444-8444-444444444444 could not be found.',
    );
  });

  it('changes and deletes a connector only as the node allows: powered off to change, unlocked', async () => {
    const uuid = await create('/v1/volume/connectors', { node_uuid: node2, type: 'mac', connector_id: '52:54:00:aa:bb:cc' });
    const change = [{ op: 'replace', path: '/connector_id', value: '52:54:00:aa:bb:cd' }];
    expectFault(
      await api.request('PATCH', `/v1/volume/connectors/${uuid}`, change),
      400,
      `The requested action "volume connector update" can not be performed on node "${node2}" while it is in state "None".`,
    );
    await setNode(node2, { power_state: 'power off' });
    const patched = await api.request('PATCH', `/v1/volume/connectors/${uuid}`, change);
    expect(patched.status).toBe(200);
    expect(patched.body.connector_id).toBe('52:54:00:aa:bb:cd');
    expect(patched.body.updated_at).not.toBeNull();
    expectFault(
      await api.request('PATCH', `/v1/volume/connectors/${uuid}`, [{ op: 'replace', path: '/uuid', value: node1 }]),
      400,
      'Cannot patch /uuid. Only the following can be updated: connector_id, extra, node_uuid, type',
    );
    expectFault(
      await api.request('PATCH', `/v1/volume/connectors/${uuid}`, [{ op: 'replace', path: '/node_uuid', value: 'vol-1' }]),
      400,
      'Expected a UUID for node_uuid, but received vol-1.',
    );
    // A held lock: the API waits as the conductor does, then answers NodeLocked.
    await setNode(node2, { reservation: 'conductor-x', _lock_owner: 'token', _lock_exp: Date.now() + 60_000 });
    expectFault(await api.request('DELETE', `/v1/volume/connectors/${uuid}`), 409, /^Node .* is locked by host conductor-x/);
    await setNode(node2, { reservation: null, _lock_exp: 0 });
    // Powered on outside enroll, manageable and adopt failed: no deletion.
    await setNode(node2, { power_state: 'power on', provision_state: 'available' });
    expectFault(
      await api.request('DELETE', `/v1/volume/connectors/${uuid}`),
      400,
      `The requested action "volume connector deletion" can not be performed on node "${node2}" while it is in state "power on".`,
    );
    await setNode(node2, { provision_state: 'manageable' });
    expect((await api.request('DELETE', `/v1/volume/connectors/${uuid}`)).status).toBe(204);
    expect((await api.get(`/v1/volume/connectors/${uuid}`)).status).toBe(404);
    // Its (type, connector_id) is free again.
    expect(
      (await api.request('POST', '/v1/volume/connectors', { node_uuid: node1, type: 'mac', connector_id: '52:54:00:aa:bb:cd' })).status,
    ).toBe(201);
  });
});

describe('volume targets', () => {
  it('keeps boot_index unique per node, masks secrets in properties, and is refused nested', async () => {
    const body = {
      node_uuid: node1,
      volume_type: 'iscsi',
      boot_index: 0,
      volume_id: 'vol-a',
      properties: { auth_password: 'p', target_lun: 0 },
    };
    const created = await api.request('POST', '/v1/volume/targets', body);
    expect(created.status).toBe(201);
    expect(created.body.properties).toEqual({ auth_password: '******', target_lun: 0 });
    expectFault(
      await api.request('POST', '/v1/volume/targets', { ...body, volume_id: 'vol-b' }),
      409,
      "A volume target with boot index '0' for the same node already exists.",
    );
    expect((await api.request('POST', '/v1/volume/targets', { ...body, node_uuid: node2 })).status).toBe(201);
    expectFault(
      await api.request('POST', `/v1/nodes/${node1}/volume/targets`, { ...body, boot_index: 1 }),
      403,
      'Operation not permitted.',
    );
    const nova = await api.get(`/v1/nodes/${node1}/volume/targets?detail=True`);
    expect(nova.body.targets).toEqual([
      expect.objectContaining({
        uuid: created.body.uuid,
        volume_id: 'vol-a',
        boot_index: 0,
        properties: { auth_password: '******', target_lun: 0 },
      }),
    ]);
    expect(Object.keys((await api.get('/v1/volume/targets')).body.targets[0]).sort()).toEqual([
      'boot_index',
      'links',
      'node_uuid',
      'uuid',
      'volume_id',
      'volume_type',
    ]);
    expectFault(
      await api.get('/v1/volume/targets?sort_key=properties'),
      400,
      'The sort_key value properties is an invalid field for sorting',
    );
  });

  it("goes with its node, and frees the node's unique values", async () => {
    const node = await create('/v1/nodes', { driver: 'fake-hardware', name: 'vol-gone' });
    const target = await create('/v1/volume/targets', { node_uuid: node, volume_type: 'iscsi', boot_index: 0, volume_id: 'x' });
    const connector = await create('/v1/volume/connectors', { node_uuid: node, type: 'wwpn', connector_id: '5005076802233f2' });
    expect((await api.request('DELETE', `/v1/nodes/${node}`)).status).toBe(204);
    expect((await api.get(`/v1/volume/targets/${target}`)).status).toBe(404);
    expect((await api.get(`/v1/volume/connectors/${connector}`)).status).toBe(404);
    expect(
      (await api.request('POST', '/v1/volume/connectors', { node_uuid: node1, type: 'wwpn', connector_id: '5005076802233f2' })).status,
    ).toBe(201);
  });
});
