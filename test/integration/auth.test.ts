/**
 * http_basic on a local stack: the gateway runs the same authorizer bundle as API Gateway would,
 * with the htpasswd file served as its Secrets Manager secret. Without or with bad credentials
 * the answer is ironic-lib's 401 with the Basic challenge; with good ones the API answers; the
 * version documents and the agent's lookup and heartbeat stay open. The gateway's decision cache
 * and the authorizer's refresh of its entries are short here, so a revoked password is refused
 * within their sum, as it would be on AWS with the deployed TTLs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import type { LocalStack } from '../../local/stack';
import { ApiClient, startStack } from './helpers/stack';

let stack: LocalStack;
let api: ApiClient;
let dir: string;
let file: string;

/** Short TTLs, so that revocation is observable in a test; the defaults are 60 s and 30 s. */
const CACHE_SECONDS = 1;
const REFRESH_SECONDS = 2;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const entry = (user: string, password: string) => `${user}:${bcrypt.hashSync(password, 5).replace(/^\$2b\$/, '$2y$')}\n`;

const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
const CHALLENGE = 'Basic realm="Baremetal API"';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ironless-auth-'));
  file = join(dir, 'htpasswd');
  writeFileSync(file, entry('admin', 's3cret'));
  stack = await startStack({
    settings: { authStrategy: 'http_basic', authorizerCacheSeconds: CACHE_SECONDS, htpasswdRefreshSeconds: REFRESH_SECONDS },
    htpasswdFile: file,
  });
  api = new ApiClient(stack.url, '1.82');
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('refuses a request without credentials: 401, ironic-lib body, WWW-Authenticate', async () => {
  const reply = await api.get('/v1/nodes');
  expect(reply.status).toBe(401);
  expect(reply.headers.get('www-authenticate')).toBe(CHALLENGE);
  expect(reply.body).toEqual({ error: { message: 'Authorization required', code: 401 } });
});

it('refuses bad credentials and unknown users with 401', async () => {
  for (const headers of [basic('admin', 'wrong'), basic('eve', 's3cret')]) {
    const reply = await api.get('/v1/nodes', headers);
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toBe(CHALLENGE);
    expect(reply.body).toEqual({ error: { message: 'Incorrect username or password', code: 401 } });
  }
  const garbled = await api.get('/v1/nodes', { Authorization: 'Bearer xyz' });
  expect(garbled.status).toBe(401);
  expect(garbled.body.error.message).toBe('Unsupported authorization type "Bearer"');
});

it('lets good credentials through, for reads and writes', async () => {
  const list = await api.get('/v1/nodes', basic('admin', 's3cret'));
  expect(list.status).toBe(200);
  expect(list.body).toEqual({ nodes: [] });
  const created = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: 'auth-1' }, basic('admin', 's3cret'));
  expect(created.status).toBe(201);
  // A cached decision is per header: another user's wrong password is still refused.
  expect((await api.get('/v1/nodes/auth-1', basic('admin', 'nope'))).status).toBe(401);
  expect((await api.get('/v1/nodes/auth-1', basic('admin', 's3cret'))).body.name).toBe('auth-1');
});

it('keeps /, /v1, lookup and heartbeat open', async () => {
  expect((await api.get('/')).status).toBe(200);
  expect((await api.get('/v1')).status).toBe(200);
  expect((await api.get('/v1/lookup?addresses=52:54:00:00:00:01')).status).not.toBe(401);
  expect((await api.request('POST', '/v1/heartbeat/some-node', { callback_url: 'http://x' })).status).not.toBe(401);
  expect((await api.get('/v1/heartbeat')).status).toBe(401);
});

it('takes a new entry, and refuses a revoked password within the cache TTL plus the refresh interval', async () => {
  writeFileSync(file, entry('admin', 's3cret') + entry('bob', 'b0b'));
  // A new entry shows up once the authorizer's entries are older than the refresh interval.
  const added = Date.now();
  let reply = await api.get('/v1/nodes', basic('bob', 'b0b'));
  while (reply.status !== 200 && Date.now() - added < 30_000) {
    await sleep(250);
    reply = await api.get('/v1/nodes', basic('bob', 'b0b'));
  }
  expect(reply.status).toBe(200);

  writeFileSync(file, entry('admin', 's3cret'));
  // Every decision cached for bob's header and every copy of the entries an authorizer holds was
  // made before the rewrite: once both TTLs have passed, the next request reads the new entries.
  await sleep((CACHE_SECONDS + REFRESH_SECONDS) * 1000 + 500);
  const revoked = await api.get('/v1/nodes', basic('bob', 'b0b'));
  expect(revoked.status).toBe(401);
  expect(revoked.body).toEqual({ error: { message: 'Incorrect username or password', code: 401 } });
  expect((await api.get('/v1/nodes', basic('admin', 's3cret'))).status).toBe(200);
});
