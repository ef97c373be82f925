/**
 * What a virtual machine's firmware does with the ISO on its virtual CD when it is not the fleet's
 * ready agent ISO: fetch it as a BMC would, check it is El Torito bootable for the machine's boot
 * mode (boot record at sector 17, a boot catalog whose validation entry checksums to 0, a bootable
 * no-emulation entry for platform EFI in UEFI mode, for the BIOS in legacy mode), read its grub.cfg
 * (UEFI) or isolinux.cfg (BIOS, after checking isolinux.bin's boot info table and ldlinux.c32)
 * and the kernel and ramdisk that names. The machine then runs the agent when that ramdisk is the fleet's agent
 * ramdisk. A malformed image is an IsoError saying what is wrong, never a crash.
 */
import { AGENT_RAMDISK } from '../agent-images';
import { IsoError, readIso } from './iso9660';

const SECTOR = 2048;
const BOOT_RECORD_SECTOR = 17;
const PLATFORM_EFI = 0xef;
const PLATFORM_BIOS = 0;
const BOOTABLE = 0x88;
/** An agent ISO is a few hundred MiB at most; the virtual one a few hundred KiB. */
const MAX_ISO_BYTES = 64 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 30_000;

export interface BootIso {
  readonly kernel: Buffer;
  readonly ramdisk: Buffer;
  /** The kernel command line grub.cfg (UEFI) or isolinux.cfg (BIOS) gives. */
  readonly cmdline: string;
  /** The volume label, and every file on the image (what the ramdisk sees once it mounts the CD). */
  readonly label: string;
  readonly files: ReadonlyMap<string, Buffer>;
}

/** The firmware of the virtual machine: Redfish's BootSourceOverrideMode values. */
export type Firmware = 'UEFI' | 'Legacy';

interface CatalogEntry {
  readonly platform: number;
  readonly bootable: boolean;
  readonly media: number;
  readonly loadSectors: number;
  readonly lba: number;
}

/**
 * Read a bootable ISO as the machine's firmware would: UEFI takes the catalog's EFI entry and the
 * grub.cfg, a legacy BIOS its BIOS entry, which must be isolinux.bin with a right boot info table
 * and ldlinux.c32 beside it, and the isolinux.cfg.
 */
export function readBootIso(image: Buffer, firmware: Firmware = 'UEFI'): BootIso {
  const entries = readCatalog(image);
  const platform = firmware === 'UEFI' ? PLATFORM_EFI : PLATFORM_BIOS;
  const entry = entries.find((e) => e.platform === platform);
  if (entry === undefined) {
    const first = (entries[0] as CatalogEntry).platform.toString(16);
    throw new IsoError(
      firmware === 'UEFI'
        ? `the boot catalog is for platform 0x${first}, not EFI`
        : `the boot catalog has no entry for platform 0x0 (BIOS), only 0x${first}`,
    );
  }
  if (!entry.bootable || entry.media !== 0) throw new IsoError('the boot entry is not a bootable no-emulation entry');
  if (entry.lba === 0 || (entry.lba + 1) * SECTOR > image.length)
    throw new IsoError(`the boot image's sector ${entry.lba} is outside the image`);

  const { files, volumeId } = readIso(image);
  const boot = firmware === 'UEFI' ? grubBoot(files) : isolinuxBoot(image, entry, files);
  const file = (path: string) => {
    const data = files.get(path.replace(/^\/+/, ''));
    if (data === undefined) throw new IsoError(`${boot.config} names ${path}, which is not on the image`);
    return data;
  };
  return { kernel: file(boot.kernel), ramdisk: file(boot.initrd), cmdline: boot.cmdline, label: volumeId, files };
}

/** The boot record at 17, the catalog's validation entry, its default entry and those of its sections. */
function readCatalog(image: Buffer): CatalogEntry[] {
  const record = BOOT_RECORD_SECTOR * SECTOR;
  if (image.length < (BOOT_RECORD_SECTOR + 1) * SECTOR) throw new IsoError('too short for an El Torito boot record');
  if (image[record] !== 0 || image.toString('latin1', record + 1, record + 6) !== 'CD001') {
    throw new IsoError('no boot record volume descriptor at sector 17');
  }
  if (image.toString('latin1', record + 7, record + 30) !== 'EL TORITO SPECIFICATION')
    throw new IsoError('the boot record is not El Torito');
  const catalogLba = image.readUInt32LE(record + 0x47);
  if ((catalogLba + 1) * SECTOR > image.length) throw new IsoError(`the boot catalog's sector ${catalogLba} is outside the image`);
  const catalog = image.subarray(catalogLba * SECTOR, (catalogLba + 1) * SECTOR);
  let sum = 0;
  for (let i = 0; i < 32; i += 2) sum = (sum + catalog.readUInt16LE(i)) & 0xffff;
  if (catalog[0] !== 1 || catalog[0x1e] !== 0x55 || catalog[0x1f] !== 0xaa || sum !== 0) {
    throw new IsoError('the boot catalog has no valid validation entry (header, key or checksum)');
  }
  const entry = (at: number, platform: number): CatalogEntry => ({
    platform,
    bootable: catalog[at] === BOOTABLE,
    media: (catalog[at + 1] as number) & 0x0f,
    loadSectors: catalog.readUInt16LE(at + 6),
    lba: catalog.readUInt32LE(at + 8),
  });
  const entries = [entry(32, catalog[1] as number)];
  // Section headers (0x90, the last 0x91), each followed by its entries.
  for (let at = 64; at + 32 <= catalog.length && (catalog[at] === 0x90 || catalog[at] === 0x91);) {
    const last = catalog[at] === 0x91;
    const platform = catalog[at + 1] as number;
    const count = catalog.readUInt16LE(at + 2);
    at += 32;
    for (let i = 0; i < count && at + 32 <= catalog.length; i++, at += 32) entries.push(entry(at, platform));
    if (last) break;
  }
  return entries;
}

interface Boot {
  readonly config: string;
  readonly kernel: string;
  readonly initrd: string;
  readonly cmdline: string;
}

/** What grub.cfg boots (UEFI). */
function grubBoot(files: ReadonlyMap<string, Buffer>): Boot {
  const grubPath = [...files.keys()].find((p) => p.toLowerCase().endsWith('grub.cfg'));
  if (grubPath === undefined) throw new IsoError('no grub.cfg on the image');
  const grub = (files.get(grubPath) as Buffer).toString('utf8');
  const linux = /^\s*linux(?:efi)?\s+(\S+)\s*(.*)$/m.exec(grub);
  const initrd = /^\s*initrd(?:efi)?\s+(\S+)/m.exec(grub);
  if (!linux || !initrd) throw new IsoError(`${grubPath} names no linux and initrd`);
  return {
    config: grubPath,
    kernel: linux[1] as string,
    initrd: initrd[1] as string,
    cmdline: (linux[2] as string).replace(/\s*--\s*$/, ''),
  };
}

/**
 * What isolinux boots (BIOS): the BIOS loads the entry's first sectors, isolinux.bin then needs
 * its boot info table (mkisofs' `-boot-info-table`) to find the rest of itself, loads ldlinux.c32
 * from its own folder, and reads isolinux.cfg there. The command line is the `append` line
 * without the `--` that ends it (the kernel sees `initrd=` too, as a real one does).
 */
function isolinuxBoot(image: Buffer, entry: CatalogEntry, files: ReadonlyMap<string, Buffer>): Boot {
  if (entry.loadSectors === 0) throw new IsoError('the BIOS boot entry loads no sectors');
  const at = entry.lba * SECTOR;
  const table = image.subarray(at, at + 64);
  const length = table.readUInt32LE(16);
  if (table.readUInt32LE(8) !== 16 || table.readUInt32LE(12) !== entry.lba || length < 64 || at + length > image.length) {
    throw new IsoError('the BIOS boot image has no boot info table (primary volume at 16, its own sector and length)');
  }
  const bootImage = image.subarray(at, at + length);
  let sum = 0;
  const padded = Buffer.concat([bootImage, Buffer.alloc(3)]);
  for (let i = 64; i < length; i += 4) sum = (sum + padded.readUInt32LE(i)) >>> 0;
  if (table.readUInt32LE(20) !== sum) throw new IsoError("the BIOS boot image's boot info table checksum is wrong");
  const binPath = [...files.keys()].find((p) => p.toLowerCase().endsWith('isolinux.bin') && (files.get(p) as Buffer).equals(bootImage));
  if (binPath === undefined) throw new IsoError('the BIOS boot image is not an isolinux.bin on the image');
  const dir = binPath.slice(0, binPath.lastIndexOf('/') + 1);
  if (!files.has(`${dir}ldlinux.c32`)) throw new IsoError(`no ldlinux.c32 beside ${binPath}`);
  const cfgPath = `${dir}isolinux.cfg`;
  const cfg = files.get(cfgPath)?.toString('utf8');
  if (cfg === undefined) throw new IsoError(`no isolinux.cfg beside ${binPath}`);
  const kernel = /^\s*(?:kernel|linux)\s+(\S+)/im.exec(cfg);
  const append = /^\s*append\s+(.*)$/im.exec(cfg);
  const initrd = append ? /(?:^|\s)initrd=(\S+)/.exec(append[1] as string) : null;
  if (!kernel || !append || !initrd) throw new IsoError(`${cfgPath} names no kernel and initrd`);
  return {
    config: cfgPath,
    kernel: kernel[1] as string,
    initrd: initrd[1] as string,
    cmdline: (append[1] as string).replace(/\s*--\s*$/, ''),
  };
}

/** Whether the booted ISO carries the fleet's agent ramdisk. */
export function bootsAgent(iso: BootIso): boolean {
  return iso.ramdisk.equals(AGENT_RAMDISK);
}

/** Fetch the ISO from its URL, as the BMC reads the virtual CD; `corrupt` damages what arrives (the `mediaCorrupt` fault). */
export async function fetchBootIso(url: string, corrupt = false): Promise<Buffer> {
  const response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  if (!response.ok) throw new IsoError(`fetching the image answered HTTP ${response.status}`);
  const length = Number(response.headers.get('content-length') ?? 0);
  if (length > MAX_ISO_BYTES) throw new IsoError(`the image is larger than ${MAX_ISO_BYTES} bytes`);
  const image = Buffer.from(await response.arrayBuffer());
  if (corrupt) {
    // Every other sector zeroed from the descriptors on: what a flaky link or a truncated copy leaves.
    for (let sector = 16; sector * SECTOR < image.length; sector += 2) image.fill(0, sector * SECTOR, (sector + 1) * SECTOR);
  }
  return image;
}
