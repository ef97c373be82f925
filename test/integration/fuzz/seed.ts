/**
 * What the fuzz suite finds in place on its stack: three fake-hardware nodes (fuzz-0…2, the first
 * in shard `a`, each with the trait CUSTOM_FUZZ), and one chassis, portgroup, port, deploy template
 * and allocation (left in error: no node can take it), with fixed UUIDs the generators name.
 */
import type { ApiClient } from '../helpers/stack';
import { NODE_NAMES } from './generators';

export const RES = {
  chassis: 'fa000000-0000-4000-8000-000000000001',
  portgroup: 'fa000000-0000-4000-8000-000000000002',
  port: 'fa000000-0000-4000-8000-000000000003',
  template: 'fa000000-0000-4000-8000-000000000004',
  allocation: 'fa000000-0000-4000-8000-000000000005',
};
/** Each resource's collection and an item of it (by UUID, or by name where it has one). */
export const RESOURCE_ITEMS: readonly [string, string][] = [
  ['/v1/chassis', RES.chassis],
  ['/v1/portgroups', RES.portgroup],
  ['/v1/portgroups', 'fuzz-pg'],
  ['/v1/ports', RES.port],
  ['/v1/deploy_templates', RES.template],
  ['/v1/deploy_templates', 'CUSTOM_FUZZ'],
];

/** Creates the nodes; answers their UUIDs. */
export async function seedNodes(api: ApiClient): Promise<string[]> {
  const uuids: string[] = [];
  for (const [i, name] of NODE_NAMES.entries()) {
    const created = await api.request('POST', '/v1/nodes', {
      driver: 'fake-hardware',
      name,
      shard: i === 0 ? 'a' : null,
      driver_info: { redfish_password: 'x' },
      extra: { list: [1, 2], nested: { k: 'v' } },
    });
    if (created.status !== 201) throw new Error(created.text);
    uuids.push(created.body.uuid as string);
    await api.request('PUT', `/v1/nodes/${name}/traits`, { traits: ['CUSTOM_FUZZ'] });
  }
  return uuids;
}

/** Creates the nodes and one of each other resource; waits for the allocation to fail. */
export async function seedAll(api: ApiClient): Promise<void> {
  const [node] = await seedNodes(api);
  const seeds: [string, Record<string, unknown>][] = [
    ['/v1/chassis', { uuid: RES.chassis, description: 'fuzz', extra: { list: [1] } }],
    ['/v1/portgroups', { uuid: RES.portgroup, node_uuid: node, name: 'fuzz-pg', address: '52:54:00:fa:00:01' }],
    ['/v1/ports', { uuid: RES.port, node_uuid: node, address: '52:54:00:fa:00:02', portgroup_uuid: RES.portgroup }],
    [
      '/v1/deploy_templates',
      { uuid: RES.template, name: 'CUSTOM_FUZZ', steps: [{ interface: 'deploy', step: 's', args: { password: 'p' }, priority: 1 }] },
    ],
  ];
  for (const [path, body] of seeds) {
    const created = await api.request('POST', path, body);
    if (created.status !== 201) throw new Error(`${path}: ${created.text}`);
  }
  // An allocation no node can take: the conductor puts it in error, before the fuzzing starts.
  const allocation = await api.request('POST', '/v1/allocations', {
    uuid: RES.allocation,
    name: 'fuzz-alloc',
    resource_class: 'fuzz-none',
  });
  if (allocation.status !== 201) throw new Error(`allocation: ${allocation.text}`);
  for (let i = 0; i < 200 && (await api.get(`/v1/allocations/${RES.allocation}`)).body.state === 'allocating'; i++)
    await new Promise((r) => setTimeout(r, 100));
}
