/**
 * El Torito for a PC BIOS (what `mkisofs -b isolinux/isolinux.bin -no-emul-boot -boot-load-size 4
 * -boot-info-table` writes, Ironic's BIOS ISO): the BIOS default entry, and the boot info table
 * patched into isolinux.bin, its fields computed here independently of the writer; and a hybrid
 * catalog (BIOS default entry, EFI in a final section) as `-eltorito-alt-boot -e` writes it.
 */
import { createHash } from 'node:crypto';
import { bootFileChecksum, withBootInfoTable } from '../../../functions/common/el-torito';
import { type IsoFile, buildIso, isoImage } from '../../../functions/common/iso9660';
import { readIso } from '../../../local/fleet/agent/iso9660';

const SECTOR = 2048;
/** Stands in for isolinux.bin: 5 sectors and a few bytes (a short last word), not all alike. */
const ISOLINUX = Buffer.concat(Array.from({ length: 323 }, (_, i) => createHash('sha256').update(`isolinux-${i}`).digest())).subarray(
  0,
  5 * SECTOR + 6,
);
const ESP = Buffer.alloc(3 * SECTOR, 0xe5);
const FILES: IsoFile[] = [
  { path: 'vmlinuz', data: Buffer.alloc(3000, 1) },
  { path: 'initrd', data: Buffer.alloc(9000, 2) },
  { path: 'isolinux/isolinux.bin', data: ISOLINUX },
  { path: 'isolinux/ldlinux.c32', data: Buffer.alloc(700, 3) },
  { path: 'isolinux/isolinux.cfg', data: 'default boot\n' },
  { path: 'boot/grub/efiboot.img', data: ESP },
];
const OPTIONS = { volumeId: 'VMEDIA_BOOT_ISO', date: new Date('2026-11-28T08:00:00Z'), biosBootImage: 'isolinux/isolinux.bin' };

/** The checksum as the El Torito/mkisofs documentation states it, written without the writer's code: a DataView over zero-padded words. */
function expectedChecksum(file: Buffer): number {
  const padded = new Uint8Array(Math.ceil(file.length / 4) * 4);
  padded.set(file);
  const view = new DataView(padded.buffer);
  let sum = 0n;
  for (let i = 64; i < padded.length; i += 4) sum += BigInt(view.getUint32(i, true));
  return Number(sum % 2n ** 32n);
}

describe('El Torito for BIOS', () => {
  const image = buildIso(FILES, OPTIONS);
  const catalogLba = image.readUInt32LE(17 * SECTOR + 0x47);
  const catalog = image.subarray(catalogLba * SECTOR, catalogLba * SECTOR + 128);

  it('writes a validation entry for platform 0 (80x86) and a bootable no-emulation default entry loading 4 sectors', () => {
    expect([catalog[0], catalog[1]]).toEqual([1, 0]);
    let sum = 0;
    for (let i = 0; i < 32; i += 2) sum = (sum + catalog.readUInt16LE(i)) & 0xffff;
    expect(sum).toBe(0);
    expect([catalog[32], catalog[33], catalog.readUInt16LE(34), catalog.readUInt16LE(38)]).toEqual([0x88, 0, 0, 4]);
    // No section follows a BIOS-only catalog.
    expect([...catalog.subarray(64, 128)].every((b) => b === 0)).toBe(true);
  });

  it('patches the boot info table into isolinux.bin on the image: PVD at 16, its own sector, its length, the checksum', () => {
    const lba = catalog.readUInt32LE(40);
    const onImage = image.subarray(lba * SECTOR, lba * SECTOR + ISOLINUX.length);
    expect(onImage.readUInt32LE(8)).toBe(16);
    expect(onImage.readUInt32LE(12)).toBe(lba);
    expect(onImage.readUInt32LE(16)).toBe(ISOLINUX.length);
    expect(onImage.readUInt32LE(20)).toBe(expectedChecksum(ISOLINUX));
    expect([...onImage.subarray(24, 64)].every((b) => b === 0)).toBe(true);
    // Everything else is isolinux.bin's own bytes, and the file the directory names is the patched one.
    expect(onImage.subarray(0, 8)).toEqual(ISOLINUX.subarray(0, 8));
    expect(onImage.subarray(64)).toEqual(ISOLINUX.subarray(64));
    expect(readIso(image).files.get('isolinux/isolinux.bin')).toEqual(onImage);
    // The primary volume descriptor is where the table says.
    expect([image[16 * SECTOR], image.toString('latin1', 16 * SECTOR + 1, 16 * SECTOR + 6)]).toEqual([1, 'CD001']);
  });

  it('leaves the caller’s isolinux.bin as it was, and streams the same bytes', async () => {
    expect(ISOLINUX.readUInt32LE(8)).not.toBe(16);
    const chunks: Buffer[] = [];
    for await (const chunk of isoImage(FILES, OPTIONS).stream()) chunks.push(Buffer.from(chunk));
    expect(Buffer.concat(chunks)).toEqual(image);
  });

  it('checksums a short last word as if padded with zeros', () => {
    const file = Buffer.alloc(70, 0);
    file[68] = 1; // the word at 68 is 0x00000001 padded
    expect(bootFileChecksum(file)).toBe(1);
    expect(bootFileChecksum(file)).toBe(expectedChecksum(file));
    expect(() => withBootInfoTable(Buffer.alloc(10), 16, 30)).toThrow('at least 64 bytes');
  });

  it('refuses a BIOS boot image given as a stream', () => {
    const streamed: IsoFile[] = FILES.map((f) =>
      f.path === 'isolinux/isolinux.bin'
        ? {
            path: f.path,
            data: {
              size: ISOLINUX.length,
              open: async function* () {
                yield ISOLINUX;
              },
            },
          }
        : f,
    );
    expect(() => isoImage(streamed, OPTIONS)).toThrow('The BIOS boot image isolinux/isolinux.bin must be given in memory');
  });
});

describe('a hybrid catalog', () => {
  const image = buildIso(FILES, { ...OPTIONS, efiBootImage: 'boot/grub/efiboot.img' });
  const catalogLba = image.readUInt32LE(17 * SECTOR + 0x47);
  const catalog = image.subarray(catalogLba * SECTOR, catalogLba * SECTOR + 128);

  it('keeps BIOS as the default entry and puts EFI in a final section with one entry', () => {
    expect(catalog[1]).toBe(0);
    expect(catalog.readUInt16LE(38)).toBe(4);
    expect([catalog[64], catalog[65], catalog.readUInt16LE(66)]).toEqual([0x91, 0xef, 1]);
    const efi = catalog.subarray(96, 128);
    expect([efi[0], efi[1], efi.readUInt16LE(6)]).toEqual([0x88, 0, ESP.length / 512]);
    const lba = efi.readUInt32LE(8);
    expect(image.subarray(lba * SECTOR, lba * SECTOR + ESP.length)).toEqual(ESP);
  });
});
