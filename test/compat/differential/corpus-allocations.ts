/**
 * Allocations in the differential corpus: creation (and its errors), the conductor's allocation
 * process on fake-hardware nodes (a match, no match by resource class, no match by traits),
 * lists and their filters, show, the node's allocation, updates (1.57), backfilling (1.58),
 * owner (1.60) and deletion (freeing the node; refused for an active node).
 */
import { FD, MISSING, type Step, V, del, get, post, provision, put, wait } from './corpus-helpers';

const RC = 'alloc-rc';

const alloc = (name: string, body: unknown, version = V, save?: Record<string, string>): Step => ({
  ...post(name, body, version, save),
  path: '/v1/allocations',
});
const patchAlloc = (name: string, ident: string, body: unknown, version = V): Step => ({
  name,
  method: 'PATCH',
  path: `/v1/allocations/${ident}`,
  body,
  version,
});
const settle = (ident: string): Step => ({
  name: `wait allocation ${ident}`,
  method: 'GET',
  path: `/v1/allocations/${ident}`,
  version: V,
  waitFor: '!allocating',
  waitField: 'state',
});
/** A fake-hardware node made available and powered on (allocations take powered nodes only). */
const availableNode = (name: string, extra: Record<string, unknown> = {}): Step[] => [
  post(`create allocation node ${name}`, { ...FD, name, resource_class: RC, ...extra }),
  provision(`manage ${name}`, name, 'manage'),
  wait(name, 'manageable'),
  provision(`provide ${name}`, name, 'provide'),
  wait(name, 'available'),
  put(`power on ${name}`, `/v1/nodes/${name}/states/power`, { target: 'power on' }),
  { name: `wait ${name} powered`, method: 'GET', path: `/v1/nodes/${name}`, version: V, waitFor: 'power on', waitField: 'power_state' },
];

export const ALLOCATIONS: Step[] = [
  get('allocations: empty list', '/v1/allocations'),
  get('allocations: list at 1.51', '/v1/allocations', '1.51'),
  alloc('allocations: create at 1.51', { resource_class: RC }, '1.51'),
  ...availableNode('an1'),
  ...availableNode('an2'),
  put('allocations: traits of an2', '/v1/nodes/an2/traits', { traits: ['CUSTOM_GOLD'] }),

  alloc('allocations: create without resource class', {}),
  alloc('allocations: create with an invalid name', { resource_class: RC, name: 'bad name' }),
  alloc('allocations: create with an unknown field', { resource_class: RC, colour: 'blue' }),
  alloc('allocations: create with an invalid uuid', { resource_class: RC, uuid: 'abc' }),
  alloc('allocations: create with a bad trait', { resource_class: RC, traits: ['gold'] }),
  alloc('allocations: create with a too long resource class', { resource_class: 'r'.repeat(81) }),
  alloc('allocations: create with unknown candidates', { resource_class: RC, candidate_nodes: ['an1', 'no-such', MISSING] }),
  alloc('allocations: create with an owner at 1.59', { resource_class: RC, owner: 'p' }, '1.59'),
  alloc('allocations: create with a node at 1.57', { node: 'an1' }, '1.57'),
  alloc('allocations: create with an unknown node', { node: 'no-such' }),

  alloc('allocations: create with traits', { resource_class: RC, traits: ['CUSTOM_GOLD'], name: 'gold', extra: { k: 'v' } }, V, {
    a1: 'uuid',
  }),
  settle('gold'),
  get('allocations: show the active one', '/v1/allocations/gold'),
  get('allocations: its node', '/v1/nodes/an2?fields=instance_uuid,allocation_uuid,instance_info'),
  get('allocations: the node allocation', '/v1/nodes/an2/allocation'),
  get('allocations: the node allocation with fields', '/v1/nodes/an2/allocation?fields=uuid,node_uuid'),
  get('allocations: a node without allocation', '/v1/nodes/an1/allocation'),
  get('allocations: the node allocation at 1.51', '/v1/nodes/an2/allocation', '1.51'),
  get('allocations: the allocation of an unknown node', '/v1/nodes/no-such/allocation'),
  alloc('allocations: no node of the resource class', { resource_class: 'nothing-here', name: 'none' }),
  settle('none'),
  get('allocations: show the failed one', '/v1/allocations/none'),
  alloc('allocations: no node with the traits', { resource_class: RC, traits: ['CUSTOM_SILVER'], name: 'silver' }),
  settle('silver'),
  get('allocations: show the traits failure', '/v1/allocations/silver'),
  alloc('allocations: candidates', { resource_class: RC, candidate_nodes: ['an2'], name: 'cand' }),
  settle('cand'),
  get('allocations: show the candidates failure', '/v1/allocations/cand?fields=state,last_error,candidate_nodes'),

  get('allocations: list', '/v1/allocations'),
  get('allocations: list by node', '/v1/allocations?node=an2'),
  get('allocations: list by an unknown node', '/v1/allocations?node=no-such'),
  get('allocations: list by state', '/v1/allocations?state=error&fields=name'),
  get('allocations: list by resource class', `/v1/allocations?resource_class=${RC}&fields=name,state`),
  get('allocations: list by owner', '/v1/allocations?owner=nobody'),
  get('allocations: list by owner at 1.59', '/v1/allocations?owner=x', '1.59'),
  get('allocations: list with fields', '/v1/allocations?fields=uuid,name'),
  get('allocations: list with owner field at 1.59', '/v1/allocations?fields=owner', '1.59'),
  get('allocations: list with an unknown field', '/v1/allocations?fields=bogus'),
  get('allocations: list page', '/v1/allocations?limit=1'),
  get('allocations: list page 2', '/v1/allocations?limit=1&marker={a1}'),
  get('allocations: list sorted by name', '/v1/allocations?sort_key=name&fields=name'),
  get('allocations: list sorted by traits', '/v1/allocations?sort_key=traits'),
  get('allocations: list sorted by an unknown key', '/v1/allocations?sort_key=bogus'),
  get('allocations: list sorted in a bad direction', '/v1/allocations?sort_dir=up'),
  get('allocations: list with an unknown marker', `/v1/allocations?marker=${MISSING}`),
  get('allocations: list limit 0', '/v1/allocations?limit=0'),
  get('allocations: list with an unknown argument', '/v1/allocations?colour=blue'),
  get('allocations: show at 1.59', '/v1/allocations/gold', '1.59'),
  get('allocations: show with fields', '/v1/allocations/gold?fields=name,state,node_uuid'),
  get('allocations: show with an unknown field', '/v1/allocations/gold?fields=bogus'),
  get('allocations: show an unknown one', `/v1/allocations/${MISSING}`),
  get('allocations: show an unknown name', '/v1/allocations/no-such'),
  get('allocations: show an invalid ident', '/v1/allocations/bad%20name'),

  patchAlloc('allocations: patch at 1.56', 'gold', [{ op: 'add', path: '/extra/a', value: 1 }], '1.56'),
  patchAlloc('allocations: patch extra and name', 'gold', [
    { op: 'add', path: '/extra/a', value: 1 },
    { op: 'replace', path: '/name', value: 'golden' },
  ]),
  patchAlloc('allocations: patch resource class', 'golden', [{ op: 'replace', path: '/resource_class', value: 'x' }]),
  patchAlloc('allocations: patch an invalid name', 'golden', [{ op: 'replace', path: '/name', value: 'bad name' }]),
  patchAlloc('allocations: patch a duplicate name', 'golden', [{ op: 'replace', path: '/name', value: 'none' }]),
  patchAlloc('allocations: patch remove extra', 'golden', [{ op: 'remove', path: '/extra' }]),
  patchAlloc('allocations: patch a missing member', 'golden', [{ op: 'remove', path: '/extra/zzz' }]),

  del('allocations: delete at 1.51', '/v1/allocations/golden', '1.51'),
  del('allocations: delete an unknown one', `/v1/allocations/${MISSING}`),
  del('allocations: delete the active one', '/v1/allocations/golden'),
  get('allocations: the node is free', '/v1/nodes/an2?fields=instance_uuid,allocation_uuid'),
  del('allocations: delete a failed one', '/v1/allocations/none'),
  del('allocations: delete a node allocation that is gone', '/v1/nodes/an2/allocation'),

  provision('allocations: deploy an1', 'an1', 'active'),
  wait('an1', 'active'),
  alloc('allocations: backfill an available node', { node: 'an2', name: 'bf-bad' }),
  get('allocations: the failed backfill', '/v1/allocations/bf-bad?fields=state,node_uuid'),
  alloc('allocations: backfill an active node', { node: 'an1', name: 'bf', owner: 'proj' }),
  get('allocations: the active node backfilled', '/v1/nodes/an1?fields=instance_uuid,allocation_uuid'),
  del('allocations: delete for an active node', '/v1/nodes/an1/allocation'),
  put('allocations: maintenance on an1', '/v1/nodes/an1/maintenance'),
  del('allocations: delete in maintenance', '/v1/nodes/an1/allocation'),
  get('allocations: the list at the end', '/v1/allocations?fields=name,state,owner'),
];
