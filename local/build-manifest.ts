/**
 * `<buildDir>/manifest.json`, written by `ironless build` beside the bundles: which release the
 * bundles are, and the tables and functions that release needs. A local stack started from such
 * a build creates the manifest's tables and tags its functions with the release; an upgrade reads
 * it to know what it is about to roll out.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReleaseMappings } from '../functions/common/releases';
import type { TableDef } from '../functions/db/schema';

export const MANIFEST_FILE = 'manifest.json';

/** The tag a function carries with the release it runs. */
export const RELEASE_TAG = 'ironless:release';

/** The release a stack built from sources (no manifest) runs. */
export const UNRELEASED = 'master';

export interface BuildManifest {
  /** The release, e.g. "2026.4" (or "master" for an unreleased build). */
  readonly release: string;
  readonly commit: string;
  /** Whether the work tree had uncommitted changes when it was built. */
  readonly dirty: boolean;
  /** ISO 8601. */
  readonly builtAt: string;
  /** Per release series: its API microversion, RPC version and object versions. */
  readonly mapping: ReleaseMappings;
  /** The release's tables, as functions/db/schema.ts TABLES. */
  readonly tables: Record<string, TableDef>;
  /** The functions bundled (`<buildDir>/<function>/index.mjs`). */
  readonly functions: readonly string[];
}

/** The manifest of the build in `dir`, or undefined when it has none; a malformed one throws, naming the file. */
export function readBuildManifest(dir: string): BuildManifest | undefined {
  const file = join(dir, MANIFEST_FILE);
  if (!existsSync(file)) return undefined;
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as Partial<BuildManifest>;
  for (const [key, kind] of [
    ['release', 'string'],
    ['commit', 'string'],
    ['dirty', 'boolean'],
    ['builtAt', 'string'],
    ['mapping', 'object'],
    ['tables', 'object'],
  ] as const) {
    if (typeof manifest[key] !== kind || manifest[key] === null) throw new Error(`${file}: "${key}" must be a ${kind}`);
  }
  if (!Array.isArray(manifest.functions) || manifest.functions.some((f) => typeof f !== 'string'))
    throw new Error(`${file}: "functions" must be a list of function names`);
  return manifest as BuildManifest;
}
