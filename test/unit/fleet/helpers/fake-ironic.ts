/**
 * A tiny fake Ironic for the virtual agent's tests: it records lookups and heartbeats and answers
 * them as Ironic's ramdisk API does, plus an image server and an agent command client that calls
 * the agent as Ironic's agent_client does (`POST /v1/commands/?wait=…&agent_token=…`).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown> | undefined;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export const TOKEN = 'a'.repeat(16) + 'token-of-at-least-32-characters';

export class FakeIronic {
  readonly lookups: Recorded[] = [];
  readonly heartbeats: Recorded[] = [];
  /** Posts to /v1/continue_inspection, and the statuses to answer them with in turn (then 202). */
  readonly inspections: Recorded[] = [];
  inspectionStatuses: number[] = [];
  /** Lookups answer 404 until this is true (the node is not in a lookup state yet). */
  lookupAllowed = true;
  heartbeatTimeout = 300;
  heartbeatStatus = 202;
  tokenGiven = false;
  url = '';
  private readonly server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://ironic');
      const text = await readBody(req);
      const record: Recorded = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
      };
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (url.pathname === '/') return reply(200, { default_version: { id: 'v1', version: '1.82', min_version: '1.1' } });
      if (url.pathname === '/v1/lookup') {
        this.lookups.push(record);
        if (!this.lookupAllowed) return reply(404, { error_message: JSON.stringify({ faultstring: 'Not Found', debuginfo: null }) });
        const token = this.tokenGiven ? '******' : TOKEN;
        this.tokenGiven = true;
        return reply(200, {
          node: { uuid: this.nodeUuid, properties: {}, instance_info: {}, driver_internal_info: {} },
          config: { heartbeat_timeout: this.heartbeatTimeout, agent_token: token, agent_token_required: true },
        });
      }
      if (url.pathname === '/v1/continue_inspection') {
        this.inspections.push(record);
        const status = this.inspectionStatuses.shift() ?? 202;
        if (status !== 202) return reply(status, { error_message: JSON.stringify({ faultstring: `status ${status}`, debuginfo: null }) });
        return reply(202, { uuid: this.nodeUuid });
      }
      if (url.pathname.startsWith('/v1/heartbeat/')) {
        this.heartbeats.push(record);
        res.writeHead(this.heartbeatStatus);
        return res.end();
      }
      reply(404, {});
    })();
  });

  constructor(readonly nodeUuid = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123') {}

  async start(): Promise<this> {
    this.url = await listen(this.server);
    return this;
  }

  stop(): Promise<void> {
    return close(this.server);
  }
}

/** Serves images by path; `hold` keeps a path's response back until `release()`. */
export class ImageServer {
  readonly images = new Map<string, Buffer>();
  url = '';
  private held = new Set<string>();
  private waiting: (() => void)[] = [];
  private readonly server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://images').pathname;
    const image = this.images.get(path);
    if (!image) {
      res.writeHead(404);
      return res.end('no such image');
    }
    const send = () => {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': image.length });
      res.end(image);
    };
    if (this.held.has(path)) this.waiting.push(send);
    else send();
  });

  hold(path: string): void {
    this.held.add(path);
  }

  release(): void {
    this.held.clear();
    for (const send of this.waiting.splice(0)) send();
  }

  async start(): Promise<this> {
    this.url = await listen(this.server);
    return this;
  }

  stop(): Promise<void> {
    return close(this.server);
  }
}

export interface AgentReply {
  status: number;
  body: Record<string, unknown>;
}

/** Calls an agent as Ironic's agent_client does. */
export class AgentCommandClient {
  constructor(
    readonly agentUrl: string,
    public token: string | null = TOKEN,
  ) {}

  async command(name: string, params: Record<string, unknown>, wait = false): Promise<AgentReply> {
    const query = new URLSearchParams({ wait: String(wait) });
    if (this.token) query.set('agent_token', this.token);
    const response = await fetch(`${this.agentUrl}/v1/commands/?${query.toString()}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name, params }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async commands(): Promise<Record<string, unknown>[]> {
    const response = await fetch(`${this.agentUrl}/v1/commands/${this.token ? `?agent_token=${this.token}` : ''}`);
    return ((await response.json()) as { commands: Record<string, unknown>[] }).commands;
  }

  /** Poll the last command of that (short) name until it is no longer RUNNING, as Ironic's heartbeat handling does. */
  async finished(shortName: string): Promise<Record<string, unknown>> {
    let last: Record<string, unknown> | undefined;
    await waitFor(async () => {
      last = (await this.commands()).findLast((c) => c.command_name === shortName);
      return last !== undefined && last.command_status !== 'RUNNING';
    }, `${shortName} to finish`);
    return last as Record<string, unknown>;
  }
}

/** Wait until a condition holds (polling; no timing assumptions beyond a generous limit). */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string | (() => string) = 'condition',
  limitMs = 10_000,
): Promise<void> {
  const until = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`Timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
