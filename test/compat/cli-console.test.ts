/**
 * The real `openstack baremetal` client against a local stack for the node console, indicators'
 * neighbours and vendor passthru: `node console enable/show/disable`, `node passthru list/call` and
 * `driver passthru list`, as an operator types them. Needs the client installed (`.ci/run`).
 */
import type { LocalStack } from '../../local/stack';
import { startStack } from '../integration/helpers/stack';
import { BaremetalError, baremetalClient } from './helpers/openstack';

let stack: LocalStack;
const baremetal = baremetalClient(() => stack.url);

async function refused(...args: string[]): Promise<string> {
  try {
    await baremetal(...args);
  } catch (err) {
    if (err instanceof BaremetalError) return err.stderr;
    throw err;
  }
  throw new Error(`openstack baremetal ${args.join(' ')} succeeded`);
}

async function consoleOf(node: string): Promise<{ console_enabled: boolean; console_info: unknown }> {
  return JSON.parse(await baremetal('node', 'console', 'show', node, '-f', 'json'));
}

async function untilConsole(node: string, enabled: boolean): Promise<{ console_enabled: boolean; console_info: unknown }> {
  for (let i = 0; i < 100; i++) {
    const shown = await consoleOf(node);
    if (shown.console_enabled === enabled) return shown;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the console of ${node} never became ${String(enabled)}`);
}

beforeAll(async () => {
  stack = await startStack();
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

it('console enable, show and disable through the client', async () => {
  await baremetal('node', 'create', '--driver', 'fake-hardware', '--name', 'cli-c');
  expect(await consoleOf('cli-c')).toEqual({ console_enabled: false, console_info: null });
  await baremetal('node', 'console', 'enable', 'cli-c');
  expect(await untilConsole('cli-c', true)).toEqual({ console_enabled: true, console_info: {} });
  await baremetal('node', 'console', 'disable', 'cli-c');
  expect(await untilConsole('cli-c', false)).toEqual({ console_enabled: false, console_info: null });

  await baremetal('node', 'create', '--driver', 'fake-hardware', '--name', 'cli-nc', '--console-interface', 'no-console');
  expect(await refused('node', 'console', 'enable', 'cli-nc')).toContain(
    'Driver fake-hardware does not support console (disabled or not implemented).',
  );
}, 240_000);

it('passthru list and call through the client', async () => {
  await baremetal('node', 'create', '--driver', 'fake-hardware', '--name', 'cli-p');
  const methods = JSON.parse(await baremetal('node', 'passthru', 'list', 'cli-p', '-f', 'json')) as Record<string, unknown>[];
  expect(methods.find((m) => m.Name === 'third_method_sync')).toEqual({
    Name: 'third_method_sync',
    'Supported HTTP methods': 'POST',
    Async: false,
    Description: 'Test if the value of bar is meow',
    'Response is attachment': false,
  });
  // An asynchronous method: 202, nothing printed.
  expect(await baremetal('node', 'passthru', 'call', 'cli-p', 'second_method', '--arg', 'bar=kazoo')).toBe('');
  expect(await refused('node', 'passthru', 'call', 'cli-p', 'nope')).toContain('No handler for method nope (HTTP 400)');
  expect(await refused('node', 'passthru', 'call', 'cli-p', 'second_method')).toContain(
    "Parameter 'bar' not passed to method 'second_method'.",
  );
  expect(JSON.parse(await baremetal('driver', 'passthru', 'list', 'fake-hardware', '-f', 'json'))).toEqual([]);
}, 240_000);
