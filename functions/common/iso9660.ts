/**
 * ISO 9660 images written the way genisoimage writes Ironic's config drive (`-J -r -l
 * -allow-lowercase -allow-multidot -ldots -V <label>`): a primary volume with relaxed 8-bit names
 * (lowercase and several dots kept, other characters as `_`, files with a `;1` version), Rock Ridge
 * on it (SP, ER through a continuation area, PX modes r-x/r--, NM with the real names — Linux uses
 * these), a Joliet volume (UCS-2 names, as Windows and cloudbase-init read them), and 150 sectors
 * of padding at the end. The file tree is small (a config drive has a handful of files), so each
 * directory fits the limits checked below and file data follows the directories in path order.
 *
 * Written here rather than by a tool: the conductor runs in a Lambda, where genisoimage is not.
 */
import { type RecordSpec, SECTOR, recordsLength, writeRecords } from './iso9660-records';
import { type BootEntry, withBootInfoTable, writeBootCatalog, writeBootRecord } from './el-torito';
import { writeDescriptor } from './iso9660-descriptors';
import { DIR_MODE, FILE_MODE, ceEntry, erEntry, nm, px, spEntry } from './rock-ridge';

const FIRST_DESCRIPTOR = 16;
/** What the BIOS loads of isolinux.bin (mkisofs' `-boot-load-size 4`, 2 KiB); isolinux loads the rest itself. */
const BIOS_LOAD_SECTORS = 4;
/** genisoimage's default padding, against read-ahead past the end of the filesystem. */
const PAD_SECTORS = 150;
/** Names longer than these would need their NM split into a continuation area (Rock Ridge) or Joliet's long-name extension. */
const MAX_NAME_BYTES = 100;
const MAX_JOLIET_CHARS = 64;
const MAX_PRIMARY_CHARS = 31;
const MAX_DEPTH = 8;
/** Bytes of zeros written at a time when streaming padding. */
const ZERO_CHUNK = Buffer.alloc(64 * SECTOR);

/** File data read when the image is streamed (a large ramdisk on disk), never held whole in memory. */
export interface IsoStreamData {
  readonly size: number;
  /** Its bytes, exactly `size` of them. */
  open(): AsyncIterable<Uint8Array>;
}

export interface IsoFile {
  /** Slash-separated path below the root, e.g. `openstack/latest/meta_data.json`. */
  readonly path: string;
  readonly data: Buffer | string | IsoStreamData;
}

export interface IsoOptions {
  /** The volume label (a config drive's is `config-2`). */
  readonly volumeId: string;
  readonly publisher?: string;
  readonly application?: string;
  /** Recorded as every file's and the volume's date (default: now). */
  readonly date?: Date;
  /** Make the image El Torito bootable for UEFI: the file (a path among `files`) holding the EFI system partition image. */
  readonly efiBootImage?: string;
  /**
   * Make the image El Torito bootable for a PC BIOS: the file (a path among `files`, in memory)
   * holding isolinux.bin, loaded 4 sectors at a time and patched with its boot info table. With
   * `efiBootImage` too, BIOS is the default entry and EFI a second section (hybrid).
   */
  readonly biosBootImage?: string;
}

/** An image to stream: its size, and its bytes in order. */
export interface IsoImage {
  readonly size: number;
  stream(): AsyncGenerator<Buffer>;
}

interface Dir {
  readonly name: string;
  readonly parent: Dir | undefined;
  readonly depth: number;
  readonly dirs: Dir[];
  readonly files: FileEntry[];
  primary: Extent;
  joliet: Extent;
}

interface FileEntry {
  readonly name: string;
  readonly path: string;
  data: Buffer | IsoStreamData;
  readonly size: number;
  lba: number;
}

interface Extent {
  lba: number;
  size: number;
}

/** Builds the whole image in memory; throws on paths it cannot represent (empty, `.`/`..` segments, too deep, names too long, duplicates). */
export function buildIso(files: readonly IsoFile[], options: IsoOptions): Buffer {
  const { meta, data, total } = layout(files, options);
  const image = Buffer.alloc(total * SECTOR);
  meta.copy(image);
  for (const f of data) {
    if (!Buffer.isBuffer(f.data)) throw new Error(`buildIso holds images in memory: stream ${f.path} with isoImage instead`);
    f.data.copy(image, f.lba * SECTOR);
  }
  return image;
}

/**
 * The image as a stream: the descriptors and directories (small, in memory), then each file's
 * data in place, then the padding. Memory stays that of the metadata plus one chunk of a file.
 */
export function isoImage(files: readonly IsoFile[], options: IsoOptions): IsoImage {
  const { meta, data, total } = layout(files, options);
  return {
    size: total * SECTOR,
    async *stream() {
      yield meta;
      let at = meta.length;
      for (const f of data) {
        yield* zeros(f.lba * SECTOR - at);
        at = f.lba * SECTOR;
        if (Buffer.isBuffer(f.data)) {
          yield f.data;
          at += f.data.length;
          continue;
        }
        let read = 0;
        for await (const chunk of f.data.open()) {
          read += chunk.length;
          if (read > f.size) throw new Error(`${f.path} is longer than the ${f.size} bytes it was said to have`);
          yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
        }
        if (read !== f.size) throw new Error(`${f.path} ended after ${read} of its ${f.size} bytes`);
        at += read;
      }
      yield* zeros(total * SECTOR - at);
    },
  };
}

function* zeros(bytes: number): Generator<Buffer> {
  for (let left = bytes; left > 0; left -= ZERO_CHUNK.length) yield left >= ZERO_CHUNK.length ? ZERO_CHUNK : ZERO_CHUNK.subarray(0, left);
}

/** Where everything goes, and the bytes of everything before the first file's data. */
function layout(files: readonly IsoFile[], options: IsoOptions): { meta: Buffer; data: FileEntry[]; total: number } {
  const date = options.date ?? new Date();
  const root = newDir('', undefined);
  for (const file of files) addFile(root, file);
  const efiFile = options.efiBootImage === undefined ? undefined : findFile(root, options.efiBootImage);
  const biosFile = options.biosBootImage === undefined ? undefined : findFile(root, options.biosBootImage);
  if (biosFile !== undefined && !Buffer.isBuffer(biosFile.data))
    throw new Error(`The BIOS boot image ${biosFile.path} must be given in memory`);
  const bootable = efiFile !== undefined || biosFile !== undefined;

  const dirs = allDirs(root);
  const primaryOrder = pathTableOrder(root, primaryName);
  const jolietOrder = pathTableOrder(root, (d) => jolietName(d.name));
  const primaryTableSize = pathTableSize(primaryOrder, primaryName);
  const jolietTableSize = pathTableSize(jolietOrder, (d) => jolietName(d.name));

  // Layout: descriptors (PVD, El Torito's boot record when bootable, Joliet SVD, terminator), the
  // boot catalog, four path tables, the Rock Ridge ER continuation sector, the primary then the
  // Joliet directories, then the files.
  const descriptors = bootable ? 4 : 3;
  let lba = FIRST_DESCRIPTOR + descriptors;
  const catalog = bootable ? lba++ : 0;
  const tables = { pL: 0, pM: 0, jL: 0, jM: 0 };
  for (const key of ['pL', 'pM', 'jL', 'jM'] as const) {
    tables[key] = lba;
    lba += sectors(key.startsWith('p') ? primaryTableSize : jolietTableSize);
  }
  const erSector = lba++;
  const er = erEntry();
  // Directory sizes do not depend on where things are, only on names and system use lengths.
  for (const d of primaryOrder) {
    d.primary = { lba, size: sectors(recordsLength(primaryRecords(d, { lba: erSector, length: er.length }))) * SECTOR };
    lba += d.primary.size / SECTOR;
  }
  for (const d of jolietOrder) {
    d.joliet = { lba, size: sectors(recordsLength(jolietRecords(d))) * SECTOR };
    lba += d.joliet.size / SECTOR;
  }
  const metaSectors = lba;
  const data: FileEntry[] = [];
  for (const d of primaryOrder) {
    for (const f of d.files) {
      f.lba = f.size === 0 ? 0 : lba;
      lba += sectors(f.size);
      if (f.size > 0) data.push(f);
    }
  }
  const total = lba + PAD_SECTORS;
  const image = Buffer.alloc(metaSectors * SECTOR);

  const joliet = FIRST_DESCRIPTOR + descriptors - 2;
  writeDescriptor(image, FIRST_DESCRIPTOR, 'primary', root.primary, total, primaryTableSize, tables.pL, tables.pM, options, date);
  writeDescriptor(image, joliet, 'joliet', root.joliet, total, jolietTableSize, tables.jL, tables.jM, options, date);
  if (bootable) {
    writeBootRecord(image, catalog);
    const entries: BootEntry[] = [];
    if (biosFile !== undefined) {
      entries.push({ platform: 'bios', lba: biosFile.lba, bytes: biosFile.size, loadSectors: BIOS_LOAD_SECTORS });
      biosFile.data = withBootInfoTable(biosFile.data as Buffer, FIRST_DESCRIPTOR, biosFile.lba);
    }
    if (efiFile !== undefined) entries.push({ platform: 'efi', lba: efiFile.lba, bytes: efiFile.size });
    writeBootCatalog(image, catalog, entries);
  }
  const terminator = (joliet + 1) * SECTOR;
  image[terminator] = 255;
  image.write('CD001', terminator + 1, 'latin1');
  image[terminator + 6] = 1;
  writePathTable(image, tables.pL, primaryOrder, primaryName, 'LE', (d) => d.primary.lba);
  writePathTable(image, tables.pM, primaryOrder, primaryName, 'BE', (d) => d.primary.lba);
  writePathTable(
    image,
    tables.jL,
    jolietOrder,
    (d) => jolietName(d.name),
    'LE',
    (d) => d.joliet.lba,
  );
  writePathTable(
    image,
    tables.jM,
    jolietOrder,
    (d) => jolietName(d.name),
    'BE',
    (d) => d.joliet.lba,
  );
  er.copy(image, erSector * SECTOR);
  for (const d of dirs) {
    writeRecords(image, d.primary.lba, primaryRecords(d, { lba: erSector, length: er.length }), date);
    writeRecords(image, d.joliet.lba, jolietRecords(d), date);
  }
  return { meta: image, data, total };
}

function findFile(root: Dir, path: string): FileEntry {
  let dir: Dir | undefined = root;
  const parts = path.split('/');
  for (const part of parts.slice(0, -1)) dir = dir?.dirs.find((d) => d.name === part);
  const file = dir?.files.find((f) => f.name === parts[parts.length - 1]);
  if (file === undefined || file.size === 0) throw new Error(`The El Torito boot image ${path} is not a file of the image`);
  return file;
}

// --- the tree ------------------------------------------------------------------------------------

function newDir(name: string, parent: Dir | undefined): Dir {
  return {
    name,
    parent,
    depth: parent === undefined ? 1 : parent.depth + 1,
    dirs: [],
    files: [],
    primary: { lba: 0, size: 0 },
    joliet: { lba: 0, size: 0 },
  };
}

function addFile(root: Dir, file: IsoFile): void {
  const parts = file.path.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..'))
    throw new Error(`Cannot put ${JSON.stringify(file.path)} on an ISO 9660 image: empty, "." or ".." path segments`);
  for (const part of parts) {
    if (Buffer.byteLength(part) > MAX_NAME_BYTES || part.length > MAX_JOLIET_CHARS)
      throw new Error(
        `Cannot put ${JSON.stringify(file.path)} on an ISO 9660 image: "${part}" is longer than ${MAX_JOLIET_CHARS} characters`,
      );
  }
  let dir = root;
  for (const part of parts.slice(0, -1)) {
    if (dir.files.some((f) => f.name === part))
      throw new Error(`Cannot put ${JSON.stringify(file.path)} on an ISO 9660 image: ${part} is a file`);
    let next = dir.dirs.find((d) => d.name === part);
    if (next === undefined) {
      next = newDir(part, dir);
      if (next.depth > MAX_DEPTH)
        throw new Error(`Cannot put ${JSON.stringify(file.path)} on an ISO 9660 image: deeper than ${MAX_DEPTH} levels`);
      dir.dirs.push(next);
    }
    dir = next;
  }
  const name = parts[parts.length - 1] as string;
  if (dir.files.some((f) => f.name === name) || dir.dirs.some((d) => d.name === name))
    throw new Error(`Cannot put ${JSON.stringify(file.path)} on an ISO 9660 image twice`);
  const data = typeof file.data === 'string' ? Buffer.from(file.data, 'utf8') : file.data;
  dir.files.push({ name, path: file.path, data, size: Buffer.isBuffer(data) ? data.length : data.size, lba: 0 });
  const primaryNames = [...dir.files.map((f) => primaryFileName(f.name)), ...dir.dirs.map((d) => primaryName(d))];
  if (new Set(primaryNames.map((n) => n.toString('latin1'))).size !== primaryNames.length)
    throw new Error(`Cannot put ${JSON.stringify(file.path)} on an ISO 9660 image: its ISO 9660 name collides with another's`);
}

function allDirs(root: Dir): Dir[] {
  const out: Dir[] = [];
  const visit = (d: Dir) => {
    out.push(d);
    d.dirs.forEach(visit);
  };
  visit(root);
  return out;
}

// --- names ---------------------------------------------------------------------------------------

/** genisoimage's relaxed ISO 9660 names (`-l -allow-lowercase -allow-multidot`): other characters become `_`. */
function relaxed(name: string): string {
  return name.replace(/[^A-Za-z0-9_.]/g, '_').slice(0, MAX_PRIMARY_CHARS);
}

function primaryName(d: Dir): Buffer {
  return d.parent === undefined ? Buffer.from([0]) : Buffer.from(relaxed(d.name), 'latin1');
}

/** A file's primary name: a dot is added when there is none (`user_data.`), then the version `;1`. */
function primaryFileName(name: string): Buffer {
  const base = relaxed(name).slice(0, MAX_PRIMARY_CHARS - 2);
  return Buffer.from(`${base.includes('.') ? base : `${base}.`};1`, 'latin1');
}

function jolietName(name: string): Buffer {
  if (name === '') return Buffer.from([0]);
  const out = Buffer.alloc(name.length * 2);
  for (let i = 0; i < name.length; i++) out.writeUInt16BE(name.charCodeAt(i), i * 2);
  return out;
}

function compareIds(a: Buffer, b: Buffer): number {
  return Buffer.compare(a, b);
}

// --- path tables ---------------------------------------------------------------------------------

/** Directories level by level, each level by parent number then identifier; numbering from 1. */
function pathTableOrder(root: Dir, id: (d: Dir) => Buffer): Dir[] {
  const order: Dir[] = [root];
  for (let i = 0; i < order.length; i++) {
    const children = [...(order[i] as Dir).dirs].sort((a, b) => compareIds(id(a), id(b)));
    order.push(...children);
  }
  return order;
}

function pathTableSize(order: readonly Dir[], id: (d: Dir) => Buffer): number {
  return order.reduce((sum, d) => {
    const length = id(d).length;
    return sum + 8 + length + (length % 2);
  }, 0);
}

function writePathTable(
  image: Buffer,
  sector: number,
  order: readonly Dir[],
  id: (d: Dir) => Buffer,
  endian: 'LE' | 'BE',
  lbaOf: (d: Dir) => number,
): void {
  let at = sector * SECTOR;
  for (const d of order) {
    const name = id(d);
    const parent = d.parent === undefined ? 1 : order.indexOf(d.parent) + 1;
    image[at] = name.length;
    image[at + 1] = 0;
    if (endian === 'LE') {
      image.writeUInt32LE(lbaOf(d), at + 2);
      image.writeUInt16LE(parent, at + 6);
    } else {
      image.writeUInt32BE(lbaOf(d), at + 2);
      image.writeUInt16BE(parent, at + 6);
    }
    name.copy(image, at + 8);
    at += 8 + name.length + (name.length % 2);
  }
}

// --- directory records ---------------------------------------------------------------------------

function primaryRecords(d: Dir, continuation: { lba: number; length: number }): RecordSpec[] {
  const parent = d.parent ?? d;
  const self: RecordSpec = {
    id: Buffer.from([0]),
    lba: d.primary.lba,
    size: d.primary.size,
    dir: true,
    systemUse:
      d.parent === undefined
        ? Buffer.concat([spEntry(), px(DIR_MODE, links(d)), ceEntry(continuation.lba, continuation.length)])
        : px(DIR_MODE, links(d)),
  };
  const up: RecordSpec = {
    id: Buffer.from([1]),
    lba: parent.primary.lba,
    size: parent.primary.size,
    dir: true,
    systemUse: px(DIR_MODE, links(parent)),
  };
  const children: RecordSpec[] = [
    ...d.dirs.map((c) => ({
      id: primaryName(c),
      lba: c.primary.lba,
      size: c.primary.size,
      dir: true,
      systemUse: Buffer.concat([px(DIR_MODE, links(c)), nm(c.name)]),
    })),
    ...d.files.map((f) => ({
      id: primaryFileName(f.name),
      lba: f.lba,
      size: f.size,
      dir: false,
      systemUse: Buffer.concat([px(FILE_MODE, 1), nm(f.name)]),
    })),
  ].sort((a, b) => compareIds(a.id, b.id));
  return [self, up, ...children];
}

function jolietRecords(d: Dir): RecordSpec[] {
  const parent = d.parent ?? d;
  const none = Buffer.alloc(0);
  const children: RecordSpec[] = [
    ...d.dirs.map((c) => ({ id: jolietName(c.name), lba: c.joliet.lba, size: c.joliet.size, dir: true, systemUse: none })),
    ...d.files.map((f) => ({ id: jolietName(f.name), lba: f.lba, size: f.size, dir: false, systemUse: none })),
  ].sort((a, b) => compareIds(a.id, b.id));
  return [
    { id: Buffer.from([0]), lba: d.joliet.lba, size: d.joliet.size, dir: true, systemUse: none },
    { id: Buffer.from([1]), lba: parent.joliet.lba, size: parent.joliet.size, dir: true, systemUse: none },
    ...children,
  ];
}

/** A directory's link count: itself, its entry in the parent, and each subdirectory's `..`. */
function links(d: Dir): number {
  return 2 + d.dirs.length;
}

function sectors(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / SECTOR));
}
