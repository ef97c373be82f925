/**
 * The real openstack client with OS_AUTH_TYPE=http_basic against a local stack running the
 * http_basic strategy: good credentials work, a wrong password is refused. Needs the client
 * installed (`.ci/run` installs it); this suite is not part of `npm test`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import bcrypt from 'bcryptjs';
import type { LocalStack } from '../../local/stack';
import { startStack } from '../integration/helpers/stack';

const run = promisify(execFile);
let stack: LocalStack;
let dir: string;

async function baremetal(password: string, ...args: string[]): Promise<{ ok: boolean; out: string }> {
  try {
    const { stdout } = await run('openstack', ['baremetal', ...args], {
      env: { ...process.env, OS_AUTH_TYPE: 'http_basic', OS_ENDPOINT: stack.url, OS_USERNAME: 'operator', OS_PASSWORD: password },
      timeout: 120_000,
    });
    return { ok: true, out: stdout.trim() };
  } catch (err) {
    const e = err as { code?: string | number; stderr?: string; message: string };
    if (e.code === 'ENOENT')
      throw new Error('The openstack client is not installed: apt-get install python3-openstackclient python3-ironicclient');
    return { ok: false, out: e.stderr ?? e.message };
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ironless-cli-auth-'));
  const file = join(dir, 'htpasswd');
  writeFileSync(file, `operator:${bcrypt.hashSync('pa55', 5)}\n`);
  stack = await startStack({ settings: { authStrategy: 'http_basic' }, htpasswdFile: file });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('creates and lists nodes with good credentials, and is refused with a wrong password', async () => {
  const created = await baremetal('pa55', 'node', 'create', '--driver', 'fake-hardware', '--name', 'basic-1', '-f', 'value', '-c', 'name');
  expect(created).toEqual({ ok: true, out: 'basic-1' });
  expect((await baremetal('pa55', 'node', 'list', '-f', 'value', '-c', 'Name')).out).toBe('basic-1');
  const refused = await baremetal('wrong', 'node', 'list');
  expect(refused.ok).toBe(false);
  expect(refused.out).toMatch(/401|Incorrect username or password|Unauthorized/i);
}, 120_000);
