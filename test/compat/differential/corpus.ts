/**
 * The scripted requests the differential suite sends, in order, to a real Ironic 21.4 and to
 * Ironless: every node endpoint Ironless serves and their errors, at several microversions, with
 * pagination and ordering. `{name}` in a path or body is a value an earlier step saved; `{conductor}`
 * is the target's conductor host name.
 */
import { ALLOCATIONS } from './corpus-allocations';
import { BIOS_STEPS } from './corpus-bios';
import { CHANGES } from './corpus-changes';
import { CONSOLE_EVENTS_PASSTHRU } from './corpus-console';
import { CONDUCTORS_DRIVERS_HISTORY } from './corpus-conductors';
import { LIST } from './corpus-lists';
import { MANAGEMENT } from './corpus-management';
import { PROVISION } from './corpus-provision';
import { RAID_STEPS } from './corpus-raid';
import { RESOURCES } from './corpus-resources';
import { VOLUME } from './corpus-volume';
import { FD, INSTANCE, MISSING, type Step, U1, U2, V, get, post } from './corpus-helpers';

export type { Step } from './corpus-helpers';

const CREATE: Step[] = [
  get('empty list', '/v1/nodes'),
  post('create minimal', { ...FD, name: 'dn1' }, V, { n1: 'uuid' }),
  post(
    'create full',
    {
      ...FD,
      uuid: U1,
      name: 'dn2',
      description: 'Rack 7, Top of Rack',
      resource_class: 'baremetal-large',
      shard: 'Shard-A',
      lessee: 'tenant-b',
      conductor_group: '',
      properties: { cpus: 8, memory_mb: '4096', local_gb: 10, cpu_arch: 'x86_64' },
      driver_info: { ipmi_password: 'secret', ipmi_username: 'admin', nested: { auth_token: 't', plain: 'p' }, note: 'password=abc' },
      instance_info: { image_url: 'http://example.com/img', configdrive: 'Zm9v', root_gb: 10 },
      extra: { rack: 7, tags: ['a', 'b'] },
      automated_clean: 'false',
      maintenance: 'yes',
    },
    V,
  ),
  post('create at 1.1', { ...FD }, '1.1', { old: 'uuid' }),
  post('create at 1.1 with a name', { ...FD, name: 'old-name' }, '1.1'),
  post('create at 1.4 with name null', { ...FD, name: null, uuid: U2 }, '1.4'),
  post('create at 1.9 with a hostname-unsafe name', { ...FD, name: 'Node_1' }, '1.9'),
  post('create at 1.45 with conductor_group ""', { ...FD, conductor_group: '', name: 'cg-empty' }, '1.45'),
  post('create at 1.45 with conductor_group', { ...FD, conductor_group: 'x' }, '1.45'),
  post('create at 1.81 with a shard', { ...FD, shard: 's' }, '1.81'),
  post('create at 1.64 with a lessee', { ...FD, lessee: 'l' }, '1.64'),
  post('create at 1.60 with retired', { ...FD, retired: true }, '1.60'),
  post('create without driver', { name: 'x' }),
  post('create with a number as driver', { driver: 5 }),
  post('create with an unknown field', { ...FD, colour: 'blue' }),
  post('create with two unknown fields', { ...FD, zeta: 1, alpha: 2 }),
  post('create with an unknown field and a bad type', { driver: 5, colour: 'blue' }),
  post('create with a list body', [FD]),
  post('create with a string body', 'fake-hardware'),
  { name: 'create with an empty body', method: 'POST', path: '/v1/nodes', version: V },
  { name: 'create with a query argument', method: 'POST', path: '/v1/nodes?foo=1', body: FD, version: V },
  post('create with an invalid name', { ...FD, name: 'bad name' }),
  post('create with a reserved name', { ...FD, name: 'detail' }),
  post('create with another reserved name', { ...FD, name: 'maintenance' }),
  post('create with a UUID as name', { ...FD, name: MISSING }),
  post('create with a duplicate name', { ...FD, name: 'dn1' }),
  post('create with a duplicate uuid', { ...FD, uuid: U1 }),
  post('create with an invalid uuid', { ...FD, uuid: 'not-a-uuid' }),
  post('create with an invalid instance_uuid', { ...FD, instance_uuid: 'abc' }),
  post('create with an instance', { ...FD, name: 'inst1', instance_uuid: INSTANCE }, V, { inst1: 'uuid' }),
  post('create with the same instance', { ...FD, instance_uuid: INSTANCE }),
  post('create with a bad boolean', { ...FD, maintenance: 'maybe' }),
  post('create with a number as boolean', { ...FD, console_enabled: 7 }),
  post('create with an owner', { ...FD, owner: 'someone' }),
  post('create with an empty owner', { ...FD, owner: '', name: 'empty-owner' }),
  post('create with a chassis', { ...FD, chassis_uuid: MISSING }),
  post('create with an unknown driver', { driver: 'ipmi' }),
  post('create with an unknown conductor group', { ...FD, conductor_group: 'ABC' }),
  post('create with an unknown boot interface', { ...FD, boot_interface: 'pxe' }),
  post('create with an unknown interface in instance_info', { ...FD, instance_info: { deploy_interface: 'ansible' } }),
  post('create with bad integer properties', { ...FD, properties: { cpus: 'x', memory_mb: -1, local_gb: '12' } }),
  post('create with a too long description', { ...FD, description: 'd'.repeat(4097) }),
  post('create with a too long resource class', { ...FD, resource_class: 'r'.repeat(81) }),
  post('create with empty network_data', { ...FD, network_data: {}, name: 'nd-empty' }),
  post('create with bad network_data', { ...FD, network_data: { a: 1 } }),
  post('create with a list as extra', { ...FD, extra: [1] }),
  post('create with storage interface fake', { ...FD, storage_interface: 'fake', name: 'st-fake' }),
  post('create with an upper-case uuid', { ...FD, uuid: '66666666-AAAA-4AAA-8AAA-666666666666', name: 'upper' }),
  post('create with a .json name', { ...FD, name: 'j.json' }),
  { name: 'create with malformed JSON', method: 'POST', path: '/v1/nodes', raw: '{"driver": ', version: V },
];

const SHOW: Step[] = [
  get('show by uuid', '/v1/nodes/{n1}'),
  get('show by name', '/v1/nodes/dn2'),
  get('show with secrets', `/v1/nodes/${U1}`),
  get('show at 1.1', '/v1/nodes/{n1}', '1.1'),
  get('show at 1.1 without a version header', '/v1/nodes/{old}', undefined),
  get('show at 1.4 by name', '/v1/nodes/dn1', '1.4'),
  get('show at 1.31', '/v1/nodes/{n1}', '1.31'),
  get('show at 1.37', '/v1/nodes/{n1}', '1.37'),
  get('show at 1.49', '/v1/nodes/{n1}', '1.49'),
  get('show at 1.52', '/v1/nodes/{n1}', '1.52'),
  get('show at 1.65', '/v1/nodes/{n1}', '1.65'),
  get('show at 1.78', '/v1/nodes/{n1}', '1.78'),
  get('show latest', '/v1/nodes/{n1}', 'latest'),
  get('show with OpenStack-API-Version', '/v1/nodes/{n1}', undefined),
  get('show by name with a .json suffix', '/v1/nodes/dn1.json'),
  get('show an unknown uuid', `/v1/nodes/${MISSING}`),
  get('show an upper-case uuid as created', '/v1/nodes/66666666-AAAA-4AAA-8AAA-666666666666?fields=uuid,name'),
  get('show an upper-case uuid in lower case', '/v1/nodes/66666666-aaaa-4aaa-8aaa-666666666666?fields=uuid,name'),
  get('show a uuid without dashes', `/v1/nodes/${U1.replace(/-/g, '')}`),
  get('show a name ending in .json', '/v1/nodes/j.json?fields=name'),
  get('show an unknown name', '/v1/nodes/no-such-node'),
  get('show by name in upper case', '/v1/nodes/DN1'),
  get('show an invalid ident', '/v1/nodes/bad%20name'),
  get('show an ident invalid at 1.9', '/v1/nodes/Node_1', '1.9'),
  get('show with fields', '/v1/nodes/{n1}?fields=name,uuid,provision_state'),
  get('show with fields in capitals and blanks', '/v1/nodes/{n1}?fields=Name,%20UUID'),
  get('show with fields at 1.7', '/v1/nodes/{n1}?fields=name', '1.7'),
  get('show with a field newer than the version', '/v1/nodes/{n1}?fields=owner', '1.49'),
  get('show with an unknown field', '/v1/nodes/{n1}?fields=name,bogus'),
  get('show with fields=created_at', '/v1/nodes/{n1}?fields=created_at'),
  get('show with api fields', '/v1/nodes/{n1}?fields=conductor,chassis_uuid,allocation_uuid,traits'),
  get('show with empty fields', '/v1/nodes/{n1}?fields='),
  get('show with a query argument', '/v1/nodes/{n1}?foo=bar'),
  get('show with fields repeated', '/v1/nodes/{n1}?fields=name&fields=uuid'),
  get('unsupported version', '/v1/nodes/{n1}', '1.83'),
  get('unsupported major version', '/v1/nodes/{n1}', '2.1'),
  get('unparsable version', '/v1/nodes/{n1}', 'abc'),
];
// OpenStack-API-Version form of the header.
SHOW.splice(
  SHOW.findIndex((s) => s.name === 'show with OpenStack-API-Version'),
  1,
  {
    name: 'show with OpenStack-API-Version',
    method: 'GET',
    path: '/v1/nodes/{n1}',
    headers: { 'OpenStack-API-Version': 'baremetal 1.65' },
  },
);

export const CORPUS: readonly Step[] = [
  ...CREATE,
  ...SHOW,
  ...LIST,
  ...CHANGES,
  ...MANAGEMENT,
  ...RESOURCES,
  ...ALLOCATIONS,
  ...CONDUCTORS_DRIVERS_HISTORY,
  ...PROVISION,
  ...RAID_STEPS,
  ...VOLUME,
  ...CONSOLE_EVENTS_PASSTHRU,
  ...BIOS_STEPS,
];
