/**
 * The requests of the differential corpus for volume connectors and targets (API 1.32): discovery
 * per version, Nova's cleanup read, every verb and its errors, unique values, fields, pagination,
 * nested paths, the node's power state, and the cascade of a node's deletion. Runs on nodes of
 * its own (vn1 in enroll with no power state, vn2 powered off), since 21.4 and Ironic master
 * (which Ironless follows) differ on deleting from a node in enroll that is not powered off.
 */
import { FD, MISSING, type Step, V, del, get } from './corpus-helpers';

const send = (name: string, method: string, path: string, body?: unknown, version = V, save?: Record<string, string>): Step => ({
  name,
  method,
  path,
  version,
  ...(body !== undefined ? { body } : {}),
  ...(save ? { save } : {}),
});
const C = '/v1/volume/connectors';
const T = '/v1/volume/targets';
const CU = '55555555-5555-4555-8555-555555555555';
const IQN = 'iqn.2026-11.org.example:vn1';
const replace = (path: string, value: unknown) => [{ op: 'replace', path, value }];

const SETUP: Step[] = [
  send('volume node 1', 'POST', '/v1/nodes', { ...FD, name: 'vn1' }, V, { vn1: 'uuid' }),
  send('volume node 2', 'POST', '/v1/nodes', { ...FD, name: 'vn2' }, V, { vn2: 'uuid' }),
  send('volume node 2 power off', 'PUT', '/v1/nodes/vn2/states/power', { target: 'power off' }),
  { name: 'wait vn2 off', method: 'GET', path: '/v1/nodes/vn2', version: V, waitFor: 'power off', waitField: 'power_state' },
];

const DISCOVERY: Step[] = [
  get('volume root', '/v1/volume'),
  get('volume root at 1.32', '/v1/volume', '1.32'),
  get('volume root at 1.31', '/v1/volume', '1.31'),
  get('volume connectors at 1.31', C, '1.31'),
  get('volume targets at 1.31', T, '1.31'),
  get('node volume', '/v1/nodes/vn1/volume'),
  get('node volume at 1.31', '/v1/nodes/{vn1}/volume', '1.31'),
  get('node volume connectors at 1.31', '/v1/nodes/{vn1}/volume/connectors', '1.31'),
  get('node volume of a bad ident', '/v1/nodes/bad%20name/volume'),
  get('v1 at 1.31 without volume', '/v1', '1.31'),
  get("nova's read of a node's targets", '/v1/nodes/{vn1}/volume/targets?detail=True', '1.46'),
  get('node targets by name', '/v1/nodes/vn1/volume/targets'),
  get('node targets of an unknown node', `/v1/nodes/${MISSING}/volume/targets`),
];

const CONNECTORS: Step[] = [
  get('connectors empty', C),
  send('connector create', 'POST', C, { node_uuid: '{vn1}', type: 'iqn', connector_id: IQN, extra: { a: 1 } }, V, { c1: 'uuid' }),
  send('connector create with uuid at 1.32', 'POST', C, { node_uuid: '{vn2}', type: 'ip', connector_id: '10.0.0.2', uuid: CU }, '1.32'),
  send('connector create on vn2', 'POST', C, { node_uuid: '{vn2}', type: 'mac', connector_id: '52:54:00:00:0a:02' }, V, { c3: 'uuid' }),
  send('connector create duplicate type and id', 'POST', C, { node_uuid: '{vn2}', type: 'iqn', connector_id: IQN }),
  send('connector create duplicate uuid', 'POST', C, { node_uuid: '{vn1}', type: 'ip', connector_id: '10.0.0.9', uuid: CU }),
  send('connector create unknown node', 'POST', C, { node_uuid: MISSING, type: 'ip', connector_id: '10.0.0.3' }),
  send('connector create node by name', 'POST', C, { node_uuid: 'vn1', type: 'ip', connector_id: '10.0.0.3' }),
  send('connector create missing type', 'POST', C, { node_uuid: '{vn1}', connector_id: '10.0.0.3' }),
  send('connector create unknown field', 'POST', C, { node_uuid: '{vn1}', type: 'ip', connector_id: 'x', foo: 1 }),
  send('connector create number as type', 'POST', C, { node_uuid: '{vn1}', type: 5, connector_id: 'x' }),
  send('connector create bad uuid', 'POST', C, { node_uuid: '{vn1}', type: 'ip', connector_id: 'x', uuid: 'nope' }),
  send('connector create extra not an object', 'POST', C, { node_uuid: '{vn1}', type: 'ip', connector_id: 'x', extra: [1] }),
  send('connector create nested', 'POST', '/v1/nodes/{vn1}/volume/connectors', { node_uuid: '{vn1}', type: 'ip', connector_id: 'y' }),
  send('connector create at 1.31', 'POST', C, { node_uuid: '{vn1}', type: 'ip', connector_id: 'z' }, '1.31'),
  get('connectors list', C),
  get('connectors list detail', `${C}?detail=True`),
  get('connectors list detail at 1.32', `${C}?detail=True`, '1.32'),
  get('connectors list detail false', `${C}?detail=False`),
  get('connectors list fields', `${C}?fields=uuid,extra`),
  get('connectors list bad field', `${C}?fields=uuid,bogus`),
  get('connectors list fields and detail', `${C}?fields=uuid&detail=True`),
  get('connectors list empty fields and detail', `${C}?fields=&detail=True`),
  get('connectors list limit', `${C}?limit=1`),
  get('connectors list limit detail', `${C}?limit=1&detail=True`),
  get('connectors list limit fields', `${C}?limit=2&fields=type`),
  get('connectors list limit 0', `${C}?limit=0`),
  get('connectors list marker', `${C}?limit=1&marker={c1}`),
  get('connectors list unknown marker', `${C}?marker=${MISSING}`),
  get('connectors list sort desc', `${C}?sort_key=connector_id&sort_dir=desc`),
  get('connectors list sort by extra', `${C}?sort_key=extra`),
  get('connectors list sort by bogus', `${C}?sort_key=bogus`),
  get('connectors list bad sort dir', `${C}?sort_dir=up`),
  get('connectors list by node name', `${C}?node=vn2`),
  get('connectors list by unknown node', `${C}?node=${MISSING}`),
  get('connectors list by bad node', `${C}?node=bad%20name`),
  get('connectors list unexpected argument', `${C}?foo=1`),
  get('connectors of a node', '/v1/nodes/{vn2}/volume/connectors'),
  get('connectors of a node detail', '/v1/nodes/{vn2}/volume/connectors?detail=True'),
  get('connectors of a node by name', '/v1/nodes/vn2/volume/connectors'),
  get('connector show', `${C}/{c1}`),
  get('connector show fields', `${C}/{c1}?fields=type,node_uuid`),
  get('connector show bad field', `${C}/{c1}?fields=bogus`),
  get('connector show unknown', `${C}/${MISSING}`),
  get('connector show not a uuid', `${C}/abc`),
  get('connector show detail path', `${C}/detail`),
  get('connector show nested', '/v1/nodes/{vn1}/volume/connectors/{c1}'),
  send('connector patch powered on', 'PATCH', `${C}/{c1}`, replace('/extra', { b: 2 })),
  send('connector patch', 'PATCH', `${C}/{c3}`, [
    ...replace('/connector_id', '52:54:00:00:0a:03'),
    { op: 'add', path: '/extra/k', value: 'v' },
  ]),
  send('connector patch uuid', 'PATCH', `${C}/{c3}`, replace('/uuid', MISSING)),
  send('connector patch node by name', 'PATCH', `${C}/{c3}`, replace('/node_uuid', 'vn1')),
  send('connector patch unknown node', 'PATCH', `${C}/{c3}`, replace('/node_uuid', MISSING)),
  send('connector patch to a duplicate', 'PATCH', `${C}/{c3}`, [...replace('/type', 'iqn'), ...replace('/connector_id', IQN)]),
  send('connector patch number as type', 'PATCH', `${C}/{c3}`, replace('/type', 7)),
  send('connector patch remove extra', 'PATCH', `${C}/{c3}`, [{ op: 'remove', path: '/extra' }]),
  send('connector patch new root', 'PATCH', `${C}/{c3}`, [{ op: 'add', path: '/foo', value: 1 }]),
  send('connector patch not a list', 'PATCH', `${C}/{c3}`, { op: 'replace' }),
  send('connector patch unknown', 'PATCH', `${C}/${MISSING}`, replace('/type', 'ip')),
  send('connector patch nested', 'PATCH', '/v1/nodes/{vn2}/volume/connectors/{c3}', replace('/type', 'ip')),
  del('connector delete nested', '/v1/nodes/{vn2}/volume/connectors/{c3}'),
  del('connector delete', `${C}/{c3}`),
  del('connector delete again', `${C}/{c3}`),
  del('connector delete not a uuid', `${C}/abc`),
];

const TARGETS: Step[] = [
  get('targets empty', T),
  send(
    'target create',
    'POST',
    T,
    { node_uuid: '{vn2}', volume_type: 'iscsi', boot_index: 0, volume_id: 'vol-1', properties: { auth_password: 'p', target_lun: 0 } },
    V,
    { t1: 'uuid' },
  ),
  send('target create same boot index', 'POST', T, { node_uuid: '{vn2}', volume_type: 'iscsi', boot_index: 0, volume_id: 'vol-2' }),
  send('target create boot index 1', 'POST', T, { node_uuid: '{vn2}', volume_type: 'iscsi', boot_index: 1, volume_id: 'vol-2' }, V, {
    t2: 'uuid',
  }),
  send('target create same boot index other node', 'POST', T, {
    node_uuid: '{vn1}',
    volume_type: 'fibre_channel',
    boot_index: 0,
    volume_id: 'vol-3',
  }),
  send('target create missing boot index', 'POST', T, { node_uuid: '{vn1}', volume_type: 'iscsi', volume_id: 'vol-4' }),
  send('target create string boot index', 'POST', T, { node_uuid: '{vn1}', volume_type: 'iscsi', boot_index: '1', volume_id: 'v' }),
  send('target create unknown node', 'POST', T, { node_uuid: MISSING, volume_type: 'iscsi', boot_index: 3, volume_id: 'v' }),
  get('targets list', T),
  get('targets list detail', `${T}?detail=True`),
  get('targets list fields', `${T}?fields=properties,boot_index`),
  get('targets list limit', `${T}?limit=1`),
  get('targets list sort by boot index desc', `${T}?sort_key=boot_index&sort_dir=desc`),
  get('targets list sort by properties', `${T}?sort_key=properties`),
  get('targets of a node', '/v1/nodes/{vn2}/volume/targets?detail=True'),
  get('target show', `${T}/{t1}`),
  get('target show not a uuid', `${T}/abc`),
  send('target patch boot index to a duplicate', 'PATCH', `${T}/{t2}`, replace('/boot_index', 0)),
  send('target patch', 'PATCH', `${T}/{t2}`, [...replace('/boot_index', 5), { op: 'add', path: '/properties/target_iqn', value: 'iqn.x' }]),
  send('target patch string boot index', 'PATCH', `${T}/{t2}`, replace('/boot_index', 'x')),
  send('target patch not patchable', 'PATCH', `${T}/{t2}`, replace('/created_at', 'x')),
  del('target delete', `${T}/{t2}`),
  del('node with volumes delete', '/v1/nodes/vn2'),
  get('targets after the node went', T),
  get('connectors after the node went', C),
];

export const VOLUME: readonly Step[] = [...SETUP, ...DISCOVERY, ...CONNECTORS, ...TARGETS];
