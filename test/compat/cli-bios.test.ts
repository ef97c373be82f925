/**
 * The real `openstack baremetal` client against a local stack for BIOS settings: a manual clean
 * with fake-hardware's apply_configuration stores them, `node bios setting list` (plain, `--long`
 * and `--fields`) and `node bios setting show` read them, factory_reset deletes them. Needs the
 * client installed (`.ci/run`).
 */
import type { LocalStack } from '../../local/stack';
import { startStack } from '../integration/helpers/stack';
import { BaremetalError, baremetalClient } from './helpers/openstack';

let stack: LocalStack;
const baremetal = baremetalClient(() => stack.url);

beforeAll(async () => {
  stack = await startStack();
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

const settings = [
  { name: 'ProcTurboMode', value: 'Disabled' },
  { name: 'NumLock', value: 'On' },
];

it('lists and shows the BIOS settings a clean step stored, and none after a factory reset', async () => {
  await baremetal('node', 'create', '--driver', 'fake-hardware', '--name', 'cli-b');
  await baremetal('node', 'manage', 'cli-b', '--wait', '60');
  expect(JSON.parse(await baremetal('node', 'bios', 'setting', 'list', 'cli-b', '-f', 'json'))).toEqual([]);
  const steps = [{ interface: 'bios', step: 'apply_configuration', args: { settings } }];
  await baremetal('node', 'clean', 'cli-b', '--clean-steps', JSON.stringify(steps), '--wait', '60');

  const listed = JSON.parse(await baremetal('node', 'bios', 'setting', 'list', 'cli-b', '-f', 'json')) as Record<string, unknown>[];
  expect(listed).toEqual(expect.arrayContaining([{ 'BIOS setting name': 'NumLock', 'BIOS setting value': 'On' }]));
  expect(listed).toHaveLength(2);
  const long = JSON.parse(await baremetal('node', 'bios', 'setting', 'list', 'cli-b', '--long', '-f', 'json')) as Record<string, unknown>[];
  expect(long.find((s) => s.Name === 'ProcTurboMode')).toMatchObject({ Name: 'ProcTurboMode', Value: 'Disabled', 'Read Only': null });
  const fields = JSON.parse(
    await baremetal('node', 'bios', 'setting', 'list', 'cli-b', '--fields', 'name', 'unique', '-f', 'json'),
  ) as Record<string, unknown>[];
  expect(fields.map((s) => Object.keys(s).sort())).toEqual([
    ['Name', 'Unique'],
    ['Name', 'Unique'],
  ]);
  expect(JSON.parse(await baremetal('node', 'bios', 'setting', 'show', 'cli-b', 'ProcTurboMode', '-f', 'json'))).toMatchObject({
    name: 'ProcTurboMode',
    value: 'Disabled',
    attribute_type: null,
  });
  await expect(baremetal('node', 'bios', 'setting', 'show', 'cli-b', 'Nope')).rejects.toThrow(BaremetalError);

  await baremetal(
    'node',
    'clean',
    'cli-b',
    '--clean-steps',
    JSON.stringify([{ interface: 'bios', step: 'factory_reset' }]),
    '--wait',
    '60',
  );
  expect(JSON.parse(await baremetal('node', 'bios', 'setting', 'list', 'cli-b', '-f', 'json'))).toEqual([]);
}, 180_000);
