/**
 * What a Lambda function version is made of: its code (a folder holding index.mjs, its chunks and
 * any extra files, hashed together as Lambda's CodeSha256 hashes the package) and its
 * configuration, as GetFunctionConfiguration shows them.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { CHUNKS_DIR } from '../lib/bundling';

export const CODE_FILE = 'index.mjs';

/** $LATEST's or a published version's code and configuration, as GetFunctionConfiguration shows them. */
export interface VersionConfig {
  readonly version: string;
  /** The folder holding the version's `index.mjs` (and `index.mjs.map`). */
  readonly codeDir: string;
  /** Base64 SHA-256 of the code folder (`codeSha256`), as Lambda's CodeSha256 of the package. */
  readonly codeSha256: string;
  readonly codeSize: number;
  /** The function's own variables (Environment.Variables), without the ones Lambda sets. */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  readonly description: string;
  /** ISO 8601, as Lambda's LastModified. */
  readonly lastModified: string;
  readonly revisionId: string;
}

export interface AliasConfig {
  readonly name: string;
  readonly version: string;
  /** AdditionalVersionWeights: at most one other version and its share of the invocations. */
  readonly weights: Readonly<Record<string, number>>;
  readonly description: string;
  readonly revisionId: string;
}

/**
 * Lambda's CodeSha256 and CodeSize of a code folder: every file under it (index.mjs, its source
 * map, the chunks, files written beside them such as a CA bundle), by path and content, so that a
 * change to any of them is new code, as a new package is on Lambda.
 */
export function codeSha256(dir: string): { codeSha256: string; codeSize: number } {
  const hash = createHash('sha256');
  let size = 0;
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
  for (const file of files) {
    const bytes = readFileSync(join(dir, file));
    hash.update(`${file}\0${bytes.length}\0`).update(bytes);
    size += bytes.length;
  }
  return { codeSha256: hash.digest('base64'), codeSize: size };
}

/** Lambda's LastModified: 2026-11-25T08:47:31.123+0000. */
export function lastModified(): string {
  return new Date().toISOString().replace('Z', '+0000');
}

/** Whether $LATEST is what `version` froze: the same code and configuration (Lambda then publishes nothing new). */
export function sameConfig(version: VersionConfig, latest: VersionConfig): boolean {
  return (
    version.codeSha256 === latest.codeSha256 &&
    version.timeoutSeconds === latest.timeoutSeconds &&
    version.memoryMb === latest.memoryMb &&
    JSON.stringify(Object.entries(version.env).sort()) === JSON.stringify(Object.entries(latest.env).sort())
  );
}

export { CHUNKS_DIR };

/**
 * Copy a bundle (its source map and chunks too) into `dir` as index.mjs. The entry names each
 * chunk by its content hash, so the entry's own hash (CodeSha256 here) changes with any chunk.
 */
export function copyCode(bundle: string, dir: string): void {
  mkdirSync(dir, { recursive: true });
  copyFileSync(bundle, join(dir, CODE_FILE));
  if (existsSync(`${bundle}.map`)) copyFileSync(`${bundle}.map`, join(dir, `${CODE_FILE}.map`));
  const chunks = join(dirname(bundle), CHUNKS_DIR);
  if (existsSync(chunks)) cpSync(chunks, join(dir, CHUNKS_DIR), { recursive: true });
}

/** Write files (path below `dir` → content) into a function's code folder. */
export function writeCodeFiles(dir: string, files: Readonly<Record<string, Uint8Array>>): void {
  for (const [file, bytes] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), bytes);
  }
}
