/**
 * `manifest.json`, written by `ironless build` beside the bundles: which release they are, built
 * from which commit, and that code's release mapping and tables.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReleaseMappings } from '../functions/common/releases';
import type { TableDef } from '../functions/db/schema';

export const MANIFEST_FILE = 'manifest.json';

export interface BuildManifest {
  /** "master" for a build of a checkout, or the release built with `--release`. */
  readonly release: string;
  readonly commit: string;
  /** The sources differed from the commit. */
  readonly dirty: boolean;
  readonly builtAt: string;
  readonly mapping: ReleaseMappings;
  readonly tables: Readonly<Record<string, TableDef>>;
  readonly functions: readonly string[];
}

export function readBuildManifest(dir: string): BuildManifest | undefined {
  const file = join(dir, MANIFEST_FILE);
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as BuildManifest;
}
