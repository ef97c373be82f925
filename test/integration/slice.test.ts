/**
 * The walking skeleton end to end on a local stack: HTTP → gateway → api alias → SQS → conductor
 * alias → Step Functions → DynamoDB, with fake-hardware.
 */
import type { LocalStack } from '../../local/stack';
import { ApiClient, faultOf, type Json, startStack } from './helpers/stack';

let stack: LocalStack;
let api: ApiClient;

beforeAll(async () => {
  stack = await startStack();
  api = new ApiClient(stack.url);
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

describe('a fake-hardware node through its life', () => {
  it('is enrolled, managed, provided, deployed through the steps machine, undeployed and deleted', async () => {
    const created = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: 'slice-1' });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${stack.url}/v1/nodes/${created.body.uuid}`);
    expect(created.body).toMatchObject({ name: 'slice-1', provision_state: 'enroll', driver: 'fake-hardware', deploy_interface: 'fake' });
    const uuid = created.body.uuid as string;

    await api.provision('slice-1', 'manage');
    await api.waitFor(uuid, 'manageable');
    await api.provision('slice-1', 'provide');
    await api.waitFor(uuid, 'available');

    const executionsBefore = stack.sfn.listExecutions(stack.stateMachineArn).length;
    const messagesBefore = stack.sqsMessages;
    await api.provision('slice-1', 'active');
    // The API took the first step itself: the client sees deploying at once.
    const right = await api.get(`/v1/nodes/${uuid}?fields=provision_state,target_provision_state`);
    expect(['deploying', 'active']).toContain(right.body.provision_state);
    const active = await api.waitFor(uuid, 'active');
    expect(active.last_error).toBeNull();
    expect(active.reservation).toBeNull();
    expect(active.deploy_step).toEqual({});

    const executions = stack.sfn.listExecutions(stack.stateMachineArn);
    expect(executions.length).toBe(executionsBefore + 1);
    const execution = executions[executions.length - 1];
    expect(execution?.status).toBe('SUCCEEDED');
    expect(execution?.name).toContain(uuid.slice(0, 8));
    // Route → RunStep (deploy.deploy) → Route → Done.
    expect(execution?.history.filter((e) => e.type === 'StateEntered').map((e) => e.state)).toEqual(['Route', 'RunStep', 'Route', 'Done']);
    // One cast reached the conductor's queue: the deploy (the steps went through Step Functions).
    expect(stack.sqsMessages - messagesBefore).toBe(1);

    await api.provision(uuid, 'deleted');
    const available = await api.waitFor(uuid, 'available');
    expect(available.instance_uuid).toBeNull();

    // Ironic 21.4 deletes nodes in enroll, manageable, adopt failed and (its default
    // allow_deleting_available_nodes) available; others only in maintenance.
    expect((await api.request('DELETE', `/v1/nodes/${uuid}`)).status).toBe(204);
    expect((await api.get(`/v1/nodes/${uuid}`)).status).toBe(404);
  }, 60_000);

  it('lists nodes in creation order, pages with next links, and finds nodes by name', async () => {
    const uuids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const reply = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: `list-${i}` });
      uuids.push(reply.body.uuid);
    }
    const page1 = await api.get('/v1/nodes?limit=3');
    expect(page1.body.nodes.map((n: { uuid: string }) => n.uuid)).toEqual(uuids.slice(0, 3));
    // Ironic repeats the default field selection in the link, as Ironic 21.4 does.
    expect(page1.body.next).toBe(
      `${stack.url}/v1/nodes?sort_key=id&sort_dir=asc&fields=instance_uuid,maintenance,power_state,provision_state,uuid,name&limit=3&marker=${uuids[2]}`,
    );
    const page2 = await api.get(new URL(page1.body.next).pathname + new URL(page1.body.next).search);
    expect(page2.body.nodes.map((n: { uuid: string }) => n.uuid)).toEqual(uuids.slice(3));
    expect(page2.body.next).toBeUndefined();
    expect(Object.keys(page1.body.nodes[0]).sort()).toEqual([
      'instance_uuid',
      'links',
      'maintenance',
      'name',
      'power_state',
      'provision_state',
      'uuid',
    ]);
    const byName = await api.get('/v1/nodes/list-3');
    expect(byName.body.uuid).toBe(uuids[3]);
    const dup = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: 'list-3' });
    expect(dup.status).toBe(409);
    expect(faultOf(dup).faultstring).toBe('A node with name list-3 already exists.');
    for (const uuid of uuids) expect((await api.request('DELETE', `/v1/nodes/${uuid}`)).status).toBe(204);
  }, 30_000);
});

describe('bad input on the slice gets Ironic’s status and body, and changes nothing', () => {
  it('malformed JSON is a 400', async () => {
    const reply = await api.request('POST', '/v1/nodes', '{bad');
    expect(reply.status).toBe(400);
    expect(faultOf(reply)).toMatchObject({ faultcode: 'Client', debuginfo: null });
    expect(faultOf(reply).faultstring).toContain('Invalid JSON');
    expect((await api.get('/v1/nodes')).body.nodes).toEqual([]);
  });

  it('an unknown node is a 404 naming it', async () => {
    const reply = await api.get('/v1/nodes/no-such-node');
    expect(reply.status).toBe(404);
    expect(faultOf(reply).faultstring).toBe('Node no-such-node could not be found.');
    expect(reply.headers.get('x-openstack-ironic-api-version')).toBe('1.78');
  });

  it('a verb the state does not allow is a 400 and leaves the node as it was', async () => {
    const created = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware' });
    const reply = await api.request('PUT', `/v1/nodes/${created.body.uuid}/states/provision`, { target: 'active' });
    expect(reply.status).toBe(400);
    expect(faultOf(reply).faultstring).toBe(
      `The requested action "active" can not be performed on node "${created.body.uuid}" while it is in state "enroll".`,
    );
    const after = await api.get(`/v1/nodes/${created.body.uuid}`);
    expect(after.body).toMatchObject({ provision_state: 'enroll', target_provision_state: null, reservation: null, updated_at: null });
    await api.request('DELETE', `/v1/nodes/${created.body.uuid}`);
  });

  it('an unsupported microversion is a 406 with the supported range', async () => {
    const reply = await api.get('/v1/nodes', { 'X-OpenStack-Ironic-API-Version': '1.999' });
    expect(reply.status).toBe(406);
    expect(faultOf(reply)).toEqual({
      code: 406,
      title: 'Not Acceptable',
      description:
        'Version 1.999 was requested but the minor version is not supported by this service. The supported version range is: [1.1, 1.115].',
    });
    expect(reply.headers.get('x-openstack-ironic-api-maximum-version')).toBe('1.115');
  });

  it('every reply carries the request id as X-OpenStack-Request-Id and OpenStack-Request-Id (1.107), at any version', async () => {
    for (const reply of [
      await api.get('/'),
      await api.get('/v1/nodes'),
      await api.get('/v1/nodes/no-such-node'),
      await api.get('/v1/nodes', { 'X-OpenStack-Ironic-API-Version': '1.1' }),
    ]) {
      const id = reply.headers.get('x-openstack-request-id');
      expect(id).toMatch(/^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(reply.headers.get('openstack-request-id')).toBe(id);
    }
  });

  it('takes a final ".json" off a path below 1.91 only; from 1.91, and without a version, it is part of the name', async () => {
    const plain = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: 'jsonish' });
    const suffixed = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: 'both.json' });
    const v = (version: string) => ({ 'X-OpenStack-Ironic-API-Version': version });
    // 1.90: "jsonish.json" is node "jsonish"; "both.json" is tried as "both", then as itself.
    expect((await api.get('/v1/nodes/jsonish.json', v('1.90'))).body.uuid).toBe(plain.body.uuid);
    expect((await api.get('/v1/nodes/both.json', v('1.90'))).body.uuid).toBe(suffixed.body.uuid);
    // 1.91: the name as written.
    const literal = await api.get('/v1/nodes/jsonish.json', v('1.91'));
    expect([literal.status, faultOf(literal).faultstring]).toEqual([404, 'Node jsonish.json could not be found.']);
    expect((await api.get('/v1/nodes/both.json', v('1.91'))).body.uuid).toBe(suffixed.body.uuid);
    // No version header: Ironic's middleware strips nothing; at 1.1 a name is no identifier.
    const raw = await fetch(`${stack.url}/v1/nodes/jsonish.json`);
    const text = await raw.text();
    const unversioned = { status: raw.status, headers: raw.headers, body: JSON.parse(text) as Json, text };
    expect([unversioned.status, faultOf(unversioned).faultstring]).toEqual([404, 'Node jsonish.json could not be found.']);
    expect((await api.get('/v1/nodes.json', v('1.90'))).status).toBe(200);
    expect((await api.get('/v1/nodes.json', v('1.91'))).status).toBe(404);
    for (const created of [plain, suffixed]) await api.request('DELETE', `/v1/nodes/${created.body.uuid as string}`);
  });

  it('a schema violation names the offending property the way Ironic does', async () => {
    const reply = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', colour: 'blue' });
    expect(reply.status).toBe(400);
    expect(faultOf(reply).faultstring).toBe("Schema error for node: Additional properties are not allowed ('colour' was unexpected)");
  });
});
