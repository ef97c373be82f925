/**
 * How the conductor talks to an agent: no redirect is followed, answers are capped, the agent's
 * TLS certificate is verified against what it sent (or what the node says), and the host policy
 * refuses agents on hosts users may not name. Servers on loopback stand in for agents.
 */
import { readFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { AgentAPIError, AgentClient, AgentConnectionFailed } from '../../../functions/drivers/agent-client';
import { DEFAULT_HOST_POLICY, HostRules, PERMISSIVE_FETCH_POLICY } from '../../../functions/drivers/hosts';
import { PROJECT_ROOT } from '../../../lib/bundling';
import { makeNode } from '../helpers/builders';

const CERT = readFileSync(join(PROJECT_ROOT, 'test/fixtures/tls/bmc.crt'), 'utf8');
const KEY = readFileSync(join(PROJECT_ROOT, 'test/fixtures/tls/bmc.key'), 'utf8');
const COMMANDS = JSON.stringify({ commands: [] });

let server: Server;
let hits: string[];

async function serve(handler: Parameters<typeof createServer>[1], tls = false): Promise<string> {
  hits = [];
  const wrapped: Parameters<typeof createServer>[1] = (req, res) => {
    hits.push(req.url ?? '');
    handler!(req, res);
  };
  server = tls ? createHttpsServer({ key: KEY, cert: CERT }, wrapped) : createServer(wrapped);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()) ?? resolve());
});

const client = (extra: Partial<ConstructorParameters<typeof AgentClient>[0]> = {}) =>
  new AgentClient({ commandTimeoutMs: 2000, attempts: 1, retryIntervalMs: 1, policy: PERMISSIVE_FETCH_POLICY, ...extra });

const agentAt = (url: string, internal: Record<string, unknown> = {}, info: Record<string, unknown> = {}) =>
  makeNode({ driver_info: info, driver_internal_info: { agent_url: url, agent_secret_token: 't', ...internal } });

describe('redirects', () => {
  it('are not followed: the redirect is an error and the target is never asked', async () => {
    const url = await serve((req, res) => {
      if (req.url?.startsWith('/elsewhere')) return void res.end(COMMANDS);
      res.writeHead(302, { Location: '/elsewhere' }).end();
    });
    const err = await client()
      .commandsStatus(agentAt(url))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentAPIError);
    expect((err as Error).message).toContain('returned HTTP status code 302');
    expect(hits).toHaveLength(1);
  });
});

describe('answers', () => {
  it('larger than the cap are cut off with an error', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ commands: [], padding: 'x'.repeat(64 * 1024) }));
    });
    await expect(client({ maxBodyBytes: 16 * 1024 }).commandsStatus(agentAt(url))).rejects.toThrow(/larger than 16384 bytes/);
    await expect(client().commandsStatus(agentAt(url))).resolves.toEqual([]);
  });

  it('reach messages only as a short excerpt', async () => {
    const url = await serve((_req, res) => res.writeHead(500).end(`<html>${'secret page '.repeat(500)}</html>`));
    const err = (await client()
      .commandsStatus(agentAt(url))
      .catch((e: unknown) => e)) as Error;
    expect(err.message.length).toBeLessThan(600);
    expect(err.message).toContain('more characters');
  });
});

describe('TLS to the agent', () => {
  it('is verified against the certificate the agent sent with its heartbeat', async () => {
    const url = await serve((_req, res) => res.end(COMMANDS), true);
    await expect(client().commandsStatus(agentAt(url, { agent_verify_ca: CERT }))).resolves.toEqual([]);
  });

  it('refuses an agent whose certificate nobody vouches for (verify_ca true by default)', async () => {
    const url = await serve((_req, res) => res.end(COMMANDS), true);
    const err = await client()
      .commandsStatus(agentAt(url))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentConnectionFailed);
    expect((err as Error).message).toMatch(/SELF_SIGNED|UNABLE_TO|CERT/);
    expect(hits).toHaveLength(0);
  });

  it('is not verified when the node says agent_verify_ca false', async () => {
    const url = await serve((_req, res) => res.end(COMMANDS), true);
    await expect(client().commandsStatus(agentAt(url, {}, { agent_verify_ca: 'False' }))).resolves.toEqual([]);
  });
});

describe('the host policy', () => {
  it('refuses an agent on loopback by default, sending nothing', async () => {
    const url = await serve((_req, res) => res.end(COMMANDS));
    const guarded = client({ policy: { ...PERMISSIVE_FETCH_POLICY, bmc: new HostRules(DEFAULT_HOST_POLICY) } });
    await expect(guarded.commandsStatus(agentAt(url))).rejects.toThrow(/the address 127\.0\.0\.1 is denied by the conductor's host policy/);
    // A name is checked where it resolves to.
    await expect(guarded.commandsStatus(agentAt(url.replace('127.0.0.1', 'localhost')))).rejects.toThrow(/is denied/);
    expect(hits).toHaveLength(0);
  });
});
