/**
 * API 1.88 on a local stack: a port's `name` (Ironic's 1.88: any string, unique among ports; a
 * port is found by UUID or name for show and update, by UUID alone for delete; sortable, and a
 * field of `fields`). Below 1.88 the API answers as the 2026.3 release (and Ironic 21.4) did: the
 * name is an unknown property and field, and a port's path must be a UUID. The version documents
 * advertise 1.88.
 */
import type { LocalStack } from '../../local/stack';
import { ApiClient, type Json, faultOf, startStack } from './helpers/stack';

let stack: LocalStack;
let api: ApiClient;
let old: ApiClient;
let node: string;

beforeAll(async () => {
  stack = await startStack();
  api = new ApiClient(stack.url, '1.88');
  old = new ApiClient(stack.url, '1.87');
  const created = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: 'named-ports' });
  node = created.body.uuid as string;
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

function faultString(reply: { body: Json; status: number }): string {
  const fault = faultOf(reply as never);
  return (fault.faultstring ?? fault.description) as string;
}

describe('port names (API 1.88)', () => {
  let uuid: string;

  it('advertises 1.88 in GET / and GET /v1', async () => {
    const root = await api.get('/');
    expect(root.body.default_version).toMatchObject({ min_version: '1.1', version: '1.115' });
    const v1 = await api.get('/v1');
    expect(v1.headers.get('x-openstack-ironic-api-maximum-version')).toBe('1.115');
  });

  it('creates a port with a name, shows it, and refuses a duplicate with 409', async () => {
    const created = await api.request('POST', '/v1/ports', { node_uuid: node, address: '52:54:00:88:00:01', name: 'eth0.r1' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'eth0.r1', node_uuid: node });
    uuid = created.body.uuid as string;
    const duplicate = await api.request('POST', '/v1/ports', { node_uuid: node, address: '52:54:00:88:00:02', name: 'eth0.r1' });
    expect(duplicate.status).toBe(409);
    expect(faultString(duplicate)).toBe('A port with name eth0.r1 already exists.');
  });

  it('finds a port by name for show and update, not for delete', async () => {
    const shown = await api.get('/v1/ports/eth0.r1?fields=uuid,name');
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ uuid, name: 'eth0.r1' });
    const patched = await api.request('PATCH', '/v1/ports/eth0.r1', [{ op: 'replace', path: '/name', value: 'eth0.r2' }]);
    expect(patched.status).toBe(200);
    expect(patched.body.name).toBe('eth0.r2');
    const gone = await api.get('/v1/ports/eth0.r1');
    expect(gone.status).toBe(404);
    expect(faultString(gone)).toBe('Port eth0.r1 could not be found.');
    const bad = await api.get('/v1/ports/a%20b');
    expect(bad.status).toBe(400);
    expect(faultString(bad)).toBe('Expected UUID or name for port_ident: a b');
    const deleted = await api.request('DELETE', '/v1/ports/eth0.r2');
    expect(deleted.status).toBe(400);
    expect(faultString(deleted)).toBe('Expected UUID for port_uuid: eth0.r2');
  });

  it('sorts ports by name', async () => {
    await api.request('POST', '/v1/ports', { node_uuid: node, address: '52:54:00:88:00:03', name: 'a-first' });
    const listed = await api.get('/v1/ports?sort_key=name&fields=name');
    expect(listed.status).toBe(200);
    expect((listed.body.ports as { name: string }[]).map((p) => p.name)).toEqual(['a-first', 'eth0.r2']);
  });

  it('below 1.88 answers as the 2026.3 release did', async () => {
    const created = await old.request('POST', '/v1/ports', { node_uuid: node, address: '52:54:00:88:00:04', name: 'x' });
    expect(created.status).toBe(400);
    expect(faultString(created)).toBe("Schema error for port: Additional properties are not allowed ('name' was unexpected)");
    const shown = await old.get(`/v1/ports/${uuid}`);
    expect(shown.status).toBe(200);
    expect(shown.body).not.toHaveProperty('name');
    expect((await old.get(`/v1/ports/${uuid}?fields=name`)).status).toBe(400);
    const byName = await old.get('/v1/ports/eth0.r2');
    expect(byName.status).toBe(400);
    expect(faultString(byName)).toBe('Expected UUID for port_uuid: eth0.r2');
    const patched = await old.request('PATCH', `/v1/ports/${uuid}`, [{ op: 'replace', path: '/name', value: 'y' }]);
    expect(patched.status).toBe(400);
    // A change below 1.88 keeps the name it cannot see.
    const moved = await old.request('PATCH', `/v1/ports/${uuid}`, [{ op: 'add', path: '/extra/k', value: 'v' }]);
    expect(moved.status).toBe(200);
    expect((await api.get(`/v1/ports/${uuid}`)).body).toMatchObject({ name: 'eth0.r2', extra: { k: 'v' } });
    expect((await old.get('/v1/ports?sort_key=name')).status).toBe(400);
  });
});
