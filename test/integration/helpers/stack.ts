/** A local stack per test file, from the bundles global-setup built, with an HTTP client for its API. */
import { LocalStack, type LocalStackOptions } from '../../../local/stack';

/**
 * Settings that sleep inside one step (a reserved `wait`, the soft power off's polls), shortened
 * for stacks whose `stepTimeoutSeconds` is a few seconds: the stack refuses limits a step cannot hold.
 */
export const SHORT_STEP_LIMITS = {
  maxWaitStepSeconds: 1,
  postDeployPowerStateRetries: 1,
  postDeployPowerStateRetryIntervalSeconds: 1,
  agentCommandWaitIntervalSeconds: 1,
  agentCommandWaitAttempts: 2,
} as const;

/**
 * Whether the test file's hooks have ended. A start that outlasts its beforeAll's limit resolves
 * after the file's afterAll ran (and found no stack to stop): such a late stack is stopped here.
 */
let fileEnded = false;
afterAll(() => {
  fileEnded = true;
});

export async function startStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const buildDir = process.env.IRONLESS_BUILD_DIR;
  if (!buildDir) throw new Error('IRONLESS_BUILD_DIR is not set: run integration tests through jest (its globalSetup builds the bundles)');
  const stack = await new LocalStack({ port: 0, inMemory: true, buildDir, schedules: false, ...options }).start();
  if (fileEnded) {
    await stack.stop();
    throw new Error('The local stack started after its test file had ended (its beforeAll timed out): stopped it');
  }
  return stack;
}

/** A decoded JSON body: tests read it freely and let assertions check its shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Json;
  readonly text: string;
}

export class ApiClient {
  constructor(
    readonly url: string,
    readonly version = '1.78',
  ) {}

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: {
        'X-OpenStack-Ironic-API-Version': this.version,
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, undefined, headers);
  }

  /** Ask for a provision verb; fail the test unless the API accepts it. */
  async provision(node: string, target: string, extra: Record<string, unknown> = {}): Promise<void> {
    const reply = await this.request('PUT', `/v1/nodes/${node}/states/provision`, { target, ...extra });
    if (reply.status !== 202) throw new Error(`provision ${target} on ${node}: ${reply.status} ${reply.text}`);
  }

  /** Poll the node until it reaches `state` (or a failed state, which throws with last_error). */
  async waitFor(node: string, state: string, timeoutMs = 20_000): Promise<Record<string, Json>> {
    const deadline = Date.now() + timeoutMs;
    let last: Record<string, unknown> = {};
    while (Date.now() < deadline) {
      last = (await this.get(`/v1/nodes/${node}`)).body as Record<string, unknown>;
      if (last.provision_state === state) return last;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(
      `node ${node} did not reach ${state}: ${JSON.stringify({ state: last.provision_state, target: last.target_provision_state, last_error: last.last_error })}`,
    );
  }

  /**
   * The node once no conductor holds it (or as it is after `timeoutMs`): a flow shows its end
   * state before the conductor has released the node, as Ironic's task does until it exits.
   */
  async unlocked(node: string, timeoutMs = 10_000): Promise<Record<string, Json>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const last = (await this.get(`/v1/nodes/${node}`)).body as Record<string, Json>;
      if (last.reservation === null || Date.now() > deadline) return last;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Poll the node until `done` holds for it (throws with the node as last seen after `timeoutMs`). */
  async until(node: string, done: (node: Record<string, Json>) => boolean, timeoutMs = 20_000): Promise<Record<string, Json>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const last = (await this.get(`/v1/nodes/${node}`)).body as Record<string, Json>;
      if (done(last)) return last;
      if (Date.now() > deadline) throw new Error(`node ${node} never got there: ${JSON.stringify(last)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Poll the node until it is in one of `states` (e.g. the success and the failure of a flow). */
  async settle(node: string, states: readonly string[], timeoutMs = 20_000): Promise<Record<string, Json>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const last = (await this.get(`/v1/nodes/${node}`)).body as Record<string, unknown>;
      if (states.includes(String(last.provision_state))) return last;
      if (Date.now() > deadline)
        throw new Error(`node ${node} still ${String(last.provision_state)} (last_error: ${String(last.last_error)})`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** Ironic's error body, decoded: `{"error_message": "<json>"}`. */
export function faultOf(reply: Reply): { faultcode?: string; faultstring?: string; code?: number; title?: string; description?: string } {
  const message = (reply.body as { error_message?: unknown } | undefined)?.error_message;
  if (typeof message !== 'string') throw new Error(`not an Ironic error body: ${reply.text}`);
  return JSON.parse(message);
}
