/**
 * Run the differential session by hand and print the differences:
 *   npx tsx test/compat/differential/cli.ts [--port 17391] [--json out.json]
 * Builds the bundles, starts a reference Ironic and a local stack, compares, writes report.md.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildLocal } from '../../../local/stack';
import { PROJECT_ROOT } from '../../../lib/bundling';
import { runSession, writeReport } from './session';

const args = process.argv.slice(2);
const port = Number(args[args.indexOf('--port') + 1] ?? 0) || 17391;
const jsonOut = args.includes('--json') ? args[args.indexOf('--json') + 1] : undefined;
const buildDir = join(PROJECT_ROOT, 'dist', 'compat-build');
await buildLocal(buildDir);
const result = await runSession({ ironicPort: port, buildDir });
await writeReport(result);
if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ ironic: result.ironic, ironless: result.ironless }, null, 1));
for (const d of result.unexplained) {
  console.log(
    `✗ ${d.step} — ${d.request} ${d.aspect}\n    ironic:   ${JSON.stringify(d.ironic)}\n    ironless: ${JSON.stringify(d.ironless)}`,
  );
}
console.log(
  `match rate ${(result.matchRate * 100).toFixed(1)}% (${result.matching}/${result.steps}); ${result.differences.length} differences, ${result.unexplained.length} unexplained`,
);
