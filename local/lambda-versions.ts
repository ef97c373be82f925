/**
 * What a Lambda function version is made of: its code (a folder holding index.mjs, hashed as
 * Lambda's CodeSha256) and its configuration, as GetFunctionConfiguration shows them.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CHUNKS_DIR } from '../lib/bundling';

export const CODE_FILE = 'index.mjs';

/** $LATEST's or a published version's code and configuration, as GetFunctionConfiguration shows them. */
export interface VersionConfig {
  readonly version: string;
  /** The folder holding the version's `index.mjs` (and `index.mjs.map`). */
  readonly codeDir: string;
  /** Base64 SHA-256 of `index.mjs`, as Lambda's CodeSha256 of the package. */
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

export function sha256(file: string): { codeSha256: string; codeSize: number } {
  const bytes = readFileSync(file);
  return { codeSha256: createHash('sha256').update(bytes).digest('base64'), codeSize: bytes.length };
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
