/**
 * API 1.89–1.115's port and portgroup parts on a local stack, each at its version and just below
 * (Ironic master's port.py / portgroup.py and api-ref): OVN VTEP links (1.90, removed in 1.105),
 * node_ident (1.94), port description (1.97), vendor (1.100), category (1.101), the
 * conductor_groups filter (1.99), portgroup physical_network (1.102) and category (1.103), the
 * portgroup shard filter (1.106), available_for_dynamic_portgroup and dynamic_portgroup (1.111).
 * Below 1.88 these names are unknown, as the 2026.3 release answered.
 */
import type { LocalStack } from '../../local/stack';
import { ApiClient, type Json, faultOf, startStack } from './helpers/stack';

let stack: LocalStack;
const clients = new Map<number, ApiClient>();
let nodeA: string;
let nodeB: string;

/** A client speaking API 1.`minor`. */
function at(minor: number): ApiClient {
  let client = clients.get(minor);
  if (client === undefined) {
    client = new ApiClient(stack.url, `1.${minor}`);
    clients.set(minor, client);
  }
  return client;
}

function fault(reply: { body: Json; status: number }): string {
  const f = faultOf(reply as never);
  return (f.faultstring ?? f.description) as string;
}

let mac = 0;
const nextMac = () => `52:54:00:a1:00:${(++mac).toString(16).padStart(2, '0')}`;

beforeAll(async () => {
  // Two conductor groups, one node in each (a node's group needs a conductor of that group).
  stack = await startStack({ settings: { conductorGroups: ['bear', 'metal'] } });
  const a = await at(115).request('POST', '/v1/nodes', { driver: 'fake-hardware', name: 'pf-a', conductor_group: 'bear', shard: 's1' });
  const b = await at(115).request('POST', '/v1/nodes', { driver: 'fake-hardware', name: 'pf-b', conductor_group: 'metal', shard: 's2' });
  nodeA = a.body.uuid as string;
  nodeB = b.body.uuid as string;
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

describe('port fields 1.97, 1.100, 1.101, 1.111', () => {
  it('creates a port with description, vendor, category and available_for_dynamic_portgroup at 1.111 and shows each from its version', async () => {
    const created = await at(111).request('POST', '/v1/ports', {
      node_uuid: nodeA,
      address: nextMac(),
      description: 'uplink to tor-1',
      vendor: 'mellanox',
      category: 'storage',
      available_for_dynamic_portgroup: false,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      description: 'uplink to tor-1',
      vendor: 'mellanox',
      category: 'storage',
      available_for_dynamic_portgroup: false,
    });
    const uuid = created.body.uuid as string;
    const shown = async (minor: number) => (await at(minor).get(`/v1/ports/${uuid}`)).body;
    expect(await shown(96)).not.toHaveProperty('description');
    expect(await shown(97)).toMatchObject({ description: 'uplink to tor-1' });
    expect(await shown(99)).not.toHaveProperty('vendor');
    expect(await shown(100)).toMatchObject({ vendor: 'mellanox' });
    expect(await shown(100)).not.toHaveProperty('category');
    expect(await shown(101)).toMatchObject({ category: 'storage' });
    expect(await shown(110)).not.toHaveProperty('available_for_dynamic_portgroup');
    const defaulted = await at(111).request('POST', '/v1/ports', { node_uuid: nodeA, address: nextMac() });
    expect(defaulted.body).toMatchObject({ available_for_dynamic_portgroup: true, description: null, vendor: null, category: null });
  });

  it('answers 406 for each field just below its version, and 400 (unknown) below 1.88', async () => {
    for (const [field, value, minor] of [
      ['description', 'd', 96],
      ['vendor', 'v', 99],
      ['category', 'c', 100],
      ['available_for_dynamic_portgroup', true, 110],
    ] as const) {
      const below = await at(minor).request('POST', '/v1/ports', { node_uuid: nodeA, address: nextMac(), [field]: value });
      expect([field, below.status]).toEqual([field, 406]);
      expect((await at(minor).get(`/v1/ports?fields=uuid,${field}`)).status).toBe(406);
    }
    const old = await at(87).request('POST', '/v1/ports', { node_uuid: nodeA, address: nextMac(), description: 'd' });
    expect(old.status).toBe(400);
    expect(fault(old)).toBe("Schema error for port: Additional properties are not allowed ('description' was unexpected)");
  });

  it('patches the fields at their version, 406 below, and validates their length and type', async () => {
    const port = (await at(111).request('POST', '/v1/ports', { node_uuid: nodeA, address: nextMac() })).body.uuid as string;
    const patched = await at(111).request('PATCH', `/v1/ports/${port}`, [
      { op: 'add', path: '/description', value: 'nic 2' },
      { op: 'replace', path: '/available_for_dynamic_portgroup', value: false },
    ]);
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ description: 'nic 2', available_for_dynamic_portgroup: false });
    const below = await at(96).request('PATCH', `/v1/ports/${port}`, [{ op: 'add', path: '/description', value: 'x' }]);
    expect(below.status).toBe(406);
    const long = await at(100).request('PATCH', `/v1/ports/${port}`, [{ op: 'add', path: '/vendor', value: 'v'.repeat(33) }]);
    expect(long.status).toBe(400);
    expect(fault(long)).toBe(`Schema error for patch: '${'v'.repeat(33)}' is too long`);
    const notBool = await at(111).request('POST', '/v1/ports', {
      node_uuid: nodeA,
      address: nextMac(),
      available_for_dynamic_portgroup: 'no',
    });
    expect(notBool.status).toBe(400);
    expect(fault(notBool)).toBe("Schema error for port: 'no' is not of type 'boolean'");
    const dynamic = await at(111).request('PATCH', `/v1/ports/${port}`, [{ op: 'add', path: '/dynamic_portgroup', value: true }]);
    expect(dynamic.status).toBe(400);
  });

  it('filters by description_contains from 1.97 (LIKE, ASCII case-insensitive; 406 at 1.96, unknown below 1.88)', async () => {
    const a = await at(97).request('POST', '/v1/ports', { node_uuid: nodeB, address: nextMac(), description: 'Spine uplink 7' });
    await at(97).request('POST', '/v1/ports', { node_uuid: nodeB, address: nextMac(), description: 'bmc' });
    const found = await at(97).get('/v1/ports?description_contains=UPLINK%207&fields=uuid,description');
    expect(found.status).toBe(200);
    expect(found.body.ports).toMatchObject([{ uuid: a.body.uuid, description: 'Spine uplink 7' }]);
    expect(found.body.ports).toHaveLength(1);
    const onNode = await at(97).get(`/v1/ports/detail?description_contains=bmc&node=${nodeB}`);
    expect((onNode.body.ports as { description: string }[]).map((p) => p.description)).toEqual(['bmc']);
    expect((await at(96).get('/v1/ports?description_contains=x')).status).toBe(406);
    expect((await at(87).get('/v1/ports?description_contains=x')).status).toBe(400);
  });

  it('sorts by description from 1.97 (406 at 1.96)', async () => {
    expect((await at(96).get('/v1/ports?sort_key=description')).status).toBe(406);
    expect((await at(97).get('/v1/ports?sort_key=description&fields=uuid,description')).status).toBe(200);
  });
});

describe('OVN VTEP links (1.90–1.104)', () => {
  const vtep = { port_id: 'Ethernet1', 'vtep-logical-switch': 'ls-1', 'vtep-physical-switch': 'ps-1' };

  it('accepts a VTEP link at 1.90 and 1.104, 406 at 1.89 and 1.105, and shows it only in that range', async () => {
    expect((await at(89).request('POST', '/v1/ports', { node_uuid: nodeA, address: nextMac(), local_link_connection: vtep })).status).toBe(
      406,
    );
    expect((await at(105).request('POST', '/v1/ports', { node_uuid: nodeA, address: nextMac(), local_link_connection: vtep })).status).toBe(
      406,
    );
    const created = await at(90).request('POST', '/v1/ports', { node_uuid: nodeA, address: nextMac(), local_link_connection: vtep });
    expect(created.status).toBe(201);
    expect(created.body.local_link_connection).toEqual(vtep);
    const uuid = created.body.uuid as string;
    expect((await at(104).get(`/v1/ports/${uuid}`)).body.local_link_connection).toEqual(vtep);
    expect((await at(105).get(`/v1/ports/${uuid}`)).body.local_link_connection).toEqual({});
    expect((await at(89).get(`/v1/ports/${uuid}`)).body.local_link_connection).toEqual({});
    const patched = await at(105).request('PATCH', `/v1/ports/${uuid}`, [
      { op: 'add', path: '/local_link_connection/port_id', value: 'x' },
    ]);
    expect(patched.status).toBe(406);
  });

  it('refuses one VTEP switch without the other', async () => {
    const half = await at(95).request('POST', '/v1/ports', {
      node_uuid: nodeA,
      address: nextMac(),
      local_link_connection: { port_id: 'p', 'vtep-logical-switch': 'ls' },
    });
    expect(half.status).toBe(400);
    expect(fault(half)).toContain(
      "is not valid under any of the given schemas. Possible root cause: 'vtep-physical-switch' is a dependency of 'vtep-logical-switch'",
    );
  });
});

describe('node_ident (1.94)', () => {
  it('creates a port on a node named in node_ident at 1.94, 406 at 1.93, 400 for a node that does not exist', async () => {
    const byName = await at(94).request('POST', '/v1/ports', { node_ident: 'pf-b', address: nextMac() });
    expect(byName.status).toBe(201);
    expect(byName.body.node_uuid).toBe(nodeB);
    expect(byName.body).not.toHaveProperty('node_ident');
    expect((await at(93).request('POST', '/v1/ports', { node_ident: 'pf-b', address: nextMac() })).status).toBe(406);
    const missing = await at(94).request('POST', '/v1/ports', { node_ident: 'no-such-node', address: nextMac() });
    expect(missing.status).toBe(400);
    expect(fault(missing)).toBe('Node no-such-node could not be found.');
    const both = await at(94).request('POST', '/v1/ports', { node_ident: 'pf-b', node_uuid: nodeB, address: nextMac() });
    expect(both.status).toBe(400);
    expect(fault(both)).toContain("is valid under each of {'required': ['node_uuid']}, {'required': ['node_ident']}");
  });
});

describe('conductor_groups filter (1.99) and portgroup shard filter (1.106)', () => {
  it('lists the ports and portgroups of nodes in the conductor groups given', async () => {
    const pgA = await at(115).request('POST', '/v1/portgroups', { node_uuid: nodeA, name: 'pf-bond-a', address: nextMac() });
    const pgB = await at(115).request('POST', '/v1/portgroups', { node_uuid: nodeB, name: 'pf-bond-b', address: nextMac() });
    expect([pgA.status, pgB.status]).toEqual([201, 201]);
    const ports = await at(99).get('/v1/ports?conductor_groups=metal&fields=uuid,node_uuid');
    expect(ports.status).toBe(200);
    const nodesOf = (list: unknown) => new Set((list as { node_uuid: string }[]).map((p) => p.node_uuid));
    expect(nodesOf(ports.body.ports)).toEqual(new Set([nodeB]));
    const both = await at(99).get('/v1/ports/detail?conductor_groups=BEAR,metal');
    expect(nodesOf(both.body.ports)).toEqual(new Set([nodeA, nodeB]));
    expect((await at(99).get('/v1/ports?conductor_groups=none-such')).body.ports).toEqual([]);
    const pgs = await at(99).get('/v1/portgroups/detail?conductor_groups=bear');
    expect((pgs.body.portgroups as { uuid: string }[]).map((p) => p.uuid)).toEqual([pgA.body.uuid]);
    expect((await at(98).get('/v1/ports?conductor_groups=bear')).status).toBe(406);
    expect((await at(98).get('/v1/portgroups?conductor_groups=bear')).status).toBe(406);
    expect((await at(87).get('/v1/ports?conductor_groups=bear')).status).toBe(400);
    const mixed = await at(99).get(`/v1/ports?conductor_groups=bear&node=${nodeA}`);
    expect(mixed.status).toBe(400);
    expect(fault(mixed)).toBe(
      'Filtering by conductor_groups cannot be combined with node_ident, portgroup_ident, or node address filters.',
    );

    const sharded = await at(106).get('/v1/portgroups?shard=s2');
    expect(sharded.status).toBe(200);
    expect((sharded.body.portgroups as { uuid: string }[]).map((p) => p.uuid)).toEqual([pgB.body.uuid]);
    const below = await at(105).get('/v1/portgroups?shard=s2');
    expect(below.status).toBe(406);
    expect(fault(below)).toBe('Request not acceptable. The minimal required API version should be 1.106');
    expect((await at(106).get(`/v1/portgroups?shard=s2&node=${nodeB}`)).status).toBe(400);
  });
});

describe('portgroup fields 1.102, 1.103, 1.111', () => {
  it('sets physical_network and category, shows them from their version, keeps dynamic_portgroup read-only', async () => {
    const created = await at(103).request('POST', '/v1/portgroups', {
      node_uuid: nodeA,
      address: nextMac(),
      physical_network: 'physnet1',
      category: 'bond',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ physical_network: 'physnet1', category: 'bond' });
    expect(created.body).not.toHaveProperty('dynamic_portgroup');
    const uuid = created.body.uuid as string;
    expect((await at(101).get(`/v1/portgroups/${uuid}`)).body).not.toHaveProperty('physical_network');
    expect((await at(102).get(`/v1/portgroups/${uuid}`)).body).not.toHaveProperty('category');
    expect((await at(111).get(`/v1/portgroups/${uuid}`)).body).toMatchObject({ dynamic_portgroup: false });
    expect((await at(101).request('POST', '/v1/portgroups', { node_uuid: nodeA, physical_network: 'x' })).status).toBe(406);
    expect((await at(102).request('POST', '/v1/portgroups', { node_uuid: nodeA, category: 'x' })).status).toBe(406);
    expect((await at(110).get(`/v1/portgroups/${uuid}?fields=dynamic_portgroup`)).status).toBe(406);
    const readOnly = await at(111).request('POST', '/v1/portgroups', { node_uuid: nodeA, dynamic_portgroup: true });
    expect(readOnly.status).toBe(400);
    const patchRo = await at(111).request('PATCH', `/v1/portgroups/${uuid}`, [{ op: 'add', path: '/dynamic_portgroup', value: true }]);
    expect(patchRo.status).toBe(400);
  });

  it('moves its member ports to a new physical network, and refuses a member port changing its own from 1.102', async () => {
    const pg = (await at(102).request('POST', '/v1/portgroups', { node_uuid: nodeA, address: nextMac() })).body.uuid as string;
    const member = await at(102).request('POST', '/v1/ports', {
      node_uuid: nodeA,
      address: nextMac(),
      portgroup_uuid: pg,
      pxe_enabled: false,
    });
    expect(member.status).toBe(201);
    const moved = await at(102).request('PATCH', `/v1/portgroups/${pg}`, [{ op: 'add', path: '/physical_network', value: 'physnet2' }]);
    expect(moved.status).toBe(200);
    expect((await at(102).get(`/v1/ports/${member.body.uuid as string}`)).body.physical_network).toBe('physnet2');
    const own = await at(102).request('PATCH', `/v1/ports/${member.body.uuid as string}`, [
      { op: 'add', path: '/physical_network', value: 'x' },
    ]);
    expect(own.status).toBe(400);
    expect(fault(own)).toBe('physical_network cannot be changed while the port belongs to a portgroup.');
    expect((await at(101).request('PATCH', `/v1/portgroups/${pg}`, [{ op: 'add', path: '/physical_network', value: 'n' }])).status).toBe(
      406,
    );
  });
});
