/**
 * Build the function bundles once for every integration test: each test file starts its own local
 * stack from these (the stack runs bundles, exactly as deployed, never the sources).
 */
import { join } from 'node:path';
import { buildLocal } from '../../local/stack';
import { PROJECT_ROOT } from '../../lib/bundling';

export default async function globalSetup(): Promise<void> {
  const dir = join(PROJECT_ROOT, 'dist', 'test-build');
  await buildLocal(dir);
  process.env.IRONLESS_BUILD_DIR = dir;
}
