/**
 * The archive IPA answers `log.collect_system_logs` with, and posts as `logs` with its inspection
 * data: a gzipped tar (POSIX ustar) of the ramdisk's log files, base64 encoded. The virtual agent
 * has one log, its own lines, which it files as `journal` (IPA's name for the journalctl output).
 * Written here rather than with a tar package: a ustar file is a 512-byte header per file and its
 * contents padded to 512 bytes, which `tar -tzf` and Ironic's consumers read.
 */
import { gzipSync } from 'node:zlib';

const BLOCK = 512;

/** Write `value` as a zero-padded octal number of `width - 1` digits and a NUL into `header` at `offset`. */
function octal(header: Buffer, offset: number, width: number, value: number): void {
  header.write(`${value.toString(8).padStart(width - 1, '0')}\0`, offset, width, 'ascii');
}

function entry(name: string, content: Buffer, mtime: number): Buffer {
  const header = Buffer.alloc(BLOCK);
  header.write(name, 0, 100, 'utf8');
  octal(header, 100, 8, 0o644);
  octal(header, 108, 8, 0);
  octal(header, 116, 8, 0);
  octal(header, 124, 12, content.length);
  octal(header, 136, 12, mtime);
  header.fill(' ', 148, 156); // the checksum counts its own field as spaces
  header.write('0', 156, 1, 'ascii'); // a regular file
  header.write('ustar\0', 257, 6, 'ascii');
  header.write('00', 263, 2, 'ascii');
  header.write('root', 265, 32, 'ascii');
  header.write('root', 297, 32, 'ascii');
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  const padding = Buffer.alloc((BLOCK - (content.length % BLOCK)) % BLOCK);
  return Buffer.concat([header, content, padding]);
}

/** `files` (name → text) as IPA sends its logs: base64 of a gzipped tar. */
export function logsArchive(files: Readonly<Record<string, string>>, now = new Date()): string {
  const mtime = Math.floor(now.getTime() / 1000);
  const entries = Object.entries(files).map(([name, text]) => entry(name, Buffer.from(text, 'utf8'), mtime));
  // Two zero blocks end the archive.
  return gzipSync(Buffer.concat([...entries, Buffer.alloc(2 * BLOCK)])).toString('base64');
}

/** The agent's lines as its log archive. */
export function agentLogsArchive(lines: readonly string[]): string {
  return logsArchive({ journal: `${lines.join('\n')}\n` });
}
