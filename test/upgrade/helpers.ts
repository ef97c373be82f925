/**
 * What the grenade test drives: the real `ironless` CLI in a child process, a steady API load
 * from a worker thread (so the test's own awaits cannot slow it), and nodes cycling through
 * deploy and undeploy (with cleaning) for as long as asked.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { PROJECT_ROOT } from '../../lib/bundling';
import type { ApiClient } from '../integration/helpers/stack';

/** Run `ironless <args>` as an operator would; its output is echoed with a prefix and kept. */
export function ironless(args: readonly string[], log: (line: string) => void): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'bin', 'ironless.ts'), ...args], {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    let output = '';
    const take = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      output += text;
      for (const line of text.split('\n')) if (line.trim() !== '') log(`  | ${line}`);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, output }));
  });
}

/** What the load saw. */
export interface LoadReport {
  readonly requests: number;
  readonly byStatus: Record<string, number>;
  /** Answers ≥ 500 or 4xx, with when they came and what was asked (the first few). */
  readonly unexpected: readonly string[];
  /** `GET /v1`'s maximum version, with when it was seen. */
  readonly maxVersions: readonly { at: number; max: string }[];
  readonly seconds: number;
  /** The slowest answers (over a second), slowest first, with when they came. */
  readonly slowest: readonly { took: number; request: string }[];
  /** Writes sent as a read instead, every load node having a write in flight then. */
  readonly writesDeferred: number;
}

/**
 * The load, as plain JavaScript run in a worker: each tick sends a mix of reads (lists, a node,
 * `GET /v1`) and writes (a PATCH of `extra`, a port created and deleted) on nodes nothing else
 * touches, each node's writes one after another.
 */
const LOAD_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, rate, nodes, version } = workerData;
const headers = { 'X-OpenStack-Ironic-API-Version': version, 'Content-Type': 'application/json' };
const report = { requests: 0, byStatus: {}, unexpected: [], maxVersions: [], seconds: 0, slowest: [], writesDeferred: 0 };
let stopping = false;
let n = 0;
const started = Date.now();
// When (seconds into the load, and the clock time the upgrade's log shows) an answer came.
const at = () => '[+' + ((Date.now() - started) / 1000).toFixed(1) + ' s, ' + new Date().toISOString().slice(11, 23) + '] ';
async function call(method, path, body, ok) {
  report.requests++;
  const sent = Date.now();
  try {
    const res = await fetch(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    const took = Date.now() - sent;
    // The five slowest answers, for whoever reads a failure: a queue behind a busy API shows here.
    if (took > 1000) {
      report.slowest.push({ took, request: at() + method + ' ' + path });
      report.slowest.sort((a, b) => b.took - a.took);
      report.slowest.length = Math.min(report.slowest.length, 5);
    }
    report.byStatus[res.status] = (report.byStatus[res.status] || 0) + 1;
    if (!ok.includes(res.status) && report.unexpected.length < 50) report.unexpected.push(at() + method + ' ' + path + ' -> ' + res.status + ' ' + text.slice(0, 300));
    return { status: res.status, text };
  } catch (err) {
    report.byStatus.error = (report.byStatus.error || 0) + 1;
    if (report.unexpected.length < 50) report.unexpected.push(at() + method + ' ' + path + ' -> ' + String(err));
    return { status: 0, text: '' };
  }
}
// Nodes with a write in flight. A client acts on one node in sequence (nova, metal3): under load an
// answer can take seconds, so a node's next write waits for its last one, as theirs do. (The first
// release's API answered a PATCH that lost a race to another at once with 409; Ironic's conductor,
// and later releases, wait and try again.)
const writing = new Set();
async function write(node, send) {
  writing.add(node);
  try { return await send(); } finally { writing.delete(node); }
}
async function one(i) {
  // One node per round of ten requests; a write goes to the next node with none in flight.
  const first = Math.floor(i / 10) % nodes.length;
  const free = nodes.map((_, k) => nodes[(first + k) % nodes.length]).find((n) => !writing.has(n));
  const node = free ?? nodes[first];
  if (free === undefined && (i % 10 === 7 || i % 10 === 8)) {
    report.writesDeferred++;
    return call('GET', '/v1/nodes/' + node, undefined, [200]);
  }
  switch (i % 10) {
    case 0: {
      const r = await call('GET', '/v1', undefined, [200]);
      if (r.status === 200) report.maxVersions.push({ at: Date.now(), max: JSON.parse(r.text).version.version });
      return;
    }
    case 1: case 2: return call('GET', '/v1/nodes?limit=50&fields=uuid,provision_state', undefined, [200]);
    case 3: return call('GET', '/v1/nodes/detail?limit=20', undefined, [200]);
    case 4: case 5: return call('GET', '/v1/nodes/' + node, undefined, [200]);
    case 6: return call('GET', '/v1/ports?limit=50', undefined, [200]);
    case 7: return write(node, () => call('PATCH', '/v1/nodes/' + node, [{ op: 'add', path: '/extra/load', value: String(i) }], [200]));
    case 8: return write(node, async () => {
      const mac = '52:54:00:' + [i >> 16, i >> 8, i].map((b) => (b & 255).toString(16).padStart(2, '0')).join(':');
      const r = await call('POST', '/v1/ports', { node_uuid: node, address: mac }, [201]);
      if (r.status === 201) await call('DELETE', '/v1/ports/' + JSON.parse(r.text).uuid, undefined, [204]);
    });
    default: return call('GET', '/v1/conductors', undefined, [200]);
  }
}
parentPort.on('message', (m) => { if (m === 'stop') stopping = true; });
const inFlight = new Set();
const timer = setInterval(() => {
  if (stopping) {
    clearInterval(timer);
    Promise.all(inFlight).then(() => { report.seconds = (Date.now() - started) / 1000; parentPort.postMessage(report); });
    return;
  }
  const p = one(n++).finally(() => inFlight.delete(p));
  inFlight.add(p);
}, 1000 / rate);
`;

export class Load {
  private readonly worker: Worker;
  private readonly done: Promise<LoadReport>;

  constructor(options: { url: string; rate: number; nodes: readonly string[]; version: string }) {
    this.worker = new Worker(LOAD_WORKER, { eval: true, workerData: options });
    this.done = new Promise((resolve, reject) => {
      this.worker.once('message', (report: LoadReport) => resolve(report));
      this.worker.once('error', reject);
    });
  }

  async stop(): Promise<LoadReport> {
    this.worker.postMessage('stop');
    const report = await this.done;
    await this.worker.terminate();
    return report;
  }
}

/** Outcome of the cycling nodes: flows by how they ended, and the most in flight at once. */
export interface CycleReport {
  readonly deploys: number;
  readonly cleans: number;
  readonly failures: readonly string[];
  maxInFlight: number;
}

/**
 * Each node deploys, then undeploys (cleaning when the stack cleans), again and again until
 * `stop()`; a flow that ends in a failed state is recorded (and the node left alone).
 */
export class Cycles {
  private stopping = false;
  private readonly running: Promise<void>[] = [];
  private inFlight = 0;
  readonly report: CycleReport = { deploys: 0, cleans: 0, failures: [], maxInFlight: 0 };

  constructor(
    private readonly api: ApiClient,
    private readonly instanceInfo: (node: string) => Record<string, unknown>,
  ) {}

  start(nodes: readonly string[]): void {
    for (const node of nodes) this.running.push(this.cycle(node));
  }

  private track(delta: number): void {
    this.inFlight += delta;
    this.report.maxInFlight = Math.max(this.report.maxInFlight, this.inFlight);
  }

  private async flow(node: string, target: string, done: string, failed: string, timeoutMs: number): Promise<boolean> {
    this.track(1);
    try {
      for (let attempt = 0; ; attempt++) {
        const reply = await this.api.request('PUT', `/v1/nodes/${node}/states/provision`, { target });
        if (reply.status === 202) break;
        // The node may still be held by the conductor that just finished with it: Ironic's clients retry a 409.
        if (reply.status !== 409 || attempt > 20) {
          (this.report.failures as string[]).push(`${node} ${target}: ${reply.status} ${reply.text.slice(0, 300)}`);
          return false;
        }
        await new Promise((r) => setTimeout(r, 500));
      }
      const end = await this.api.settle(node, [done, failed], timeoutMs);
      if (end.provision_state !== done) {
        (this.report.failures as string[]).push(`${node} ${target}: ${String(end.provision_state)} (${String(end.last_error)})`);
        return false;
      }
      return true;
    } finally {
      this.track(-1);
    }
  }

  private async cycle(node: string): Promise<void> {
    while (!this.stopping) {
      const patched = await this.api.request('PATCH', `/v1/nodes/${node}`, [
        { op: 'add', path: '/instance_info', value: this.instanceInfo(node) },
      ]);
      if (patched.status !== 200) {
        (this.report.failures as string[]).push(`${node} instance_info: ${patched.status} ${patched.text.slice(0, 200)}`);
        return;
      }
      if (!(await this.flow(node, 'active', 'active', 'deploy failed', 600_000))) return;
      (this.report as { deploys: number }).deploys++;
      if (!(await this.flow(node, 'deleted', 'available', 'clean failed', 600_000))) return;
      (this.report as { cleans: number }).cleans++;
    }
  }

  /** Let every node finish the flow it is in, then stop. */
  async stop(): Promise<CycleReport> {
    this.stopping = true;
    await Promise.all(this.running);
    return this.report;
  }
}
