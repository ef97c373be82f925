/**
 * The real `openstack baremetal` client (Debian's python3-openstackclient and python3-ironicclient)
 * against a local stack: the walking skeleton's scenario exactly as an operator types it.
 * Needs the client installed (`.ci/run` installs it); this suite is not part of `npm test`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { LocalStack } from '../../local/stack';
import { startStack } from '../integration/helpers/stack';

const run = promisify(execFile);
let stack: LocalStack;

async function baremetal(...args: string[]): Promise<string> {
  try {
    const { stdout } = await run('openstack', ['baremetal', ...args], {
      env: { ...process.env, OS_AUTH_TYPE: 'none', OS_ENDPOINT: stack.url },
      timeout: 120_000,
    });
    return stdout.trim();
  } catch (err) {
    const e = err as { code?: string; stderr?: string; message: string };
    if (e.code === 'ENOENT')
      throw new Error(
        'The openstack client is not installed: apt-get install python3-openstackclient python3-ironicclient (or run .ci/run)',
      );
    throw new Error(`openstack baremetal ${args.join(' ')} failed: ${e.stderr ?? e.message}`);
  }
}

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
