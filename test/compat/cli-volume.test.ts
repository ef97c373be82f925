/**
 * The real `openstack baremetal volume connector …` and `volume target …` commands against a local
 * stack: create, list (also per node, long), show, set, unset and delete as an operator types
 * them, with the node powered off for set (Ironic's rule). Needs the client installed (`.ci/run`
 * installs it); this suite is not part of `npm test`.
 */
import type { LocalStack } from '../../local/stack';
import { startStack } from '../integration/helpers/stack';
import { BaremetalError, baremetalClient } from './helpers/openstack';

let stack: LocalStack;
const baremetal = baremetalClient(() => stack.url, { globalArgs: ['--os-baremetal-api-version', 'latest'] });
let node: string;

const json = async (...args: string[]) => JSON.parse(await baremetal(...args, '-f', 'json')) as Record<string, unknown>;

async function poweredOff(ident: string): Promise<void> {
  await baremetal('node', 'power', 'off', ident);
  for (let i = 0; i < 100; i++) {
    if ((await baremetal('node', 'show', ident, '-f', 'value', '-c', 'power_state')) === 'power off') return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${ident} did not power off`);
}

beforeAll(async () => {
  stack = await startStack();
  node = await baremetal('node', 'create', '--driver', 'fake-hardware', '--name', 'cli-vol', '-f', 'value', '-c', 'uuid');
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

it('volume connector create, list, show, set, unset, delete', async () => {
  const iqn = 'iqn.2026-11.org.example:cli-vol';
  const created = await json('volume', 'connector', 'create', '--node', node, '--type', 'iqn', '--connector-id', iqn, '--extra', 'a=1');
  expect(created).toMatchObject({ node_uuid: node, type: 'iqn', connector_id: iqn, extra: { a: 1 } });
  const uuid = created.uuid as string;
  await expect(baremetal('volume', 'connector', 'create', '--node', node, '--type', 'iqn', '--connector-id', iqn)).rejects.toThrow(
    /already exists/,
  );
  expect(await baremetal('volume', 'connector', 'list', '-f', 'value', '-c', 'Connector ID')).toBe(iqn);
  expect(await baremetal('volume', 'connector', 'list', '--node', 'cli-vol', '-f', 'value', '-c', 'UUID')).toBe(uuid);
  const long = JSON.parse(await baremetal('volume', 'connector', 'list', '--long', '-f', 'json')) as Record<string, unknown>[];
  expect(long).toEqual([expect.objectContaining({ UUID: uuid, Extra: { a: 1 } })]);
  // Ironic changes a connector only while its node is powered off.
  await expect(baremetal('volume', 'connector', 'set', uuid, '--type', 'ip')).rejects.toThrow(BaremetalError);
  await poweredOff(node);
  await baremetal('volume', 'connector', 'set', uuid, '--type', 'ip', '--connector-id', '192.0.2.10', '--extra', 'b=2');
  await baremetal('volume', 'connector', 'unset', uuid, '--extra', 'a');
  expect(await json('volume', 'connector', 'show', uuid)).toMatchObject({ type: 'ip', connector_id: '192.0.2.10', extra: { b: 2 } });
  await baremetal('volume', 'connector', 'delete', uuid);
  expect(await baremetal('volume', 'connector', 'list', '-f', 'value')).toBe('');
}, 240_000);

it('volume target create, list, show, set, unset, delete', async () => {
  const created = await json(
    'volume',
    'target',
    'create',
    '--node',
    node,
    '--type',
    'iscsi',
    '--boot-index',
    '0',
    '--volume-id',
    'vol-cli',
    '--property',
    'target_lun=0',
    '--property',
    'auth_password=secret',
  );
  expect(created).toMatchObject({
    volume_type: 'iscsi',
    boot_index: 0,
    volume_id: 'vol-cli',
    properties: { target_lun: 0, auth_password: '******' },
  });
  const uuid = created.uuid as string;
  await expect(
    baremetal('volume', 'target', 'create', '--node', node, '--type', 'iscsi', '--boot-index', '0', '--volume-id', 'other'),
  ).rejects.toThrow(/boot index '0' for the same node already exists/);
  expect(await baremetal('volume', 'target', 'list', '--node', node, '-f', 'value', '-c', 'Volume ID')).toBe('vol-cli');
  await poweredOff(node);
  await baremetal('volume', 'target', 'set', uuid, '--boot-index', '1', '--property', 'target_iqn=iqn.x', '--extra', 'c=3');
  await baremetal('volume', 'target', 'unset', uuid, '--property', 'target_lun');
  expect(await json('volume', 'target', 'show', uuid)).toMatchObject({
    boot_index: 1,
    properties: { target_iqn: 'iqn.x', auth_password: '******' },
    extra: { c: 3 },
  });
  await baremetal('volume', 'target', 'delete', uuid);
  expect(await baremetal('volume', 'target', 'list', '-f', 'value')).toBe('');
}, 240_000);
