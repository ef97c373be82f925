/**
 * The smoke scenario: what an operator runs against a fresh deployment (local, LocalStack or AWS)
 * to see it work end to end. It enrolls a fake-hardware node, takes it through manage, provide,
 * deploy (the Step Functions loop) and undeploy, and deletes it again — also when a step fails.
 */

export interface SmokeOptions {
  /** Base URL of the API, e.g. http://127.0.0.1:6385 or the stack's ApiUrl output. */
  readonly url: string;
  readonly timeoutSeconds?: number;
  readonly log?: (line: string) => void;
  /** Extra headers (e.g. Authorization for http_basic). */
  readonly headers?: Readonly<Record<string, string>>;
}

export class SmokeFailure extends Error {}

const VERSION = '1.78';

export async function runSmoke(options: SmokeOptions): Promise<void> {
  const base = options.url.replace(/\/+$/, '');
  const log = options.log ?? (() => {});
  const timeout = (options.timeoutSeconds ?? 120) * 1000;

  async function call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: Record<string, unknown> | undefined; text: string }> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: {
          'X-OpenStack-Ironic-API-Version': VERSION,
          ...(body ? { 'Content-Type': 'application/json' } : {}),
          ...(options.headers ?? {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new SmokeFailure(`Cannot reach ${base}${path}: ${(err as Error).message}. Is the stack running, and is the URL its API URL?`);
    }
    const text = await res.text();
    let json: Record<string, unknown> | undefined;
    try {
      json = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, json, text };
  }

  async function expectStatus(what: string, method: string, path: string, status: number, body?: unknown) {
    const reply = await call(method, path, body);
    if (reply.status !== status)
      throw new SmokeFailure(`${what}: expected HTTP ${status}, got ${reply.status}: ${reply.text.slice(0, 500)}`);
    return reply;
  }

  async function waitFor(uuid: string, state: string): Promise<void> {
    const deadline = Date.now() + timeout;
    for (;;) {
      const node = (await expectStatus('show node', 'GET', `/v1/nodes/${uuid}`, 200)).json ?? {};
      if (node.provision_state === state) return;
      if (typeof node.provision_state === 'string' && (node.provision_state.endsWith('failed') || node.provision_state === 'error')) {
        throw new SmokeFailure(`node went to "${node.provision_state}" instead of "${state}": ${String(node.last_error)}`);
      }
      if (Date.now() > deadline)
        throw new SmokeFailure(`node still "${String(node.provision_state)}" after ${timeout / 1000} s, waiting for "${state}"`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  async function step(label: string, fn: () => Promise<void>): Promise<void> {
    const started = Date.now();
    await fn();
    log(`  ✓ ${label} (${Date.now() - started} ms)`);
  }

  const root = await expectStatus('version discovery', 'GET', '/', 200);
  const max = (root.json?.default_version as { version?: string } | undefined)?.version;
  log(`Smoke test of ${base} (API ${max ?? 'unknown'})`);
  const name = `smoke-${Date.now().toString(36)}`;
  let uuid: string | undefined;
  try {
    await step(`enroll node ${name}`, async () => {
      uuid = (await expectStatus('create node', 'POST', '/v1/nodes', 201, { driver: 'fake-hardware', name })).json?.uuid as string;
    });
    const id = uuid as string;
    const provision = (target: string) => expectStatus(`provision ${target}`, 'PUT', `/v1/nodes/${id}/states/provision`, 202, { target });
    await step('manage → manageable', async () => {
      await provision('manage');
      await waitFor(id, 'manageable');
    });
    await step('provide → available', async () => {
      await provision('provide');
      await waitFor(id, 'available');
    });
    await step('deploy → active (steps machine)', async () => {
      await provision('active');
      await waitFor(id, 'active');
    });
    await step('undeploy → available', async () => {
      await provision('deleted');
      await waitFor(id, 'available');
    });
  } finally {
    if (uuid !== undefined) await cleanUp(uuid);
  }
  log('Smoke test passed.');

  async function cleanUp(id: string): Promise<void> {
    const node = (await call('GET', `/v1/nodes/${id}`)).json ?? {};
    if (['available', 'clean failed', 'inspect failed'].includes(String(node.provision_state))) {
      await call('PUT', `/v1/nodes/${id}/states/provision`, { target: 'manage' });
      await waitFor(id, 'manageable').catch(() => undefined);
    }
    const deleted = await call('DELETE', `/v1/nodes/${id}`);
    if (deleted.status === 204) log(`  ✓ deleted node ${name}`);
    else log(`  ! could not delete node ${name} (${id}): HTTP ${deleted.status} ${deleted.text.slice(0, 300)} — delete it by hand`);
  }
}
