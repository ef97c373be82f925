/**
 * Node management and VIFs on the local stack with fake-hardware: boot device (+supported), NMI,
 * boot mode and secure boot through the conductor (calls and casts), and VIFs through the `noop`
 * and `flat` network interfaces, with the ports the flat interface picks from in the real tables.
 */
import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { selectRelease } from '../../functions/common/releases';
import { createDocumentClient } from '../../functions/db/client';
import { type Stores, createStores } from '../../functions/db/stores';
import { Port } from '../../functions/objects/port';
import { Portgroup } from '../../functions/objects/portgroup';
import type { LocalStack } from '../../local/stack';
import { ApiClient, type Json, faultOf, startStack } from './helpers/stack';

// Real services on a loaded machine: jest's project-level testTimeout is not applied (see jest.config.js).
jest.setTimeout(30_000);

let stack: LocalStack;
let api: ApiClient;
let raw: DynamoDBClient;
let stores: Stores;

beforeAll(async () => {
  stack = await startStack();
  api = new ApiClient(stack.url, '1.82');
  raw = new DynamoDBClient({
    endpoint: stack.endpoints.dynamodb,
    region: 'us-east-1',
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  });
  stores = createStores({ client: createDocumentClient(raw), tables: stack.tables, release: selectRelease('') });
}, 60_000);

afterAll(async () => {
  raw?.destroy();
  await stack?.stop();
});

async function create(body: Record<string, unknown> = {}): Promise<string> {
  const reply = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', ...body });
  if (reply.status !== 201) throw new Error(reply.text);
  return reply.body.uuid as string;
}

async function lock(uuid: string): Promise<void> {
  await stores.nodes.reserve(uuid, { host: 'other-conductor', token: 'test', ttlSeconds: 600 });
}

/** Poll the node until `done` says the conductor finished with it. */
async function until(uuid: string, done: (node: Json) => boolean): Promise<Json> {
  for (let i = 0; i < 300; i++) {
    const node = (await api.get(`/v1/nodes/${uuid}`)).body;
    if (done(node)) return node;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`node ${uuid} never got there`);
}

describe('boot device', () => {
  it('is read, listed and set through conductor calls (fake-hardware knows only pxe)', async () => {
    const uuid = await create();
    expect((await api.get(`/v1/nodes/${uuid}/management/boot_device`)).body).toEqual({ boot_device: 'pxe', persistent: false });
    expect((await api.get(`/v1/nodes/${uuid}/management/boot_device/supported`)).body).toEqual({ supported_boot_devices: ['pxe'] });
    const set = await api.request('PUT', `/v1/nodes/${uuid}/management/boot_device`, { boot_device: 'pxe', persistent: true });
    expect(set.status).toBe(204);
    // The call's lock is gone afterwards.
    expect((await api.get(`/v1/nodes/${uuid}`)).body.reservation).toBeNull();
  });

  it.each([
    [{ boot_device: 'disk' }, 400, 'Invalid boot device disk specified.'],
    [{}, 400, 'Missing mandatory parameter: boot_device'],
    [{ boot_device: 5 }, 400, 'Expected string for boot_device: 5'],
    [{ boot_device: 'pxe', persistent: 'maybe' }, 400, /^Invalid persistent: Unrecognized value 'maybe'/],
    [{ boot_device: 'pxe', when: 'now' }, 400, 'Unexpected arguments: when'],
  ])('refuses %j with Ironic’s message', async (body, status, message) => {
    const uuid = await create();
    const reply = await api.request('PUT', `/v1/nodes/${uuid}/management/boot_device`, body);
    expect(reply.status).toBe(status);
    if (typeof message === 'string') expect(faultOf(reply).faultstring).toBe(message);
    else expect(faultOf(reply).faultstring).toMatch(message);
  });

  it('is refused with 409 while the node is locked, and for a missing node with 404', async () => {
    const uuid = await create();
    await lock(uuid);
    const reply = await api.request('PUT', `/v1/nodes/${uuid}/management/boot_device`, { boot_device: 'pxe' });
    expect(reply.status).toBe(409);
    expect(faultOf(reply).faultstring).toBe(
      `Node ${uuid} is locked by host other-conductor, please retry after the current operation is completed.`,
    );
    expect((await api.get(`/v1/nodes/${uuid}/management/boot_device`)).status).toBe(409);
    expect((await api.get(`/v1/nodes/${randomUUID()}/management/boot_device`)).status).toBe(404);
  });
});

describe('inject NMI', () => {
  it('is a 404 before 1.29 and, on fake-hardware, the driver’s "not supported" after', async () => {
    const uuid = await create();
    const old = await new ApiClient(stack.url, '1.28').request('PUT', `/v1/nodes/${uuid}/management/inject_nmi`);
    expect(old.status).toBe(404);
    const reply = await api.request('PUT', `/v1/nodes/${uuid}/management/inject_nmi`);
    expect(reply.status).toBe(400);
    expect(faultOf(reply).faultstring).toBe('Driver fake-hardware does not support inject_nmi (disabled or not implemented).');
  });
});

describe('boot mode and secure boot', () => {
  it('are accepted (202) and end, on fake-hardware, in last_error with Ironic’s message', async () => {
    const uuid = await create();
    const mode = await api.request('PUT', `/v1/nodes/${uuid}/states/boot_mode`, { target: 'uefi' });
    expect(mode.status).toBe(202);
    expect(mode.headers.get('location')).toBe(`${stack.url}/v1/nodes/${uuid}/states`);
    const afterMode = await until(uuid, (n) => n.reservation === null && n.last_error !== null);
    expect(afterMode.last_error).toBe(
      "Failed to change boot mode to 'uefi: Driver fake-hardware does not support set_boot_mode (disabled or not implemented).",
    );
    expect(afterMode.boot_mode).toBeNull();

    const secure = await api.request('PUT', `/v1/nodes/${uuid}/states/secure_boot`, { target: true });
    expect(secure.status).toBe(202);
    const afterSecure = await until(uuid, (n) => n.reservation === null && n.last_error?.includes('secure_boot'));
    expect(afterSecure.last_error).toBe(
      "Failed to change secure_boot state to 'True': Driver fake-hardware does not support set_secure_boot_state (disabled or not implemented).",
    );
  });

  it.each([
    ['boot_mode', { target: 'efi' }, '1.82', 400, 'Invalid boot mode efi requested for node. Allowed boot modes are: bios, uefi'],
    ['boot_mode', { target: 'uefi' }, '1.75', 404, 'This endpoint is supported starting with the API version 1.76'],
    ['secure_boot', { target: 'x' }, '1.82', 400, /^Invalid target: Unrecognized value 'x'/],
    ['secure_boot', { target: true }, '1.75', 404, 'This endpoint is supported starting with the API version 1.76'],
  ])('%s %j at %s is %i', async (what, body, version, status, message) => {
    const uuid = await create();
    const reply = await new ApiClient(stack.url, version).request('PUT', `/v1/nodes/${uuid}/states/${what}`, body);
    expect(reply.status).toBe(status);
    if (typeof message === 'string') expect(faultOf(reply).faultstring).toBe(message);
    else expect(faultOf(reply).faultstring).toMatch(message);
  });

  it('are refused while the node is transitioning or locked', async () => {
    const uuid = await create();
    const node = await stores.nodes.get(uuid);
    node.provision_state = 'inspecting';
    await stores.nodes.save(node);
    const transitioning = await api.request('PUT', `/v1/nodes/${uuid}/states/boot_mode`, { target: 'uefi' });
    expect(transitioning.status).toBe(409);
    expect(faultOf(transitioning).faultstring).toMatch(/^Node is in %\(state\)s state\. Since node is transitioning/);

    const other = await create();
    await lock(other);
    expect((await api.request('PUT', `/v1/nodes/${other}/states/secure_boot`, { target: false })).status).toBe(409);
  });
});

describe('VIFs', () => {
  it('is a 404 before 1.28; the noop interface accepts attach and detach and lists none', async () => {
    const uuid = await create();
    expect((await new ApiClient(stack.url, '1.27').get(`/v1/nodes/${uuid}/vifs`)).status).toBe(404);
    expect((await api.request('POST', `/v1/nodes/${uuid}/vifs`, { id: 'vif-a' })).status).toBe(204);
    expect((await api.get(`/v1/nodes/${uuid}/vifs`)).body).toEqual({ vifs: [] });
    expect((await api.request('DELETE', `/v1/nodes/${uuid}/vifs/vif-a`)).status).toBe(204);
  });

  it.each([
    [{}, "Schema error for vif: 'id' is a required property"],
    [{ id: 5 }, "Schema error for vif: 5 is not of type 'string'"],
    [{ id: 'bad id' }, 'Expected UUID or name for id: bad id'],
    [{ id: 'a', port_uuid: randomUUID(), portgroup_uuid: randomUUID() }, 'Cannot specify both port_uuid and portgroup_uuid'],
  ])('refuses the attach body %j', async (body, message) => {
    const uuid = await create();
    const reply = await api.request('POST', `/v1/nodes/${uuid}/vifs`, body);
    expect(reply.status).toBe(400);
    expect(faultOf(reply).faultstring).toBe(message);
  });

  async function flatNodeWithPorts(): Promise<{ uuid: string; ports: Port[]; portgroup: Portgroup }> {
    const uuid = await create({ network_interface: 'flat' });
    const mac = () =>
      Array.from({ length: 6 }, (_, i) => (i === 0 ? 2 : Math.floor(Math.random() * 256)).toString(16).padStart(2, '0')).join(':');
    const now = new Date().toISOString();
    const portgroup = await stores.portgroups.create(
      new Portgroup({ uuid: randomUUID(), node_uuid: uuid, address: mac(), created_at: now }),
    );
    const ports: Port[] = [];
    // A plain port without PXE, a PXE port, and two ports of the portgroup.
    for (const [pxe, group] of [
      [false, null],
      [true, null],
      [true, portgroup.uuid],
      [true, portgroup.uuid],
    ] as const) {
      ports.push(
        await stores.ports.create(
          new Port({ uuid: randomUUID(), node_uuid: uuid, address: mac(), pxe_enabled: pxe, portgroup_uuid: group, created_at: now }),
        ),
      );
    }
    return { uuid, ports, portgroup };
  }

  it('flat: attaches to the portgroup first, then PXE ports, records the VIF on them, and detaches', async () => {
    const { uuid, ports, portgroup } = await flatNodeWithPorts();
    for (const vif of ['vif-1', 'vif-2', 'vif-3'])
      expect((await api.request('POST', `/v1/nodes/${uuid}/vifs`, { id: vif })).status).toBe(204);
    expect((await stores.portgroups.get(portgroup.uuid)).internal_info).toEqual({ tenant_vif_port_id: 'vif-1' });
    expect((await stores.ports.get(ports[1]!.uuid)).internal_info).toEqual({ tenant_vif_port_id: 'vif-2' });
    expect((await stores.ports.get(ports[0]!.uuid)).internal_info).toEqual({ tenant_vif_port_id: 'vif-3' });
    expect((await api.get(`/v1/nodes/${uuid}/vifs`)).body).toEqual({ vifs: [{ id: 'vif-3' }, { id: 'vif-2' }, { id: 'vif-1' }] });

    const again = await api.request('POST', `/v1/nodes/${uuid}/vifs`, { id: 'vif-2' });
    expect(again.status).toBe(409);
    expect(faultOf(again).faultstring).toBe(`Unable to attach VIF because VIF vif-2 is already attached to Ironic Port ${ports[1]!.uuid}`);
    const full = await api.request('POST', `/v1/nodes/${uuid}/vifs`, { id: 'vif-4' });
    expect(full.status).toBe(400);
    expect(faultOf(full).faultstring).toBe('Unable to attach VIF vif-4, not enough free physical ports.');

    expect((await api.request('DELETE', `/v1/nodes/${uuid}/vifs/vif-1`)).status).toBe(204);
    expect((await stores.portgroups.get(portgroup.uuid)).internal_info).toEqual({});
    const missing = await api.request('DELETE', `/v1/nodes/${uuid}/vifs/vif-1`);
    expect(missing.status).toBe(400);
    expect(faultOf(missing).faultstring).toBe(`Unable to detach VIF vif-1 from node ${uuid} because it is not attached to it.`);
  });

  it('flat: honours port_uuid and refuses attach and detach while the node is locked', async () => {
    const { uuid, ports } = await flatNodeWithPorts();
    expect((await api.request('POST', `/v1/nodes/${uuid}/vifs`, { id: 'vif-x', port_uuid: ports[0]!.uuid })).status).toBe(204);
    expect((await stores.ports.get(ports[0]!.uuid)).internal_info).toEqual({ tenant_vif_port_id: 'vif-x' });
    await lock(uuid);
    const attach = await api.request('POST', `/v1/nodes/${uuid}/vifs`, { id: 'vif-y' });
    expect(attach.status).toBe(409);
    expect((await api.request('DELETE', `/v1/nodes/${uuid}/vifs/vif-x`)).status).toBe(409);
    // Listing takes no lock.
    expect((await api.get(`/v1/nodes/${uuid}/vifs`)).body).toEqual({ vifs: [{ id: 'vif-x' }] });
  });
});
