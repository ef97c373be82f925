/**
 * Allocations on a local stack: the API creates them `allocating` and the conductor (over SQS)
 * reserves a matching node — resource class, traits, candidates, owner — or fails them with
 * Ironic's message; concurrent allocations never share a node; backfilling; deleting frees the
 * node, and is refused for an active node; the node's own allocation sub-resource.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../local/stack';
import { ApiClient, type Json, faultOf, startStack } from './helpers/stack';

let stack: LocalStack;
let api: ApiClient;
let db: DynamoDBDocumentClient;

beforeAll(async () => {
  stack = await startStack();
  api = new ApiClient(stack.url, '1.82');
  db = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: stack.endpoints.dynamodb,
      region: 'us-east-1',
      credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
    }),
  );
}, 60_000);

afterAll(async () => {
  db?.destroy();
  await stack?.stop();
});

/** A fake-hardware node put straight into `state` (powered off), as the provisioning flows would leave it. */
async function nodeIn(state: string, body: Record<string, unknown> = {}, traits: string[] = []): Promise<string> {
  const created = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', ...body });
  if (created.status !== 201) throw new Error(created.text);
  const uuid = created.body.uuid as string;
  if (traits.length > 0) expect((await api.request('PUT', `/v1/nodes/${uuid}/traits`, { traits })).status).toBe(204);
  await db.send(
    new UpdateCommand({
      TableName: stack.tables.nodes,
      Key: { uuid },
      UpdateExpression: 'SET provision_state = :s, #p = :s, power_state = :off',
      ExpressionAttributeNames: { '#p': '_pstate' },
      ExpressionAttributeValues: { ':s': state, ':off': 'power off' },
    }),
  );
  return uuid;
}

async function allocate(body: Record<string, unknown>): Promise<Json> {
  const reply = await api.request('POST', '/v1/allocations', body);
  if (reply.status !== 201) throw new Error(`${reply.status} ${reply.text}`);
  expect(reply.body.state).toBe('allocating');
  expect(reply.headers.get('location')).toBe(`${stack.url}/v1/allocations/${reply.body.uuid}`);
  return reply.body;
}

/** Poll until the allocation leaves `allocating`. */
async function settled(uuid: string): Promise<Json> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const reply = await api.get(`/v1/allocations/${uuid}`);
    if (reply.body.state !== 'allocating') return reply.body;
    if (Date.now() > deadline) throw new Error(`allocation ${uuid} still allocating`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the allocation process', () => {
  it('reserves an available node of the resource class with the traits, and associates it', async () => {
    const rc = 'rc-match';
    await nodeIn('available', { resource_class: rc }, ['CUSTOM_A']);
    await nodeIn('manageable', { resource_class: rc }, ['CUSTOM_A', 'CUSTOM_B']);
    const good = await nodeIn('available', { resource_class: rc }, ['CUSTOM_A', 'CUSTOM_B']);
    const created = await allocate({ resource_class: rc, traits: ['CUSTOM_B'], name: 'alloc-1', extra: { k: 'v' } });
    const done = await settled(created.uuid);
    expect(done).toMatchObject({ state: 'active', node_uuid: good, last_error: null, name: 'alloc-1', traits: ['CUSTOM_B'] });
    // The allocation turns active under the node's lock, as in Ironic; the lock goes right after.
    const node = await api.unlocked(good);
    expect(node).toMatchObject({ instance_uuid: created.uuid, allocation_uuid: created.uuid, reservation: null });
    expect(node.instance_info.traits).toEqual(['CUSTOM_B']);
    expect((await api.get(`/v1/nodes/${good}/allocation`)).body.uuid).toBe(created.uuid);
    expect((await api.get(`/v1/allocations?node=${good}`)).body.allocations.map((a: Json) => a.uuid)).toEqual([created.uuid]);
  });

  it('fails with Ironic last_error messages when nothing matches', async () => {
    const none = await allocate({ resource_class: 'rc-nothing' });
    expect(await settled(none.uuid)).toMatchObject({
      state: 'error',
      node_uuid: null,
      last_error: `Failed to process allocation ${none.uuid}: no available nodes match the resource class rc-nothing.`,
    });
    await nodeIn('available', { resource_class: 'rc-traits' }, ['CUSTOM_A']);
    const traits = await allocate({ resource_class: 'rc-traits', traits: ['CUSTOM_Z'] });
    expect((await settled(traits.uuid)).last_error).toBe(
      `Failed to process allocation ${traits.uuid}: no suitable nodes have the requested traits CUSTOM_Z.`,
    );
  });

  it('takes only candidate nodes and the owner’s nodes', async () => {
    const rc = 'rc-cand';
    await nodeIn('available', { resource_class: rc });
    const named = await nodeIn('available', { resource_class: rc, name: 'cand-2' });
    const a = await allocate({ resource_class: rc, candidate_nodes: ['cand-2'] });
    expect(a.candidate_nodes).toEqual([named]);
    expect(await settled(a.uuid)).toMatchObject({ state: 'active', node_uuid: named });

    const owned = await nodeIn('available', { resource_class: 'rc-owner' });
    await nodeIn('available', { resource_class: 'rc-owner' });
    expect((await api.request('PATCH', `/v1/nodes/${owned}`, [{ op: 'add', path: '/owner', value: 'proj-1' }])).status).toBe(200);
    const b = await allocate({ resource_class: 'rc-owner', owner: 'proj-1' });
    expect(await settled(b.uuid)).toMatchObject({ state: 'active', node_uuid: owned, owner: 'proj-1' });
  });

  it('never gives one node to two concurrent allocations', async () => {
    const rc = 'rc-race';
    const nodes = [await nodeIn('available', { resource_class: rc }), await nodeIn('available', { resource_class: rc })];
    const created = await Promise.all(Array.from({ length: 5 }, () => allocate({ resource_class: rc })));
    const results = await Promise.all(created.map((c) => settled(c.uuid)));
    const active = results.filter((r) => r.state === 'active');
    expect(active).toHaveLength(2);
    expect(active.map((r) => r.node_uuid).sort()).toEqual([...nodes].sort());
    for (const r of results.filter((x) => x.state !== 'active')) {
      expect(r.state).toBe('error');
      expect(r.last_error).toMatch(
        /^Failed to process allocation .*: (no available nodes match the resource class rc-race|all nodes were filtered out during reservation|could not reserve any of \d+ suitable nodes)\.$/,
      );
    }
    for (const uuid of nodes) {
      const node = (await api.get(`/v1/nodes/${uuid}`)).body;
      expect(active.filter((r) => r.uuid === node.instance_uuid)).toHaveLength(1);
    }
  });
});

describe('deleting allocations', () => {
  it('frees the node; the node sub-resource deletes it too', async () => {
    const node = await nodeIn('available', { resource_class: 'rc-del' });
    const a = await allocate({ resource_class: 'rc-del' });
    await settled(a.uuid);
    expect((await api.request('DELETE', `/v1/allocations/${a.uuid}`)).status).toBe(204);
    expect((await api.get(`/v1/allocations/${a.uuid}`)).status).toBe(404);
    expect((await api.get(`/v1/nodes/${node}`)).body).toMatchObject({ instance_uuid: null, allocation_uuid: null });

    const b = await allocate({ resource_class: 'rc-del' });
    expect(await settled(b.uuid)).toMatchObject({ node_uuid: node });
    expect((await api.request('DELETE', `/v1/nodes/${node}/allocation`)).status).toBe(204);
    const missing = await api.get(`/v1/nodes/${node}/allocation`);
    expect(missing.status).toBe(404);
    expect(faultOf(missing).faultstring).toBe(`Allocation for node ${node} was not found`);
  });

  it('is refused for an active node outside maintenance', async () => {
    const node = await nodeIn('active', { resource_class: 'rc-bf' });
    const a = await api.request('POST', '/v1/allocations', { node });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ state: 'active', node_uuid: node, resource_class: 'rc-bf' });
    const refused = await api.request('DELETE', `/v1/allocations/${a.body.uuid}`);
    expect(refused.status).toBe(409);
    expect(faultOf(refused).faultstring).toBe(
      `Cannot remove allocation ${a.body.uuid} for node ${node}, because the node is active (and maintenance mode is off)`,
    );
    expect((await api.request('PATCH', `/v1/nodes/${node}`, [{ op: 'replace', path: '/maintenance', value: true }])).status).toBe(200);
    expect((await api.request('DELETE', `/v1/allocations/${a.body.uuid}`)).status).toBe(204);
    expect((await api.get(`/v1/nodes/${node}`)).body).toMatchObject({ instance_uuid: null, reservation: null });
  });
});

describe('the node side', () => {
  it('removing the instance removes the allocation: refused when active, allowed in maintenance', async () => {
    const node = await nodeIn('active', { resource_class: 'rc-inst' });
    const a = (await api.request('POST', '/v1/allocations', { node })).body;
    const remove = [{ op: 'remove', path: '/instance_uuid' }];
    const refused = await api.request('PATCH', `/v1/nodes/${node}`, remove);
    expect(refused.status).toBe(409);
    expect(faultOf(refused).faultstring).toMatch(/with an allocation can not have instance_uuid removed unless/);
    expect((await api.request('PUT', `/v1/nodes/${node}/maintenance`)).status).toBe(202);
    const patched = await api.request('PATCH', `/v1/nodes/${node}`, remove);
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ instance_uuid: null, allocation_uuid: null });
    expect((await api.get(`/v1/allocations/${a.uuid}`)).status).toBe(404);
  });

  it('undeploying a node destroys its allocation', async () => {
    const node = await nodeIn('available', { resource_class: 'rc-undeploy' });
    const a = await allocate({ resource_class: 'rc-undeploy' });
    expect(await settled(a.uuid)).toMatchObject({ state: 'active', node_uuid: node });
    // The allocation is saved active before the conductor lets the node go.
    expect(await api.unlocked(node)).toMatchObject({ reservation: null });
    await api.provision(node, 'active');
    await api.waitFor(node, 'active');
    await api.provision(node, 'deleted');
    await api.waitFor(node, 'available');
    expect((await api.get(`/v1/allocations/${a.uuid}`)).status).toBe(404);
    expect((await api.get(`/v1/nodes/${node}`)).body).toMatchObject({ instance_uuid: null, allocation_uuid: null });
  });
});

describe('the API', () => {
  it('backfilling a node that is not active fails the allocation with a 500, as Ironic', async () => {
    const node = await nodeIn('available', { resource_class: 'rc-bf2' });
    const reply = await api.request('POST', '/v1/allocations', { node, name: 'bf-bad' });
    expect(reply.status).toBe(500);
    expect(faultOf(reply).faultstring).toMatch(
      /Cannot backfill an allocation for node .*: Node must be in the "active" state, but the current state is "available"\.$/,
    );
    expect((await api.get('/v1/allocations/bf-bad')).body).toMatchObject({ state: 'error', node_uuid: null });
    expect((await api.get(`/v1/nodes/${node}`)).body.instance_uuid).toBeNull();
  });

  it('validates input with Ironic messages and versions', async () => {
    expect(faultOf(await api.request('POST', '/v1/allocations', {})).faultstring).toBe(
      'The resource_class field is mandatory when not backfilling',
    );
    const cand = await api.request('POST', '/v1/allocations', { resource_class: 'x', candidate_nodes: ['no-such-node'] });
    expect(cand.status).toBe(400);
    expect(faultOf(cand).faultstring).toBe('Nodes cannot be found: no-such-node');
    const old = new ApiClient(stack.url, '1.51');
    expect((await old.get('/v1/allocations')).status).toBe(404);
    expect((await old.request('POST', '/v1/allocations', { resource_class: 'x' })).status).toBe(405);
    const v56 = new ApiClient(stack.url, '1.56');
    const a = await allocate({ resource_class: 'rc-none-here', name: 'patch-me' });
    expect((await v56.request('PATCH', '/v1/allocations/patch-me', [{ op: 'add', path: '/extra/a', value: 1 }])).status).toBe(405);
    const patched = await api.request('PATCH', '/v1/allocations/patch-me', [
      { op: 'add', path: '/extra/a', value: 1 },
      { op: 'replace', path: '/name', value: 'patched' },
    ]);
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ uuid: a.uuid, name: 'patched', extra: { a: 1 } });
    const bad = await api.request('PATCH', '/v1/allocations/patched', [{ op: 'replace', path: '/resource_class', value: 'y' }]);
    expect(faultOf(bad).faultstring).toBe('Cannot patch /resource_class. Only the following can be updated: name, extra');
    expect((await new ApiClient(stack.url, '1.59').get(`/v1/allocations/${a.uuid}`)).body).not.toHaveProperty('owner');
    const page = await api.get('/v1/allocations?limit=1&fields=uuid,state');
    expect(Object.keys(page.body.allocations[0]).sort()).toEqual(['links', 'state', 'uuid']);
    expect(page.body.next).toMatch(/\/v1\/allocations\?sort_key=id&sort_dir=asc&fields=uuid,state&limit=1&marker=/);
  });
});
