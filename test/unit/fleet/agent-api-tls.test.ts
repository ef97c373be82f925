/**
 * The virtual agent's TLS towards an https API, as IPA's `get_ssl_client_options`: the CA its
 * media configured (`[DEFAULT]cafile`) is what it trusts; without one the system's CAs, which do
 * not know a private CA; `ipa-insecure` trusts anything; a cafile it lacks fails every request.
 */
import { readFileSync } from 'node:fs';
import { type Server, createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../lib/bundling';
import { IronicApiClient } from '../../../local/fleet/agent/api-client';
import type { AgentTls } from '../../../local/fleet/agent/vmedia-config';

const TLS = join(PROJECT_ROOT, 'test/fixtures/tls');
const CA = readFileSync(join(TLS, 'bmc.crt'));
const NODE = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123';

let server: Server;
let url = '';
beforeAll(async () => {
  // An API whose certificate (127.0.0.1) is signed by the private CA only.
  server = createServer({ cert: CA, key: readFileSync(join(TLS, 'bmc.key')) }, (req, res) => {
    res.setHeader('Content-Type', 'application/json');
    if (req.url === '/') res.end(JSON.stringify({ default_version: { version: '1.80' } }));
    else res.end(JSON.stringify({ node: { uuid: NODE }, config: { heartbeat_timeout: 300, agent_token: 't' } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const lookup = (tls?: AgentTls) => new IronicApiClient(url, { apiVersion: '1.80', timeoutMs: 5000, tls }).lookup(['52:54:00:00:00:01']);

it('looks up through an API whose certificate the configured CA signed', async () => {
  expect(await lookup({ cafile: '/etc/ironic-python-agent/ironic.crt', ca: CA, insecure: false })).toMatchObject({
    found: { node: { uuid: NODE } },
  });
});

it('cannot look up with the system’s CAs alone, nor with a cafile it lacks; ipa-insecure trusts anything', async () => {
  expect(await lookup()).toMatchObject({ retry: expect.stringMatching(/^lookup failed: /) });
  expect(await lookup({ cafile: '/etc/missing.pem', insecure: false })).toEqual({
    retry: 'lookup failed: Could not find a suitable TLS CA certificate bundle, invalid path: /etc/missing.pem',
  });
  expect(await lookup({ insecure: true })).toMatchObject({ found: { node: { uuid: NODE } } });
});
