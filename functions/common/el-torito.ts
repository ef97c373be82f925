/**
 * El Torito (the "Bootable CD-ROM Format Specification" 1.0): what makes an ISO 9660 image
 * bootable. A boot record volume descriptor at sector 17 points at a boot catalog; the catalog's
 * validation entry (checksummed) is followed by a default entry. Ironless writes one kind only, the
 * one Ironic's UEFI ISOs have (`mkisofs -e <esp image> -no-emul-boot`): the validation entry names
 * platform 0xEF (EFI) and the default entry boots, without emulation, the FAT image of an EFI
 * system partition that holds the boot loader. The firmware reads that image as the partition and
 * runs its `EFI/BOOT/BOOT<arch>.EFI`.
 */
import { SECTOR } from './iso9660-records';

/** The sector El Torito's boot record volume descriptor must occupy. */
export const BOOT_RECORD_SECTOR = 17;
/** The platform id of EFI in a validation or section header entry. */
export const PLATFORM_EFI = 0xef;
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

/**
 * The boot catalog: validation entry (its 16-bit words sum to 0), then the default (initial)
 * entry: bootable, no emulation, the boot image's first sector and its length in 512-byte units.
 * A length beyond 65535 units (32 MiB) is written as 0, which firmware reads as "to the end of
 * the image's file" the way xorriso leaves large EFI images; UEFI firmware finds the partition
 * through the catalog either way.
 */
export function writeBootCatalog(image: Buffer, catalogLba: number, bootImageLba: number, bootImageBytes: number): void {
  const at = catalogLba * SECTOR;
  image[at] = 1; // header id
  image[at + 1] = PLATFORM_EFI;
  image.writeUInt16LE(0, at + 2);
  image.write('IRONLESS', at + 4, 'latin1'); // id string (manufacturer), up to 24 bytes
  image[at + 0x1e] = 0x55;
  image[at + 0x1f] = 0xaa;
  image.writeUInt16LE(catalogChecksum(image.subarray(at, at + 32)), at + 0x1c);
  const entry = at + 32;
  image[entry] = BOOTABLE;
  image[entry + 1] = NO_EMULATION;
  image.writeUInt16LE(0, entry + 2); // load segment: the default (0x7C0)
  image[entry + 4] = 0; // system type: unused for no emulation
  const units = Math.ceil(bootImageBytes / VIRTUAL_SECTOR);
  image.writeUInt16LE(units > 0xffff ? 0 : units, entry + 6);
  image.writeUInt32LE(bootImageLba, entry + 8);
}

/** The word that makes the validation entry's 16 little-endian words sum to 0 (mod 2^16), the checksum word itself counted as 0. */
export function catalogChecksum(validationEntry: Buffer): number {
  let sum = 0;
  for (let i = 0; i < 32; i += 2) if (i !== 0x1c) sum = (sum + validationEntry.readUInt16LE(i)) & 0xffff;
  return (0x10000 - sum) & 0xffff;
}
