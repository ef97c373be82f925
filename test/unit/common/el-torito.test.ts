/**
 * El Torito on the ISO 9660 writer (the agent ISO the redfish boot interface builds), byte by byte:
 * the boot record at sector 17, the catalog's validation entry and its checksum, the default entry
 * pointing at the EFI system partition image; and the streamed image, byte for byte the in-memory one.
 */
import { catalogChecksum } from '../../../functions/common/el-torito';
import { type IsoFile, buildIso, isoImage } from '../../../functions/common/iso9660';
import { readIso } from '../../../local/fleet/agent/iso9660';

const SECTOR = 2048;
const ESP = Buffer.alloc(5 * SECTOR + 100, 0xe5);
const FILES: IsoFile[] = [
  { path: 'vmlinuz', data: Buffer.alloc(3000, 1) },
  { path: 'initrd', data: Buffer.alloc(9000, 2) },
  { path: 'boot/grub/efiboot.img', data: ESP },
  { path: 'EFI/BOOT/grub.cfg', data: 'menuentry "x" {\n}\n' },
];
const OPTIONS = { volumeId: 'IRONLESS_AGENT', date: new Date('2026-11-27T20:00:00Z'), efiBootImage: 'boot/grub/efiboot.img' };

async function collect(image: { stream(): AsyncGenerator<Buffer> }): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of image.stream()) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

describe('El Torito', () => {
  const image = buildIso(FILES, OPTIONS);

  it('puts the primary descriptor at 16, the boot record at 17, Joliet at 18 and the terminator at 19', () => {
    expect([16, 17, 18, 19].map((s) => image[s * SECTOR])).toEqual([1, 0, 2, 255]);
    for (const s of [16, 17, 18, 19]) expect(image.toString('latin1', s * SECTOR + 1, s * SECTOR + 6)).toBe('CD001');
    const record = 17 * SECTOR;
    expect(image[record + 6]).toBe(1);
    expect(image.toString('latin1', record + 7, record + 39)).toBe('EL TORITO SPECIFICATION'.padEnd(32, '\0'));
    // The catalog follows the descriptors.
    expect(image.readUInt32LE(record + 0x47)).toBe(20);
  });

  it('writes a validation entry for EFI whose sixteen words sum to zero', () => {
    const catalog = image.subarray(20 * SECTOR, 20 * SECTOR + 64);
    expect(catalog[0]).toBe(1);
    expect(catalog[1]).toBe(0xef);
    expect(catalog.toString('latin1', 4, 12)).toBe('IRONLESS');
    expect([catalog[0x1e], catalog[0x1f]]).toEqual([0x55, 0xaa]);
    let sum = 0;
    for (let i = 0; i < 32; i += 2) sum = (sum + catalog.readUInt16LE(i)) & 0xffff;
    expect(sum).toBe(0);
    expect(catalog.readUInt16LE(0x1c)).toBe(catalogChecksum(catalog.subarray(0, 32)));
  });

  it('writes a bootable no-emulation default entry pointing at the ESP image, its length in 512-byte units', () => {
    const entry = image.subarray(20 * SECTOR + 32, 20 * SECTOR + 64);
    expect(entry[0]).toBe(0x88);
    expect(entry[1]).toBe(0);
    expect(entry.readUInt16LE(2)).toBe(0);
    expect(entry.readUInt16LE(6)).toBe(Math.ceil(ESP.length / 512));
    const lba = entry.readUInt32LE(8);
    expect(image.subarray(lba * SECTOR, lba * SECTOR + ESP.length)).toEqual(ESP);
    // The rest of the entry is zero (no selection criteria).
    expect([...entry.subarray(12)].every((b) => b === 0)).toBe(true);
  });

  it('keeps the files readable, and the image without a boot image has no boot record', () => {
    const files = readIso(image).files;
    expect(files.get('boot/grub/efiboot.img')).toEqual(ESP);
    expect(files.get('EFI/BOOT/grub.cfg')?.toString()).toBe('menuentry "x" {\n}\n');
    const plain = buildIso(FILES, { ...OPTIONS, efiBootImage: undefined });
    expect([16, 17, 18].map((s) => plain[s * SECTOR])).toEqual([1, 2, 255]);
  });

  it('refuses a boot image that is not one of the files', () => {
    expect(() => buildIso(FILES, { ...OPTIONS, efiBootImage: 'boot/missing.img' })).toThrow(
      'The El Torito boot image boot/missing.img is not a file of the image',
    );
  });
});

describe('streaming an image', () => {
  it('streams the same bytes buildIso writes, reading stream sources chunk by chunk', async () => {
    const initrd = FILES[1]?.data as Buffer;
    const streamed = FILES.map((f) =>
      f.path === 'initrd'
        ? {
            path: 'initrd',
            data: {
              size: initrd.length,
              async *open() {
                for (let at = 0; at < initrd.length; at += 1000) yield initrd.subarray(at, at + 1000);
              },
            },
          }
        : f,
    );
    const image = isoImage(streamed, OPTIONS);
    const bytes = await collect(image);
    expect(bytes.length).toBe(image.size);
    expect(bytes.equals(buildIso(FILES, OPTIONS))).toBe(true);
  });

  it('fails when a source yields more or fewer bytes than its size', async () => {
    const source = (size: number, bytes: number) => ({
      size,
      async *open() {
        yield Buffer.alloc(bytes);
      },
    });
    await expect(collect(isoImage([{ path: 'initrd', data: source(10, 12) }], OPTIONS_PLAIN))).rejects.toThrow(
      'initrd is longer than the 10 bytes it was said to have',
    );
    await expect(collect(isoImage([{ path: 'initrd', data: source(10, 4) }], OPTIONS_PLAIN))).rejects.toThrow(
      'initrd ended after 4 of its 10 bytes',
    );
    expect(() => buildIso([{ path: 'initrd', data: source(4, 4) }], OPTIONS_PLAIN)).toThrow('stream initrd with isoImage instead');
  });
});

const OPTIONS_PLAIN = { volumeId: 'X' };
