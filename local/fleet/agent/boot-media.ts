/**
 * What a virtual machine's firmware does with the ISO on its virtual CD when it is not the fleet's
 * ready agent ISO: fetch it as a BMC would, check it is UEFI-bootable El Torito (boot record at
 * sector 17, a boot catalog whose validation entry checksums to 0 and names platform EFI, a
 * bootable no-emulation default entry inside the image), read its grub.cfg and the kernel and
 * ramdisk that names. The machine then runs the agent when that ramdisk is the fleet's agent
 * ramdisk. A malformed image is an IsoError saying what is wrong, never a crash.
 */
import { AGENT_RAMDISK } from '../agent-images';
import { IsoError, readIso } from './iso9660';

const SECTOR = 2048;
const BOOT_RECORD_SECTOR = 17;
const PLATFORM_EFI = 0xef;
/** An agent ISO is a few hundred MiB at most; the virtual one a few hundred KiB. */
const MAX_ISO_BYTES = 64 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 30_000;

export interface BootIso {
  readonly kernel: Buffer;
  readonly ramdisk: Buffer;
  /** The kernel command line grub.cfg gives. */
  readonly cmdline: string;
  /** The volume label, and every file on the image (what the ramdisk sees once it mounts the CD). */
  readonly label: string;
  readonly files: ReadonlyMap<string, Buffer>;
}

/** Read a UEFI-bootable ISO's El Torito structure and what its grub.cfg boots. */
export function readBootIso(image: Buffer): BootIso {
  const record = BOOT_RECORD_SECTOR * SECTOR;
  if (image.length < (BOOT_RECORD_SECTOR + 1) * SECTOR) throw new IsoError('too short for an El Torito boot record');
  if (image[record] !== 0 || image.toString('latin1', record + 1, record + 6) !== 'CD001') {
    throw new IsoError('no boot record volume descriptor at sector 17');
  }
  if (image.toString('latin1', record + 7, record + 30) !== 'EL TORITO SPECIFICATION')
    throw new IsoError('the boot record is not El Torito');
  const catalogLba = image.readUInt32LE(record + 0x47);
  if ((catalogLba + 1) * SECTOR > image.length) throw new IsoError(`the boot catalog's sector ${catalogLba} is outside the image`);
  const catalog = image.subarray(catalogLba * SECTOR, catalogLba * SECTOR + 64);
  let sum = 0;
  for (let i = 0; i < 32; i += 2) sum = (sum + catalog.readUInt16LE(i)) & 0xffff;
  if (catalog[0] !== 1 || catalog[0x1e] !== 0x55 || catalog[0x1f] !== 0xaa || sum !== 0) {
    throw new IsoError('the boot catalog has no valid validation entry (header, key or checksum)');
  }
  if (catalog[1] !== PLATFORM_EFI) throw new IsoError(`the boot catalog is for platform 0x${(catalog[1] as number).toString(16)}, not EFI`);
  if (catalog[32] !== 0x88 || catalog[33] !== 0) throw new IsoError('the default boot entry is not a bootable no-emulation entry');
  const espLba = catalog.readUInt32LE(40);
  if (espLba === 0 || (espLba + 1) * SECTOR > image.length) throw new IsoError(`the boot image's sector ${espLba} is outside the image`);

  const { files, volumeId } = readIso(image);
  const grubPath = [...files.keys()].find((p) => p.toLowerCase().endsWith('grub.cfg'));
  if (grubPath === undefined) throw new IsoError('no grub.cfg on the image');
  const grub = (files.get(grubPath) as Buffer).toString('utf8');
  const linux = /^\s*linux(?:efi)?\s+(\S+)\s*(.*)$/m.exec(grub);
  const initrd = /^\s*initrd(?:efi)?\s+(\S+)/m.exec(grub);
  if (!linux || !initrd) throw new IsoError(`${grubPath} names no linux and initrd`);
  const file = (path: string) => {
    const data = files.get(path.replace(/^\/+/, ''));
    if (data === undefined) throw new IsoError(`${grubPath} names ${path}, which is not on the image`);
    return data;
  };
  return {
    kernel: file(linux[1] as string),
    ramdisk: file(initrd[1] as string),
    cmdline: (linux[2] as string).replace(/\s*--\s*$/, ''),
    label: volumeId,
    files,
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
