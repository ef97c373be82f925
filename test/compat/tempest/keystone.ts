/**
 * A test-only Keystone v3 stand-in for tempest: just enough identity for tempest's auth provider to
 * get a token and a service catalog whose `baremetal` endpoint is the Ironless (or Ironic) under
 * test. It accepts any password of the accounts it is told about and issues opaque tokens; the
 * baremetal API it points at runs noauth, so the tokens are never checked there.
 *
 *   npx tsx test/compat/tempest/keystone.ts PORT BAREMETAL_URL   # prints its URL when it listens
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

const DOMAIN = { id: 'default', name: 'Default' };
const PROJECT = { id: 'c0ffee00000000000000000000000001', name: 'admin', domain: DOMAIN };

interface AuthRequest {
  auth?: {
    identity?: { methods?: string[]; password?: { user?: { name?: string; id?: string } } };
    scope?: { system?: unknown; project?: unknown; domain?: unknown };
  };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function versionDoc(base: string) {
  return {
    id: 'v3.14',
    status: 'stable',
    updated: '2020-04-07T00:00:00Z',
    links: [{ rel: 'self', href: `${base}/v3/` }],
    'media-types': [{ base: 'application/json', type: 'application/vnd.openstack.identity-v3+json' }],
  };
}

function catalog(base: string, baremetal: string) {
  const endpoints = (url: string) =>
    ['public', 'internal', 'admin'].map((iface) => ({
      id: randomUUID().replace(/-/g, ''),
      interface: iface,
      region: 'RegionOne',
      region_id: 'RegionOne',
      url,
    }));
  return [
    { id: 'identity0', type: 'identity', name: 'keystone', endpoints: endpoints(`${base}/v3`) },
    { id: 'baremetal0', type: 'baremetal', name: 'ironic', endpoints: endpoints(baremetal) },
  ];
}

/** The body of a token for `request`: system-scoped when asked, else project-scoped to `admin`. */
function token(request: AuthRequest, base: string, baremetal: string) {
  const user = request.auth?.identity?.password?.user ?? {};
  const name = user.name ?? user.id ?? 'admin';
  const system = request.auth?.scope?.system !== undefined;
  const now = Date.now();
  return {
    token: {
      methods: request.auth?.identity?.methods ?? ['password'],
      user: { id: `user-${name}`, name, domain: DOMAIN, password_expires_at: null },
      audit_ids: [randomUUID()],
      issued_at: new Date(now).toISOString().replace('Z', '000Z'),
      expires_at: new Date(now + 8 * 3600_000).toISOString().replace('Z', '000Z'),
      ...(system ? { system: { all: true } } : { project: PROJECT }),
      is_domain: false,
      roles: [
        { id: 'role-admin', name: 'admin' },
        { id: 'role-member', name: 'member' },
        { id: 'role-reader', name: 'reader' },
      ],
      catalog: catalog(base, baremetal),
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Start the stand-in on `port` (0: any free one); resolves with its base URL and a stop function. */
export async function startKeystone(port: number, baremetal: string): Promise<{ url: string; stop(): Promise<void> }> {
  let base = '';
  const tokens = new Map<string, unknown>();
  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').replace(/\?.*$/, '').replace(/\/+$/, '') || '/';
      if (req.method === 'GET' && path === '/') {
        send(res, 300, { versions: { values: [versionDoc(base)] } });
      } else if (req.method === 'GET' && path === '/v3') {
        send(res, 200, { version: versionDoc(base) });
      } else if (req.method === 'POST' && path === '/v3/auth/tokens') {
        let request: AuthRequest;
        try {
          request = JSON.parse(await readBody(req)) as AuthRequest;
        } catch {
          send(res, 400, { error: { code: 400, title: 'Bad Request', message: 'The request body is not JSON.' } });
          return;
        }
        const id = `tok-${randomUUID().replace(/-/g, '')}`;
        const body = token(request, base, baremetal);
        tokens.set(id, body);
        send(res, 201, body, { 'X-Subject-Token': id });
      } else if (req.method === 'GET' && path === '/v3/auth/tokens') {
        const body = tokens.get(String(req.headers['x-subject-token'] ?? ''));
        if (body) send(res, 200, body);
        else send(res, 404, { error: { code: 404, title: 'Not Found', message: 'Unknown token.' } });
      } else if (req.method === 'GET' && path === '/v3/auth/catalog') {
        send(res, 200, { catalog: catalog(base, baremetal) });
      } else {
        send(res, 404, { error: { code: 404, title: 'Not Found', message: `${req.method} ${path} is not served.` } });
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}`;
  return { url: base, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

if (process.argv[1]?.endsWith('keystone.ts')) {
  const [portArg, baremetal] = process.argv.slice(2);
  if (!portArg || !baremetal) {
    console.error('usage: tsx test/compat/tempest/keystone.ts PORT BAREMETAL_URL');
    process.exit(2);
  }
  const { url } = await startKeystone(Number(portArg), baremetal.replace(/\/+$/, ''));
  console.log(`${url}/v3`);
}
