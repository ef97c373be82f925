/**
 * El Torito (the "Bootable CD-ROM Format Specification" 1.0): what makes an ISO 9660 image
 * bootable. A boot record volume descriptor at sector 17 points at a boot catalog; the catalog's
 * validation entry (checksummed) is followed by a default entry. Ironless writes the two kinds
 * Ironic's ISOs have, both without emulation. UEFI (`mkisofs -e <esp image> -no-emul-boot`):
 * platform 0xEF, the entry boots the FAT image of an EFI system partition that holds the boot
 * loader; the firmware reads that image as the partition and runs its `EFI/BOOT/BOOT<arch>.EFI`.
 * BIOS (`mkisofs -b isolinux/isolinux.bin -no-emul-boot -boot-load-size 4 -boot-info-table`):
 * platform 0, the BIOS loads the first four 512-byte sectors of isolinux.bin, which reads the rest
 * of itself through the boot info table written into it.
 */
import { SECTOR } from './iso9660-records';

/** The sector El Torito's boot record volume descriptor must occupy. */
export const BOOT_RECORD_SECTOR = 17;
/** The platform id of EFI in a validation or section header entry. */
export const PLATFORM_EFI = 0xef;
/** The platform id of the PC BIOS (80x86). */
export const PLATFORM_BIOS = 0;
/** The header of the last (here: only) section after the default entry. */
const FINAL_SECTION_HEADER = 0x91;
/** Where the boot info table ends, and the checksummed part of the boot file begins. */
const BOOT_INFO_END = 64;
const BOOTABLE = 0x88;
const NO_EMULATION = 0;
/** The catalog's sector count of the boot image counts virtual 512-byte sectors. */
const VIRTUAL_SECTOR = 512;

/** The boot record volume descriptor (type 0), pointing at the catalog's sector. */
export function writeBootRecord(image: Buffer, catalogLba: number): void {
  const at = BOOT_RECORD_SECTOR * SECTOR;
  image[at] = 0;
  image.write('CD001', at + 1, 'latin1');
  image[at + 6] = 1;
  image.write('EL TORITO SPECIFICATION', at + 7, 'latin1');
  image.writeUInt32LE(catalogLba, at + 0x47);
}

/** One boot image of the catalog: for which firmware, where it is, and how much of it that firmware loads. */
export interface BootEntry {
  /** `bios`: PC BIOS (platform 0, isolinux); `efi`: UEFI (platform 0xEF, an EFI system partition image). */
  readonly platform: 'bios' | 'efi';
  readonly lba: number;
  readonly bytes: number;
  /** The 512-byte sectors the BIOS loads (mkisofs' `-boot-load-size`); default: the whole image. */
  readonly loadSectors?: number;
}

/**
 * The boot catalog: validation entry (its 16-bit words sum to 0) naming the first entry's
 * platform, then that entry as the default (initial) entry; a second entry follows in a final
 * section (header 0x91 with its platform, one section entry), the layout `mkisofs -b isolinux.bin
 * … -eltorito-alt-boot -e efiboot.img` writes for a hybrid BIOS/UEFI image. Every entry is
 * bootable and without emulation. A length beyond 65535 units (32 MiB) is written as 0, which
 * firmware reads as "to the end of the image's file" the way xorriso leaves large EFI images;
 * UEFI firmware finds the partition through the catalog either way.
 */
export function writeBootCatalog(image: Buffer, catalogLba: number, entries: readonly BootEntry[]): void {
  const [first, ...rest] = entries;
  if (first === undefined || rest.length > 1) throw new Error(`A boot catalog holds one or two boot entries, not ${entries.length}`);
  const at = catalogLba * SECTOR;
  image[at] = 1; // header id
  image[at + 1] = platformId(first);
  image.writeUInt16LE(0, at + 2);
  image.write('IRONLESS', at + 4, 'latin1'); // id string (manufacturer), up to 24 bytes
  image[at + 0x1e] = 0x55;
  image[at + 0x1f] = 0xaa;
  image.writeUInt16LE(catalogChecksum(image.subarray(at, at + 32)), at + 0x1c);
  writeEntry(image, at + 32, first);
  const second = rest[0];
  if (second !== undefined) {
    const header = at + 64;
    image[header] = FINAL_SECTION_HEADER;
    image[header + 1] = platformId(second);
    image.writeUInt16LE(1, header + 2); // entries in this section
    writeEntry(image, header + 32, second);
  }
}

function platformId(entry: BootEntry): number {
  return entry.platform === 'efi' ? PLATFORM_EFI : PLATFORM_BIOS;
}

/** A default or section entry: bootable, no emulation, default load segment (0x7C0), its length in 512-byte units and first sector. */
function writeEntry(image: Buffer, at: number, entry: BootEntry): void {
  image[at] = BOOTABLE;
  image[at + 1] = NO_EMULATION;
  image.writeUInt16LE(0, at + 2); // load segment: the default (0x7C0)
  image[at + 4] = 0; // system type: unused for no emulation
  const units = entry.loadSectors ?? Math.ceil(entry.bytes / VIRTUAL_SECTOR);
  image.writeUInt16LE(units > 0xffff ? 0 : units, at + 6);
  image.writeUInt32LE(entry.lba, at + 8);
}

/**
 * The boot info table isolinux expects in its own first sector (mkisofs' `-boot-info-table`): at
 * byte 8 the primary volume descriptor's sector, at 12 the boot file's sector, at 16 its length in
 * bytes, at 20 the sum (mod 2^32) of its 32-bit little-endian words from byte 64 to its end, then
 * 40 zero bytes. isolinux finds the rest of itself, and the volume, from it. Returns a patched copy.
 */
export function withBootInfoTable(bootFile: Buffer, pvdLba: number, fileLba: number): Buffer {
  if (bootFile.length < BOOT_INFO_END)
    throw new Error(`A boot file with a boot info table must be at least ${BOOT_INFO_END} bytes, not ${bootFile.length}`);
  const patched = Buffer.from(bootFile);
  patched.writeUInt32LE(pvdLba, 8);
  patched.writeUInt32LE(fileLba, 12);
  patched.writeUInt32LE(patched.length, 16);
  patched.writeUInt32LE(bootFileChecksum(patched), 20);
  patched.fill(0, 24, BOOT_INFO_END);
  return patched;
}

/** The boot info table's checksum: 32-bit little-endian words from byte 64 on, a short last word padded with zeros. */
export function bootFileChecksum(bootFile: Buffer): number {
  let sum = 0;
  for (let i = BOOT_INFO_END; i < bootFile.length; i += 4) {
    const word =
      i + 4 <= bootFile.length ? bootFile.readUInt32LE(i) : Buffer.concat([bootFile.subarray(i), Buffer.alloc(4)]).readUInt32LE(0);
    sum = (sum + word) >>> 0;
  }
  return sum;
}
/** The word that makes the validation entry's 16 little-endian words sum to 0 (mod 2^16), the checksum word itself counted as 0. */
export function catalogChecksum(validationEntry: Buffer): number {
  let sum = 0;
  for (let i = 0; i < 32; i += 2) if (i !== 0x1c) sum = (sum + validationEntry.readUInt16LE(i)) & 0xffff;
  return (0x10000 - sum) & 0xffff;
}
