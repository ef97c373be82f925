/**
 * Reads the files of an ISO 9660 image, as the instance's cloud-init reads its config drive: the
 * Rock Ridge names when the image has them (Linux prefers them), else the Joliet names, else the
 * primary names without their `;1` version. Every offset is checked against the image, so a
 * malformed image is an error, never a crash or a loop.
 */

const SECTOR = 2048;
const MAX_FILES = 1000;
const MAX_DEPTH = 8;

export type IsoNamespace = 'rockridge' | 'joliet' | 'iso9660';

export interface IsoContents {
  readonly volumeId: string;
  /** Which names were read. */
  readonly namespace: IsoNamespace;
  /** Files by slash-separated path. */
  readonly files: ReadonlyMap<string, Buffer>;
}

interface Volume {
  readonly volumeId: string;
  readonly root: Buffer;
  readonly joliet: boolean;
}

interface DirRecord {
  readonly lba: number;
  readonly size: number;
  readonly dir: boolean;
  readonly id: Buffer;
  readonly systemUse: Buffer;
}

export class IsoError extends Error {}

/** The image's files; `prefer` reads another namespace than the one Linux would pick, if present. */
export function readIso(image: Buffer, prefer?: IsoNamespace): IsoContents {
  if (image.length < 17 * SECTOR || image.toString('latin1', 16 * SECTOR + 1, 16 * SECTOR + 6) !== 'CD001') {
    throw new IsoError('not an ISO 9660 image (no CD001 volume descriptor at sector 16)');
  }
  let primary: Volume | undefined;
  let joliet: Volume | undefined;
  for (let sector = 16; (sector + 1) * SECTOR <= image.length && sector < 64; sector++) {
    const at = sector * SECTOR;
    const type = image[at];
    if (image.toString('latin1', at + 1, at + 6) !== 'CD001') throw new IsoError(`bad volume descriptor at sector ${sector}`);
    if (type === 255) break;
    const root = image.subarray(at + 156, at + 190);
    if (type === 1) primary = { volumeId: image.toString('latin1', at + 40, at + 72).trimEnd(), root, joliet: false };
    if (type === 2 && ['%/@', '%/C', '%/E'].includes(image.toString('latin1', at + 88, at + 91))) {
      joliet = { volumeId: ucs2(image.subarray(at + 40, at + 72)).trimEnd(), root, joliet: true };
    }
  }
  if (primary === undefined) throw new IsoError('no primary volume descriptor');
  const rootRecord = parseRecord(primary.root, 0);
  const rockRidge = hasRockRidge(image, rootRecord);
  const namespace = choose(prefer, rockRidge, joliet !== undefined);
  const volume = namespace === 'joliet' ? (joliet as Volume) : primary;
  const files = new Map<string, Buffer>();
  walk(image, parseRecord(volume.root, 0), '', 0, namespace, files, new Set());
  return { volumeId: primary.volumeId, namespace, files };
}

function choose(prefer: IsoNamespace | undefined, rockRidge: boolean, joliet: boolean): IsoNamespace {
  if (prefer === 'iso9660') return 'iso9660';
  if (prefer === 'joliet' && joliet) return 'joliet';
  return rockRidge ? 'rockridge' : joliet ? 'joliet' : 'iso9660';
}

function walk(
  image: Buffer,
  dir: DirRecord,
  prefix: string,
  depth: number,
  namespace: IsoNamespace,
  files: Map<string, Buffer>,
  seen: Set<number>,
): void {
  if (depth > MAX_DEPTH) throw new IsoError(`directories nested deeper than ${MAX_DEPTH} levels`);
  if (seen.has(dir.lba)) throw new IsoError(`directory at sector ${dir.lba} is reached twice`);
  seen.add(dir.lba);
  const data = extent(image, dir);
  let at = 0;
  let index = 0;
  while (at < data.length) {
    const length = data[at] as number;
    if (length === 0) {
      at = (Math.floor(at / SECTOR) + 1) * SECTOR; // records do not cross sectors: the rest of this one is padding
      continue;
    }
    const record = parseRecord(data, at);
    at += length;
    if (index++ < 2) continue; // "." and ".."
    const name = nameOf(image, record, namespace);
    const path = prefix === '' ? name : `${prefix}/${name}`;
    if (record.dir) walk(image, record, path, depth + 1, namespace, files, seen);
    else {
      if (files.size >= MAX_FILES) throw new IsoError(`more than ${MAX_FILES} files`);
      files.set(path, Buffer.from(extent(image, record)));
    }
  }
}

function parseRecord(data: Buffer, at: number): DirRecord {
  const length = data[at] ?? 0;
  if (length < 34 || at + length > data.length) throw new IsoError(`malformed directory record at offset ${at}`);
  const idLength = data[at + 32] as number;
  if (33 + idLength > length) throw new IsoError(`malformed directory record at offset ${at}`);
  const suStart = 33 + idLength + (idLength % 2 === 0 ? 1 : 0);
  return {
    lba: data.readUInt32LE(at + 2),
    size: data.readUInt32LE(at + 10),
    dir: ((data[at + 25] as number) & 2) !== 0,
    id: data.subarray(at + 33, at + 33 + idLength),
    systemUse: data.subarray(at + Math.min(suStart, length), at + length),
  };
}

function extent(image: Buffer, record: DirRecord): Buffer {
  const start = record.lba * SECTOR;
  if (record.size > 0 && start + record.size > image.length) throw new IsoError(`extent at sector ${record.lba} ends past the image`);
  return image.subarray(start, start + record.size);
}

function nameOf(image: Buffer, record: DirRecord, namespace: IsoNamespace): string {
  if (namespace === 'rockridge') {
    const name = rockRidgeName(image, record.systemUse);
    if (name !== undefined) return checked(name);
  }
  const raw = namespace === 'joliet' ? ucs2(record.id) : record.id.toString('latin1');
  return checked(raw.replace(/;\d+$/, '').replace(/\.$/, ''));
}

function checked(name: string): string {
  if (name === '' || name === '.' || name === '..' || name.includes('/')) throw new IsoError(`bad file name ${JSON.stringify(name)}`);
  return name;
}

function ucs2(bytes: Buffer): string {
  let out = '';
  for (let i = 0; i + 1 < bytes.length; i += 2) out += String.fromCharCode(bytes.readUInt16BE(i));
  return out;
}

// --- SUSP / Rock Ridge ---------------------------------------------------------------------------

interface SuspEntry {
  readonly signature: string;
  readonly body: Buffer;
}

/** The entries of a system use area, following continuation areas (CE) a bounded number of times. */
function suspEntries(image: Buffer, area: Buffer): SuspEntry[] {
  const out: SuspEntry[] = [];
  let current: Buffer | undefined = area;
  for (let hops = 0; current !== undefined && hops < 8; hops++) {
    let continuation: Buffer | undefined;
    let at = 0;
    while (at + 4 <= current.length) {
      const length = current[at + 2] as number;
      if (length < 4 || at + length > current.length) break;
      const signature = current.toString('latin1', at, at + 2);
      const body = current.subarray(at + 4, at + length);
      if (signature === 'ST') break;
      if (signature === 'CE' && body.length >= 24) {
        const start = body.readUInt32LE(0) * SECTOR + body.readUInt32LE(8);
        const size = body.readUInt32LE(16);
        if (start + size > image.length) throw new IsoError('a Rock Ridge continuation area ends past the image');
        continuation = image.subarray(start, start + size);
      } else out.push({ signature, body });
      at += length;
    }
    current = continuation;
  }
  return out;
}

function hasRockRidge(image: Buffer, root: DirRecord): boolean {
  const data = extent(image, root);
  if (data.length === 0) return false;
  const self = parseRecord(data, 0);
  const su = self.systemUse;
  if (su.length < 7 || su.toString('latin1', 0, 2) !== 'SP' || su[4] !== 0xbe || su[5] !== 0xef) return false;
  return suspEntries(image, su).some((e) => e.signature === 'ER' || e.signature === 'PX' || e.signature === 'RR');
}

/** The NM name, its pieces joined (flag 1: continued in the next NM). */
function rockRidgeName(image: Buffer, area: Buffer): string | undefined {
  const pieces = suspEntries(image, area).filter((e) => e.signature === 'NM' && e.body.length >= 1);
  if (pieces.length === 0) return undefined;
  return Buffer.concat(pieces.map((p) => p.body.subarray(1))).toString('utf8');
}
