/**
 * Each bundle's size and its cold-start init time: the time to import the bundle (what Lambda's
 * Init phase runs, less the runtime's own start) in a fresh Node process, with the environment
 * the function is published with and the same NODE_OPTIONS. Nothing is called: the clients a
 * bundle builds at load only make connections on their first request.
 */
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { TABLES } from '../../functions/db/schema';
import { BUNDLE_FILE, FUNCTION_NODE_OPTIONS, type FunctionName } from '../../lib/bundling';
import { DEFAULT_SETTINGS, settingsEnvironment } from '../../lib/settings';

export interface BundleFigures {
  /** The entry file (`index.mjs`) and the chunks it imports statically: what a cold start loads, bytes. */
  readonly initBytes: number;
  /** Every JavaScript file of the bundle (the entry and the chunks it loads at once or when first needed), bytes. */
  readonly totalBytes: number;
  /** Median of the runs, milliseconds from before `import()` to its end. */
  readonly initMs: number;
  readonly initMsRuns: readonly number[];
  /** Median CPU time of the import (every thread of the process): less moved by other load on the machine than `initMs`. */
  readonly initCpuMs: number;
}

/** The environment a function is published with, with placeholder resource names: nothing is reached at load. */
export function publishedEnvironment(name: FunctionName): Record<string, string> {
  const env: Record<string, string> = {
    ...settingsEnvironment(DEFAULT_SETTINGS),
    CONDUCTOR_FUNCTION: 'arn:aws:lambda:us-east-1:000000000000:function:conductor:live',
    STEPS_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:steps',
    CONDUCTOR_QUEUES: JSON.stringify({ '': 'https://sqs.us-east-1.amazonaws.com/000000000000/conductor' }),
    HTPASSWD_SECRET_ID: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:htpasswd',
    AWS_REGION: 'us-east-1',
    AWS_LAMBDA_FUNCTION_NAME: name,
    AWS_ACCESS_KEY_ID: 'cold',
    AWS_SECRET_ACCESS_KEY: 'cold',
    NODE_OPTIONS: FUNCTION_NODE_OPTIONS,
  };
  for (const def of Object.values(TABLES)) env[def.envVar] = `ironless-${def.envVar.toLowerCase()}`;
  return env;
}

const CHILD = `
const cpu = process.cpuUsage();
const started = performance.now();
await import(process.argv[1]);
const ms = performance.now() - started;
const used = process.cpuUsage(cpu);
process.stdout.write(ms + ' ' + (used.user + used.system) / 1000);
`;

function importOnce(bundle: string, env: Record<string, string>): Promise<{ ms: number; cpuMs: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, bundle], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('exit', (code) => {
      const [ms, cpuMs] = out.split(' ').map(Number);
      if (code === 0 && Number.isFinite(ms) && Number.isFinite(cpuMs)) resolve({ ms: ms!, cpuMs: cpuMs! });
      else reject(new Error(`importing ${bundle} exited with ${code}:\n${err}`));
    });
  });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Static imports of chunks in esbuild's output (`import"./…"`, `from"./…"`; `import("./…")` is loaded later). */
const STATIC_IMPORT = /(?:\bfrom|\bimport)\s*"(\.{1,2}\/[^"]+\.mjs)"/g;

/** Bytes of a bundle's entry and every chunk it imports statically, transitively. */
export function initBytes(entry: string): number {
  const seen = new Set<string>([entry]);
  const queue = [entry];
  let total = 0;
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const text = readFileSync(file, 'utf8');
    total += Buffer.byteLength(text);
    for (const match of text.matchAll(STATIC_IMPORT)) {
      const next = join(dirname(file), match[1]!);
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return total;
}

/** Bytes of the JavaScript files under a function's bundle directory (source maps excluded). */
function bundleBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile() && entry.name.endsWith('.mjs')) total += statSync(join(entry.parentPath, entry.name)).size;
  return total;
}

/** Size and median init time (of `runs` fresh processes, one at a time) of each named bundle. */
export async function coldStarts(
  buildDir: string,
  names: readonly FunctionName[],
  runs: number,
  /** The functions' environment (a local stack's): the conductor reads DynamoDB as it starts. */
  stackEnv: Readonly<Record<string, string>> = {},
): Promise<Record<string, BundleFigures>> {
  const out: Record<string, BundleFigures> = {};
  for (const name of names) {
    const dir = join(buildDir, name);
    const bundle = join(dir, BUNDLE_FILE);
    const env = { ...publishedEnvironment(name), ...stackEnv, AWS_LAMBDA_FUNCTION_NAME: name };
    const times: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < runs; i++) {
      const { ms, cpuMs } = await importOnce(bundle, env);
      times.push(ms);
      cpu.push(cpuMs);
    }
    out[name] = {
      initBytes: initBytes(bundle),
      totalBytes: bundleBytes(dir),
      initMs: Number(median(times).toFixed(1)),
      initMsRuns: times.map((t) => Number(t.toFixed(1))),
      initCpuMs: Number(median(cpu).toFixed(1)),
    };
  }
  return out;
}
