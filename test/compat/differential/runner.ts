/**
 * Runs a scripted corpus of requests against one API (a real Ironic or Ironless) and records what
 * came back, normalized so that two runs can be compared: UUIDs become `<uuid:N>` in order of first
 * appearance, timestamps `<time>`, the base URL `<base>`, the conductor's host name `<conductor>`.
 */
import type { Step } from './corpus';

export interface Target {
  readonly name: 'ironic' | 'ironless';
  readonly url: string;
  /** The host name this API shows as a node's conductor. */
  readonly conductor: string;
}

export interface Recorded {
  readonly step: string;
  readonly request: string;
  readonly status: number;
  /** Headers that matter, normalized: the version headers and Location. */
  readonly headers: Record<string, string>;
  /** The body, decoded and normalized (an error's inner JSON decoded too). */
  readonly body: unknown;
}

const HEADERS = [
  'x-openstack-ironic-api-minimum-version',
  'x-openstack-ironic-api-maximum-version',
  'x-openstack-ironic-api-version',
  'location',
];
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(\+00:00|Z)?$/;

export class Normalizer {
  private readonly uuids = new Map<string, string>();

  constructor(private readonly target: Target) {}

  text(value: string): string {
    let out = value.split(this.target.url).join('<base>');
    out = out.replace(UUID, (u) => {
      const key = u.toLowerCase();
      if (!this.uuids.has(key)) this.uuids.set(key, `<uuid:${this.uuids.size + 1}>`);
      return this.uuids.get(key) as string;
    });
    return out;
  }

  value(value: unknown, key?: string): unknown {
    if (typeof value === 'string') {
      if (TIME.test(value)) return '<time>';
      if ((key === 'conductor' || key === 'reservation') && value === this.target.conductor) return '<conductor>';
      if (key === 'error_message') {
        try {
          return { error_message: this.value(JSON.parse(value)) };
        } catch {
          return this.text(value);
        }
      }
      return this.text(value.split(this.target.conductor).join('<conductor>'));
    }
    // A hardware type's enabled interfaces come from a Python set in Ironic: their order changes
    // from one Ironic process to the next, so it is no part of the answer.
    if (Array.isArray(value) && key !== undefined && /^enabled_\w+_interfaces$/.test(key)) return value.map((v) => this.value(v)).sort();
    if (Array.isArray(value)) return value.map((v) => this.value(v));
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        const normalized = this.value(v, k);
        if (k === 'error_message' && normalized !== null && typeof normalized === 'object') return normalized;
        out[this.text(k)] = normalized;
      }
      return out;
    }
    return value;
  }
}

/** Fill `{name}` placeholders from what earlier steps saved, and `{conductor}` with the target's. */
function fill(text: string, vars: ReadonlyMap<string, string>, target: Target): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name === 'conductor' ? target.conductor : (vars.get(name) ?? whole)));
}

async function send(target: Target, step: Step, vars: Map<string, string>): Promise<{ status: number; headers: Headers; text: string }> {
  const headers: Record<string, string> = { ...(step.headers ?? {}) };
  if (step.version !== undefined) headers['X-OpenStack-Ironic-API-Version'] = step.version;
  let body: string | undefined;
  if (step.raw !== undefined) body = fill(step.raw, vars, target);
  else if (step.body !== undefined) body = fill(JSON.stringify(step.body), vars, target);
  if (body !== undefined) headers['Content-Type'] ??= 'application/json';
  const url = `${target.url}${fill(step.path, vars, target)}`;
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await fetch(url, { method: step.method, headers, body });
      return { status: res.status, headers: res.headers, text: await res.text() };
    } catch (err) {
      // Ironic's eventlet server closes idle keep-alive connections; a request sent on one that
      // was closed meanwhile never reached it, so it is sent again on a new connection.
      if (attempt >= 3) throw new Error(`${target.name}: ${step.name}: ${String((err as Error).cause ?? err)}`);
    }
  }
}

/** Poll until a node reaches a state (steps whose `waitFor` names one; `waitField` another field), or give up after 60 s. */
async function waitFor(target: Target, step: Step, vars: Map<string, string>): Promise<void> {
  const deadline = Date.now() + 60_000;
  let last = '';
  while (Date.now() < deadline) {
    const res = await send(target, { ...step, method: 'GET' }, vars);
    last = res.text;
    const node = res.status === 200 ? (JSON.parse(res.text) as Record<string, unknown>) : undefined;
    const state = node?.[step.waitField ?? 'provision_state'] as string | undefined;
    // "!x": wait until the field is no longer x (an allocation leaving "allocating").
    const reached = step.waitFor?.startsWith('!') ? state !== undefined && state !== step.waitFor.slice(1) : state === step.waitFor;
    if (reached && (step.until === undefined || step.until(node as Record<string, unknown>))) return;
    if (state?.includes('failed')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${target.name}: ${step.path} did not reach ${step.waitFor}: ${last.slice(0, 2000)}`);
}

export async function runCorpus(target: Target, steps: readonly Step[]): Promise<Recorded[]> {
  const vars = new Map<string, string>();
  const normalizer = new Normalizer(target);
  const out: Recorded[] = [];
  for (const step of steps) {
    if (step.waitFor !== undefined) {
      await waitFor(target, step, vars);
      continue;
    }
    const res = await send(target, step, vars);
    let body: unknown = res.text;
    try {
      body = res.text === '' ? null : JSON.parse(res.text);
    } catch {
      // Not JSON: compared as text.
    }
    for (const [name, key] of Object.entries(step.save ?? {})) {
      const value = (body as Record<string, unknown> | null)?.[key];
      if (typeof value === 'string') vars.set(name, value);
    }
    const headers: Record<string, string> = {};
    for (const name of HEADERS) {
      const value = res.headers.get(name);
      if (value !== null) headers[name] = normalizer.text(value);
    }
    out.push({
      step: step.name,
      request: `${step.method} ${step.path}${step.version ? ` [${step.version}]` : ''}`,
      status: res.status,
      headers,
      body: normalizer.value(body),
    });
  }
  return out;
}
