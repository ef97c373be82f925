/**
 * ECMA-119 directory records: their length (a record never crosses a sector boundary) and their
 * bytes. Shared by the directories and the volume descriptors' root records of `iso9660.ts`.
 */
import { both16, both32, recordDate } from './iso9660-encoding';

export const SECTOR = 2048;

/** One directory record: what it points to and its identifier in a namespace. */
export interface RecordSpec {
  readonly id: Buffer;
  readonly lba: number;
  readonly size: number;
  readonly dir: boolean;
  readonly systemUse: Buffer;
}

export function recordLength(r: RecordSpec): number {
  const base = 33 + r.id.length + (r.id.length % 2 === 0 ? 1 : 0);
  const length = base + r.systemUse.length;
  return length + (length % 2);
}

/** The bytes the records take: a record never crosses a sector boundary. */
export function recordsLength(records: readonly RecordSpec[]): number {
  let at = 0;
  for (const r of records) {
    const length = recordLength(r);
    if (length > 255) throw new Error('An ISO 9660 directory record would be longer than 255 bytes');
    if ((at % SECTOR) + length > SECTOR) at += SECTOR - (at % SECTOR);
    at += length;
  }
  return at;
}

export function writeRecords(image: Buffer, sector: number, records: readonly RecordSpec[], date: Date): void {
  let at = 0;
  const start = sector * SECTOR;
  for (const r of records) {
    const length = recordLength(r);
    if ((at % SECTOR) + length > SECTOR) at += SECTOR - (at % SECTOR);
    writeRecord(image, start + at, r, length, date);
    at += length;
  }
}

export function writeRecord(image: Buffer, at: number, r: RecordSpec, length: number, date: Date): void {
  image[at] = length;
  image[at + 1] = 0;
  both32(image, at + 2, r.lba);
  both32(image, at + 10, r.size);
  recordDate(image, at + 18, date);
  image[at + 25] = r.dir ? 2 : 0;
  image[at + 26] = 0;
  image[at + 27] = 0;
  both16(image, at + 28, 1);
  image[at + 32] = r.id.length;
  r.id.copy(image, at + 33);
  r.systemUse.copy(image, at + 33 + r.id.length + (r.id.length % 2 === 0 ? 1 : 0));
}
