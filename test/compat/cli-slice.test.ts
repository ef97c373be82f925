/**
 * The real `openstack baremetal` client (Debian's python3-openstackclient and python3-ironicclient)
 * against a local stack: the walking skeleton's scenario exactly as an operator types it.
 * Needs the client installed (`.ci/run` installs it); this suite is not part of `npm test`.
 */
import type { LocalStack } from '../../local/stack';
import { startStack } from '../integration/helpers/stack';
import { baremetalClient } from './helpers/openstack';

let stack: LocalStack;
const baremetal = baremetalClient(() => stack.url);

beforeAll(async () => {
  stack = await startStack();
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

it('create, manage, provide, deploy, undeploy, show, list and delete with --wait', async () => {
  const uuid = await baremetal('node', 'create', '--driver', 'fake-hardware', '--name', 'cli-1', '-f', 'value', '-c', 'uuid');
  expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
  expect(await baremetal('node', 'list', '-f', 'value', '-c', 'Name', '-c', 'Provisioning State')).toBe('cli-1 enroll');

  await baremetal('node', 'manage', 'cli-1', '--wait', '60');
  await baremetal('node', 'provide', 'cli-1', '--wait', '60');
  expect(await baremetal('node', 'show', 'cli-1', '-f', 'value', '-c', 'provision_state')).toBe('available');

  await baremetal('node', 'deploy', 'cli-1', '--wait', '60');
  const shown = JSON.parse(await baremetal('node', 'show', 'cli-1', '-f', 'json')) as Record<string, unknown>;
  expect(shown).toMatchObject({ provision_state: 'active', last_error: null, uuid });
  // The deploy went through the Step Functions loop.
  const execution = stack.sfn.listExecutions(stack.stateMachineArn).find((e) => e.name.includes(uuid.slice(0, 8)));
  expect(execution?.status).toBe('SUCCEEDED');

  await baremetal('node', 'undeploy', 'cli-1', '--wait', '60');
  expect(await baremetal('node', 'show', 'cli-1', '-f', 'value', '-c', 'provision_state')).toBe('available');

  await baremetal('node', 'manage', 'cli-1', '--wait', '60');
  await baremetal('node', 'delete', 'cli-1');
  expect(await baremetal('node', 'list', '-f', 'value')).toBe('');
}, 300_000);

it('shows Ironic’s error when a verb is not allowed', async () => {
  await baremetal('node', 'create', '--driver', 'fake-hardware', '--name', 'cli-2');
  await expect(baremetal('node', 'deploy', 'cli-2')).rejects.toThrow('can not be performed on node');
  await baremetal('node', 'delete', 'cli-2');
}, 120_000);
