// Build the function bundles once for every integration test: each test file then starts its own
// local stack from them (the stack runs the bundles, exactly as deployed, never the sources).
// Plain JavaScript: Jest 29 loads global setup through CommonJS hooks, which cannot load this
// ESM project's TypeScript, so the build runs through the CLI instead.
import { execFileSync } from 'node:child_process';
import process from 'node:process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export default function globalSetup() {
  const dir = join(root, 'dist', 'test-build');
  execFileSync(process.execPath, ['--import', 'tsx', join(root, 'bin', 'ironless.ts'), 'build', '--out', dir], {
    cwd: root,
    stdio: 'inherit',
  });
  process.env.IRONLESS_BUILD_DIR = dir;
}
