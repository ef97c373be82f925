/**
 * Trait based networking on the local stack, through the API and the real conductor: a VIF
 * attached to a node whose instance_info.traits has a group_and_attach_ports rule builds a dynamic
 * portgroup of its matching ports (API 1.111 shows it), and detaching the VIF takes it apart.
 */
import { jest } from '@jest/globals';
import type { LocalStack } from '../../local/stack';
import { ApiClient, faultOf, startStack } from './helpers/stack';

// Real services on a loaded machine: jest's project-level testTimeout is not applied (see jest.config.js).
jest.setTimeout(30_000);

const RULES = {
  CUSTOM_BOND_PURPLE: {
    actions: [
      { action: 'group_and_attach_ports', filter: "port.vendor == 'purple' && network.name == 'storage'", min_count: 2, max_count: 2 },
    ],
  },
};

let stack: LocalStack;
let api: ApiClient;

beforeAll(async () => {
  stack = await startStack({ settings: { traitBasedNetworking: { rules: RULES } } });
  api = new ApiClient(stack.url, '1.111');
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

let macs = 0;
const mac = () => `52:54:00:7b:00:${(macs++).toString(16).padStart(2, '0')}`;

async function nodeWithPorts(vendors: string[]): Promise<{ uuid: string; ports: string[] }> {
  const node = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', network_interface: 'flat' });
  expect(node.status).toBe(201);
  const uuid = node.body.uuid as string;
  const patch = await api.request('PATCH', `/v1/nodes/${uuid}`, [
    { op: 'add', path: '/instance_info/traits', value: ['CUSTOM_BOND_PURPLE'] },
  ]);
  expect(patch.status).toBe(200);
  const ports: string[] = [];
  for (const vendor of vendors) {
    const port = await api.request('POST', '/v1/ports', { node_uuid: uuid, address: mac(), vendor, physical_network: 'fabric-a' });
    expect(port.status).toBe(201);
    ports.push(port.body.uuid as string);
  }
  return { uuid, ports };
}

it('builds a dynamic portgroup of the matching ports at VIF attach, and removes it at detach', async () => {
  const { uuid, ports } = await nodeWithPorts(['purple', 'green', 'purple']);
  expect((await api.request('POST', `/v1/nodes/${uuid}/vifs`, { id: 'vif-storage', name: 'storage' })).status).toBe(204);

  const groups = (await api.get(`/v1/portgroups?node=${uuid}&detail=true`)).body.portgroups;
  expect(groups).toHaveLength(1);
  const [pg] = groups;
  expect(pg).toMatchObject({ dynamic_portgroup: true, physical_network: 'fabric-a', internal_info: { tenant_vif_port_id: 'vif-storage' } });
  expect(pg.name).toMatch(/^tbn_dyn_portgroup_[A-Za-z0-9]{8}$/);
  const members = (await api.get(`/v1/portgroups/${pg.uuid}/ports`)).body.ports.map((p: { uuid: string }) => p.uuid);
  expect(members.sort()).toEqual([ports[0], ports[2]].sort());
  expect((await api.get(`/v1/ports/${ports[1]}`)).body.portgroup_uuid).toBeNull();
  expect((await api.get(`/v1/nodes/${uuid}/vifs`)).body).toEqual({ vifs: [{ id: 'vif-storage' }] });

  expect((await api.request('DELETE', `/v1/nodes/${uuid}/vifs/vif-storage`)).status).toBe(204);
  expect((await api.get(`/v1/portgroups?node=${uuid}`)).body.portgroups).toEqual([]);
  expect((await api.get(`/v1/portgroups/${pg.uuid}`)).status).toBe(404);
  for (const port of ports) expect((await api.get(`/v1/ports/${port}`)).body.portgroup_uuid).toBeNull();
  expect((await api.get(`/v1/nodes/${uuid}/vifs`)).body).toEqual({ vifs: [] });
});

it('refuses a VIF no rule places (400) and writes nothing', async () => {
  const { uuid } = await nodeWithPorts(['purple', 'green']);
  const reply = await api.request('POST', `/v1/nodes/${uuid}/vifs`, { id: 'vif-x', name: 'storage' });
  expect(reply.status).toBe(400);
  expect(faultOf(reply).faultstring).toBe(`No matching ports were found when planning the networking for node ${uuid} and network vif-x.`);
  expect((await api.get(`/v1/portgroups?node=${uuid}`)).body.portgroups).toEqual([]);
  const wrongNetwork = await nodeWithPorts(['purple', 'purple']);
  expect((await api.request('POST', `/v1/nodes/${wrongNetwork.uuid}/vifs`, { id: 'vif-y', name: 'public' })).status).toBe(400);
  expect((await api.get(`/v1/nodes/${wrongNetwork.uuid}/vifs`)).body).toEqual({ vifs: [] });
});
