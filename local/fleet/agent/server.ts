/**
 * The agent's HTTP API on its own loopback port, as IPA's: `GET /`, `/v1/`, `/v1/status`,
 * `GET|POST /v1/commands/`, `GET /v1/commands/<id>[?wait=true]` (and the same without `/v1`).
 * Errors are `{faultcode, faultstring}`; a POST needs the agent token in `?agent_token=` (401).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CommandRunner, Params } from './commands';
import { AgentCrashed, AgentError } from './errors';

export interface CommandApiHost {
  readonly runner: CommandRunner;
  validToken(token: string | null): boolean;
  status(): { started_at: number; version: string };
}

const MAX_BODY = 16 * 1024 * 1024;

/** werkzeug's HTTP exceptions as IPA renders them. */
const http = {
  badRequest: (description: string) => ({ status: 400, text: `400 Bad Request: ${description}` }),
  unauthorized: () => ({ status: 401, text: '401 Unauthorized: Token invalid.' }),
  notFound: () => ({
    status: 404,
    text: '404 Not Found: The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.',
  }),
  notAllowed: () => ({ status: 405, text: '405 Method Not Allowed: The method is not allowed for the requested URL.' }),
};

function link(root: string, rel: string, resource = '', bookmark = false) {
  if (rel === 'describedby') return { href: 'https://docs.openstack.org/ironic-python-agent', rel, type: 'text/html' };
  return { href: bookmark || rel === 'bookmark' ? `${root}/${resource}` : `${root}/v1/${resource}`, rel };
}

function version(root: string) {
  return { id: 'v1', links: [link(root, 'self', 'v1', true), link(root, 'describedby')] };
}

export class CommandApiServer {
  private server: Server | undefined;

  constructor(private readonly host: CommandApiHost) {}

  /** Listen; returns the port. */
  async start(host: string, port: number): Promise<number> {
    const server = createServer((req, res) => {
      void this.handle(req, res).catch((err: unknown) => {
        if (err instanceof AgentCrashed) {
          req.socket.destroy();
          return;
        }
        this.fault(res, 500, err instanceof Error ? err.message : String(err));
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    return (server.address() as AddressInfo).port;
  }

  /** Stop listening and drop every connection (the agent is gone). */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private json(res: ServerResponse, status: number, body: unknown): void {
    if (res.headersSent || res.destroyed) return;
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  }

  private fault(res: ServerResponse, status: number, faultstring: string): void {
    this.json(res, status, { faultcode: status >= 500 ? 'Server' : 'Client', faultstring });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY)
        return this.fault(res, 413, '413 Request Entity Too Large: The data value transmitted exceeds the capacity limit.');
      chunks.push(chunk as Buffer);
    }
    const url = new URL(req.url ?? '/', 'http://agent');
    const root = `http://${req.headers.host ?? 'agent'}`;
    const path = url.pathname.replace(/^\/v1(?=\/|$)/, '') || '/';
    const method = req.method ?? 'GET';
    const isGet = method === 'GET' || method === 'HEAD';
    const error = (e: { status: number; text: string }) => this.fault(res, e.status, e.text);

    if (url.pathname === '/') return isGet ? this.json(res, 200, this.rootDoc(root)) : error(http.notAllowed());
    if (url.pathname === '/v1' || url.pathname === '/v1/') {
      if (!isGet) return error(http.notAllowed());
      return this.json(res, 200, {
        commands: [link(root, 'self', 'commands'), link(root, 'bookmark', 'commands')],
        status: [link(root, 'self', 'status'), link(root, 'bookmark', 'status')],
        media_types: [{ base: 'application/json', type: 'application/vnd.openstack.ironic-python-agent.v1+json' }],
        ...version(root),
      });
    }
    if (path === '/status') return isGet ? this.json(res, 200, this.host.status()) : error(http.notAllowed());
    if (path === '/commands' || path === '/commands/') {
      if (isGet) return this.json(res, 200, { commands: this.host.runner.results.map((r) => r.serialize()) });
      if (method !== 'POST') return error(http.notAllowed());
      return this.run(res, url, Buffer.concat(chunks).toString('utf8'));
    }
    const match = /^\/commands\/([^/]+)$/.exec(path);
    if (match) {
      if (!isGet) return error(http.notAllowed());
      try {
        const result = this.host.runner.get(decodeURIComponent(match[1] as string));
        if (url.searchParams.get('wait')?.toLowerCase() === 'true') await result.done;
        return this.json(res, 200, result.serialize());
      } catch (err) {
        if (err instanceof AgentError) return this.fault(res, err.status, err.message);
        throw err;
      }
    }
    return error(http.notFound());
  }

  private async run(res: ServerResponse, url: URL, text: string): Promise<void> {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      return this.fault(res, 400, http.badRequest(`Failed to decode JSON object: ${(err as Error).message}`).text);
    }
    const b = body as Record<string, unknown> | null;
    if (
      typeof b !== 'object' ||
      b === null ||
      Array.isArray(b) ||
      !('name' in b) ||
      typeof b.params !== 'object' ||
      b.params === null ||
      Array.isArray(b.params)
    ) {
      return this.fault(res, 400, http.badRequest('Missing or invalid name or params').text);
    }
    if (!this.host.validToken(url.searchParams.get('agent_token'))) return this.fault(res, 401, http.unauthorized().text);
    try {
      const result = await this.host.runner.execute(String(b.name), b.params as Params);
      if (url.searchParams.get('wait')?.toLowerCase() === 'true') await result.done;
      return this.json(res, 200, result.serialize());
    } catch (err) {
      if (err instanceof AgentError) return this.fault(res, err.status, err.message);
      throw err;
    }
  }

  private rootDoc(root: string) {
    return {
      name: 'OpenStack Ironic Python Agent API',
      description: 'Ironic Python Agent is a provisioning agent for OpenStack Ironic',
      versions: [version(root)],
      default_version: version(root),
    };
  }
}
