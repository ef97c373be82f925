/**
 * `npm run bench [-- name…] [--out file.json]`: runs the benchmark modules (`test/bench/*.bench.ts`)
 * and prints their figures as one JSON document on stdout (progress goes to stderr). Each module
 * default-exports a Bench; with no name, every bench but those run only when named (peer). Figures are measurements, not assertions: compare them over time. The
 * dollar figures (`cost`) are priced from what the benches counted (cost-report.ts).
 */
import { writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { buildLocal } from '../../local/stack';
import { PROJECT_ROOT } from '../../lib/bundling';
import type { Bench } from './bench';
import { costReport } from './cost-report';

const args = process.argv.slice(2);
const outIndex = args.indexOf('--out');
const out = outIndex >= 0 ? args[outIndex + 1] : undefined;
const wanted = args.filter((a, i) => !a.startsWith('--') && (outIndex < 0 || i !== outIndex + 1));

const dir = join(PROJECT_ROOT, 'test', 'bench');
const files = (await readdir(dir)).filter((f) => f.endsWith('.bench.ts')).sort();
const buildDir = join(PROJECT_ROOT, 'dist', 'bench-build');
process.stderr.write('building bundles…\n');
await buildLocal(buildDir);

const results: Record<string, unknown> = {
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
  startedAt: new Date().toISOString(),
};
for (const file of files) {
  const bench = (await import(join(dir, file))).default as Bench;
  if (wanted.length > 0 ? !wanted.includes(bench.name) : bench.onlyWhenNamed) continue;
  process.stderr.write(`bench ${bench.name}…\n`);
  const started = Date.now();
  results[bench.name] = await bench.run({ buildDir, log: (line) => process.stderr.write(`  ${line}\n`) });
  process.stderr.write(`bench ${bench.name} done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
const cost = costReport(results);
if (cost) results.cost = cost;
const json = JSON.stringify(results, null, 2);
if (out) writeFileSync(out, `${json}\n`);
console.log(json);
