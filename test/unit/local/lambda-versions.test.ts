import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codeSha256, writeCodeFiles } from '../../../local/lambda-versions';

describe("a local version's CodeSha256", () => {
  const dirs: string[] = [];
  const folder = (files: Record<string, string>): string => {
    const dir = mkdtempSync(join(tmpdir(), 'ironless-code-'));
    dirs.push(dir);
    writeCodeFiles(dir, Object.fromEntries(Object.entries(files).map(([name, text]) => [name, Buffer.from(text)])));
    return dir;
  };
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  const entry = { 'index.mjs': 'export const handler = () => 1;', 'chunks/a-1234.mjs': 'export const a = 1;' };

  it('is the same for the same files, wherever the folder is', () => {
    expect(codeSha256(folder(entry))).toEqual(codeSha256(folder(entry)));
    expect(codeSha256(folder(entry)).codeSize).toBe(Buffer.byteLength(entry['index.mjs']) + Buffer.byteLength(entry['chunks/a-1234.mjs']));
  });

  it('changes with any file of the package, not only index.mjs', () => {
    const base = codeSha256(folder(entry)).codeSha256;
    // A file written beside the code (the agent API CA) is part of the package, as in a Lambda zip.
    expect(codeSha256(folder({ ...entry, 'etc/ca.crt': 'PEM' })).codeSha256).not.toBe(base);
    expect(codeSha256(folder({ ...entry, 'chunks/a-1234.mjs': 'export const a = 2;' })).codeSha256).not.toBe(base);
    // The same bytes under another name are another package.
    expect(codeSha256(folder({ 'index.mjs': entry['index.mjs'], 'chunks/b-1234.mjs': entry['chunks/a-1234.mjs'] })).codeSha256).not.toBe(
      base,
    );
  });
});
