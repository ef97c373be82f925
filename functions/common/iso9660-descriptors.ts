/** ECMA-119 volume descriptors: the primary one and the Joliet supplementary one (UCS-2, level 3). */
import { both16, both32, volumeDate } from './iso9660-encoding';
import { SECTOR, writeRecord } from './iso9660-records';

/** A primary (type 1) or Joliet supplementary (type 2) volume descriptor, its root record pointing at `root`. */
export function writeDescriptor(
  image: Buffer,
  sector: number,
  kind: 'primary' | 'joliet',
  root: { readonly lba: number; readonly size: number },
  totalSectors: number,
  tableSize: number,
  tableL: number,
  tableM: number,
  options: { readonly volumeId: string; readonly publisher?: string; readonly application?: string },
  date: Date,
): void {
  const at = sector * SECTOR;
  const joliet = kind === 'joliet';
  const text = (value: string, offset: number, length: number) => {
    if (joliet) {
      for (let i = 0; i < length / 2; i++) image.writeUInt16BE(i < value.length ? value.charCodeAt(i) : 0x20, at + offset + i * 2);
    } else {
      image.write(value.slice(0, length).padEnd(length, ' '), at + offset, length, 'latin1');
    }
  };
  image[at] = joliet ? 2 : 1;
  image.write('CD001', at + 1, 'latin1');
  image[at + 6] = 1;
  text('LINUX', 8, 32);
  text(options.volumeId, 40, 32);
  both32(image, at + 80, totalSectors);
  if (joliet) image.write('%/E', at + 88, 'latin1'); // UCS-2 level 3
  both16(image, at + 120, 1);
  both16(image, at + 124, 1);
  both16(image, at + 128, SECTOR);
  both32(image, at + 132, tableSize);
  image.writeUInt32LE(tableL, at + 140);
  image.writeUInt32BE(tableM, at + 148);
  const extent = root;
  writeRecord(
    image,
    at + 156,
    { id: Buffer.from([0]), lba: extent.lba, size: extent.size, dir: true, systemUse: Buffer.alloc(0) },
    34,
    date,
  );
  text('', 190, 128);
  text(options.publisher ?? '', 318, 128);
  text('', 446, 128);
  text(options.application ?? '', 574, 128);
  text('', 702, 36);
  text('', 739, 36);
  text('', 776, 36);
  volumeDate(image, at + 813, date);
  volumeDate(image, at + 830, date);
  volumeDate(image, at + 847, undefined);
  volumeDate(image, at + 864, date);
  image[at + 881] = 1;
}
