/**
 * API 1.83 child nodes and 1.86 firmware_interface on the local stack: a node's `parent_node`
 * (by name or UUID, stored as the UUID), child nodes hidden from lists unless asked for, the
 * `/children` sub-resource, and the version gates with Ironic's answers.
 */
import type { LocalStack } from '../../local/stack';
import { ApiClient, faultOf, startStack } from './helpers/stack';

let stack: LocalStack;
let api: ApiClient;
let old: ApiClient;

beforeAll(async () => {
  stack = await startStack();
  api = new ApiClient(stack.url, '1.87');
  old = new ApiClient(stack.url, '1.82');
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

async function create(client: ApiClient, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const reply = await client.request('POST', '/v1/nodes', { driver: 'fake-hardware', ...body });
  if (reply.status !== 201) throw new Error(reply.text);
  return reply.body;
}

const uuidsOf = (body: Record<string, unknown>) => (body.nodes as { uuid: string }[]).map((n) => n.uuid).sort();

describe('child nodes (1.83)', () => {
  it('links a child to its parent by name, hides it from lists, and lists it on request or by parent', async () => {
    const parent = await create(api, { name: 'chassis-host' });
    const child = await create(api, { name: 'dpu-0', parent_node: 'chassis-host' });
    expect(child.parent_node).toBe(parent.uuid);
    const patched = await create(api, { name: 'dpu-1' });
    const set = await api.request('PATCH', '/v1/nodes/dpu-1', [{ op: 'add', path: '/parent_node', value: parent.uuid }]);
    expect(set.status).toBe(200);
    expect(set.body.parent_node).toBe(parent.uuid);

    const listed = uuidsOf((await api.get('/v1/nodes')).body);
    expect(listed).toContain(parent.uuid);
    expect(listed).not.toContain(child.uuid);
    expect(uuidsOf((await old.get('/v1/nodes')).body)).not.toContain(child.uuid);
    expect(uuidsOf((await api.get('/v1/nodes?include_children=True')).body)).toEqual(
      expect.arrayContaining([parent.uuid, child.uuid, patched.uuid] as string[]),
    );
    expect(uuidsOf((await api.get(`/v1/nodes/detail?parent_node=${String(parent.uuid)}`)).body)).toEqual(
      [child.uuid, patched.uuid].sort() as string[],
    );

    const children = await api.get('/v1/nodes/chassis-host/children');
    expect(children.status).toBe(200);
    expect([...(children.body.children as string[])].sort()).toEqual([child.uuid, patched.uuid].sort());
    expect(children.body.links).toEqual({ href: `${stack.url}/v1/nodes?parent_node=${String(parent.uuid)}`, rel: 'children' });
    expect((await api.get(`/v1/nodes/${String(child.uuid)}?fields=uuid,parent_node`)).body).toMatchObject({ parent_node: parent.uuid });
  });

  it('refuses a parent it cannot find, and every child-node parameter below 1.83', async () => {
    const bad = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', parent_node: 'no-such-node' });
    expect(bad.status).toBe(400);
    expect(faultOf(bad).faultstring).toBe("Unable to apply the requested parent_node 'no-such-node'. Requested value was invalid.");
    const node = await create(api, {});
    const badPatch = await api.request('PATCH', `/v1/nodes/${String(node.uuid)}`, [{ op: 'add', path: '/parent_node', value: 'nope' }]);
    expect(faultOf(badPatch).faultstring).toBe("Unable to apply the requested parent_node 'nope'. Requested value was invalid.");
    expect((await api.get(`/v1/nodes/${String(node.uuid)}`)).body.parent_node).toBeNull();

    expect((await old.request('POST', '/v1/nodes', { driver: 'fake-hardware', parent_node: node.uuid })).status).toBe(406);
    expect((await old.get(`/v1/nodes/${String(node.uuid)}/children`)).status).toBe(404);
    const filtered = await old.get('/v1/nodes?include_children=True');
    expect(filtered.status).toBe(406);
    expect(faultOf(filtered).faultstring).toBe('Request not acceptable. The minimal required API version should be 1.83');
    expect((await old.get(`/v1/nodes/${String(node.uuid)}`)).body).not.toHaveProperty('parent_node');
  });
});

describe('firmware_interface (1.86)', () => {
  it('is shown and settable from 1.86, with the hardware type default, and refused below', async () => {
    const node = await create(api, {});
    expect(node.firmware_interface).toBe('fake');
    const set = await api.request('PATCH', `/v1/nodes/${String(node.uuid)}`, [
      { op: 'replace', path: '/firmware_interface', value: 'no-firmware' },
    ]);
    expect(set.body.firmware_interface).toBe('no-firmware');
    const unknown = await api.request('PATCH', `/v1/nodes/${String(node.uuid)}`, [
      { op: 'replace', path: '/firmware_interface', value: 'magic' },
    ]);
    expect(unknown.status).toBe(400);
    expect(faultOf(unknown).faultstring).toMatch(
      /^Could not find the following interface in the 'ironic\.hardware\.interfaces\.firmware' entrypoint: magic\./,
    );

    const v85 = new ApiClient(stack.url, '1.85');
    expect((await v85.get(`/v1/nodes/${String(node.uuid)}`)).body).not.toHaveProperty('firmware_interface');
    expect((await v85.request('POST', '/v1/nodes', { driver: 'fake-hardware', firmware_interface: 'fake' })).status).toBe(406);
    const driver = (await api.get('/v1/drivers/fake-hardware')).body;
    expect(driver).toMatchObject({ default_firmware_interface: 'fake', enabled_firmware_interfaces: ['fake', 'no-firmware'] });
    expect((await v85.get('/v1/drivers/fake-hardware')).body).not.toHaveProperty('default_firmware_interface');
  });
});

describe('continue_inspection (1.84)', () => {
  const inventory = (macs: string[], bmc?: string) => ({
    inventory: { interfaces: macs.map((mac_address) => ({ name: 'eth0', mac_address })), ...(bmc ? { bmc_address: bmc } : {}) },
  });

  it('is there from 1.84 (and 1.1, for inspector ramdisks), validates the inventory and finds no node not waiting for inspection', async () => {
    const v83 = new ApiClient(stack.url, '1.83');
    const early = await v83.request('POST', '/v1/continue_inspection', inventory(['52:54:00:00:00:01']));
    expect(early.status).toBe(404);
    expect(faultOf(early).faultstring).toBe('API version 1.84 or newer is required');

    const invalid = await api.request('POST', '/v1/continue_inspection', { inventory: { interfaces: [] } });
    expect(invalid.status).toBe(400);
    const noLookup = await api.request('POST', '/v1/continue_inspection', inventory(['not-a-mac']));
    expect(faultOf(noLookup).faultstring).toBe('No lookup information provided');

    // A node with that port exists but is not in inspect wait: the same 404 as no node at all.
    const node = await create(api, {});
    const port = await api.request('POST', '/v1/ports', { node_uuid: node.uuid, address: '52:54:00:aa:bb:01' });
    expect(port.status).toBe(201);
    for (const client of [api, new ApiClient(stack.url, '1.1')]) {
      const reply = await client.request('POST', '/v1/continue_inspection', inventory(['52:54:00:AA:BB:01']));
      expect(reply.status).toBe(404);
      expect(faultOf(reply).faultstring).toBe('The resource could not be found.');
    }
    expect((await api.request('POST', '/v1/continue_inspection', inventory(['52:54:00:aa:bb:99'], '10.0.0.9'))).status).toBe(404);
  });
});
