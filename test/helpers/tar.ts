/**
 * Reading a gzipped tar with the system's own `tar` (GNU tar), so a test checks an archive is one
 * that real tools open, not one a reader written alongside the writer accepts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The files of a `.tar.gz`, name → text; throws what `tar` says when it is not one. */
export function readTarGz(archive: Buffer): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'tar-'));
  try {
    const file = join(dir, 'archive.tar.gz');
    writeFileSync(file, archive);
    const names = execFileSync('tar', ['-tzf', file], { encoding: 'utf8' })
      .split('\n')
      .filter((n) => n !== '');
    return Object.fromEntries(names.map((name) => [name, execFileSync('tar', ['-xzOf', file, name], { encoding: 'utf8' })]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
