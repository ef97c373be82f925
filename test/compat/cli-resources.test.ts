/**
 * The real `openstack baremetal` client against a local stack for ports, port groups, chassis and
 * deploy templates: create, list, show, set, unset and delete as an operator types them. (The client
 * reads `key=value` values as JSON: `row=3` is the number 3.) Needs
 * the client installed (`.ci/run` installs it); this suite is not part of `npm test`.
 */
import type { LocalStack } from '../../local/stack';
import { startStack } from '../integration/helpers/stack';
import { baremetalClient } from './helpers/openstack';

let stack: LocalStack;
const baremetal = baremetalClient(() => stack.url, { globalArgs: ['--os-baremetal-api-version', 'latest'] });
let node: string;

const json = async (...args: string[]) => JSON.parse(await baremetal(...args, '-f', 'json')) as Record<string, unknown>;

beforeAll(async () => {
  stack = await startStack();
  node = await baremetal('node', 'create', '--driver', 'fake-hardware', '--name', 'cli-res', '-f', 'value', '-c', 'uuid');
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

it('chassis create, list, show, set, unset, delete', async () => {
  const uuid = await baremetal('chassis', 'create', '--description', 'rack 1', '--extra', 'row=3', '-f', 'value', '-c', 'uuid');
  expect(await baremetal('chassis', 'list', '-f', 'value', '-c', 'Description')).toBe('rack 1');
  await baremetal('chassis', 'set', uuid, '--description', 'rack 2', '--extra', 'col=4');
  expect(await json('chassis', 'show', uuid)).toMatchObject({ description: 'rack 2', extra: { row: 3, col: 4 } });
  await baremetal('chassis', 'unset', uuid, '--extra', 'row');
  expect((await json('chassis', 'show', uuid)).extra).toEqual({ col: 4 });
  await baremetal('chassis', 'delete', uuid);
  expect(await baremetal('chassis', 'list', '-f', 'value')).toBe('');
}, 180_000);

it('port group and port create, list, show, set, unset, delete', async () => {
  const pg = await json(
    'port',
    'group',
    'create',
    '--node',
    node,
    '--name',
    'bond-cli',
    '--address',
    '52:54:00:ee:00:01',
    '--mode',
    '802.3ad',
    '--property',
    'miimon=100',
  );
  expect(pg).toMatchObject({ name: 'bond-cli', mode: '802.3ad', properties: { miimon: 100 } });
  expect(await baremetal('port', 'group', 'list', '-f', 'value', '-c', 'Name')).toBe('bond-cli');
  await baremetal('port', 'group', 'set', 'bond-cli', '--extra', 'a=1');
  await baremetal('port', 'group', 'unset', 'bond-cli', '--property', 'miimon');
  expect(await json('port', 'group', 'show', 'bond-cli')).toMatchObject({ extra: { a: 1 }, properties: {} });

  const port = await json(
    'port',
    'create',
    '52:54:00:EE:00:02',
    '--node',
    node,
    '--port-group',
    pg.uuid as string,
    '--physical-network',
    'net1',
    '--local-link-connection',
    'switch_id=aa:bb:cc:dd:ee:ff',
    '--local-link-connection',
    'port_id=Eth1',
  );
  expect(port).toMatchObject({ address: '52:54:00:ee:00:02', physical_network: 'net1', portgroup_uuid: pg.uuid });
  expect(await baremetal('port', 'list', '--node', node, '-f', 'value', '-c', 'Address')).toBe('52:54:00:ee:00:02');
  expect(await baremetal('port', 'list', '--port-group', 'bond-cli', '-f', 'value', '-c', 'UUID')).toBe(port.uuid);
  await baremetal('port', 'set', port.uuid as string, '--extra', 'k=v', '--pxe-disabled');
  expect(await json('port', 'show', port.uuid as string)).toMatchObject({ extra: { k: 'v' }, pxe_enabled: false });
  await baremetal('port', 'unset', port.uuid as string, '--extra', 'k', '--physical-network');
  expect(await json('port', 'show', port.uuid as string)).toMatchObject({ extra: {}, physical_network: null });
  await expect(baremetal('port', 'create', '52:54:00:ee:00:02', '--node', node)).rejects.toThrow(
    'A port with MAC address 52:54:00:ee:00:02 already exists.',
  );
  await expect(baremetal('port', 'group', 'delete', 'bond-cli')).rejects.toThrow('contains ports');
  await baremetal('port', 'delete', port.uuid as string);
  await baremetal('port', 'group', 'delete', 'bond-cli');
  expect(await baremetal('port', 'list', '-f', 'value')).toBe('');
  expect(await baremetal('port', 'group', 'list', '-f', 'value')).toBe('');
}, 240_000);

it('deploy template create, list, show, set, unset, delete', async () => {
  const steps = JSON.stringify([{ interface: 'bios', step: 'apply_configuration', args: { settings: [] }, priority: 10 }]);
  const created = await json('deploy', 'template', 'create', 'CUSTOM_CLI', '--steps', steps, '--extra', 'a=1');
  expect(created).toMatchObject({ name: 'CUSTOM_CLI', extra: { a: 1 } });
  expect(await baremetal('deploy', 'template', 'list', '-f', 'value', '-c', 'Name')).toBe('CUSTOM_CLI');
  await baremetal('deploy', 'template', 'set', 'CUSTOM_CLI', '--name', 'CUSTOM_CLI2', '--extra', 'b=2');
  await baremetal('deploy', 'template', 'unset', 'CUSTOM_CLI2', '--extra', 'a');
  expect(await json('deploy', 'template', 'show', 'CUSTOM_CLI2')).toMatchObject({
    uuid: created.uuid,
    extra: { b: 2 },
    steps: [{ interface: 'bios', step: 'apply_configuration', args: { settings: [] }, priority: 10 }],
  });
  await expect(baremetal('deploy', 'template', 'create', 'not-a-trait', '--steps', steps)).rejects.toThrow('Schema error for template');
  await baremetal('deploy', 'template', 'delete', 'CUSTOM_CLI2');
  expect(await baremetal('deploy', 'template', 'list', '-f', 'value')).toBe('');
}, 180_000);
