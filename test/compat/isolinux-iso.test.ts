/**
 * The BIOS agent ISO (issue 21) read by tools that are not Ironless's, with Debian's real
 * isolinux.bin and ldlinux.c32 (packages isolinux, syslinux-common, found as the stacks find them):
 * isoinfo (genisoimage) and xorriso see an El Torito catalog for x86 whose default entry boots
 * /isolinux/isolinux.bin without emulation, 4 sectors loaded, at the sector the directory gives;
 * xorriso recognises its boot info table; and that table is byte for byte the one genisoimage
 * patches in when run as Ironic's `create_isolinux_image_for_bios` runs it, but for the sector.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildIso } from '../../functions/common/iso9660';
import { ISOLINUX_ISO_PATHS, isolinuxConfig } from '../../functions/drivers/redfish/isolinux';
import { readIsolinux, resolveIsolinux } from '../../lib/isolinux';

const run = promisify(execFile);
const SECTOR = 2048;
const PARAMS = 'nofb vga=normal ir_pub_id=7d0c5ab0-3f4e-4a43-9d53-2f0e0c2b1a11 boot_method=vmedia';
let dir: string;
let iso: string;
let reference: string;
let isolinux: { isolinuxBin: Buffer; ldlinuxC32?: Buffer };

beforeAll(async () => {
  const paths = resolveIsolinux({});
  if (paths === undefined) throw new Error("Debian's isolinux is not installed: apt-get install isolinux syslinux-common (.ci/run does)");
  isolinux = readIsolinux(paths);
  dir = mkdtempSync(join(tmpdir(), 'isolinux-iso-'));
  iso = join(dir, 'ironless.iso');
  const files = [
    { path: 'vmlinuz', data: Buffer.alloc(5000, 1) },
    { path: 'initrd', data: Buffer.alloc(9000, 2) },
    { path: ISOLINUX_ISO_PATHS.bin, data: isolinux.isolinuxBin },
    { path: ISOLINUX_ISO_PATHS.ldlinux, data: isolinux.ldlinuxC32 as Buffer },
    { path: ISOLINUX_ISO_PATHS.cfg, data: isolinuxConfig(PARAMS, 'vmlinuz', 'initrd') },
  ];
  writeFileSync(iso, buildIso(files, { volumeId: 'VMEDIA_BOOT_ISO', publisher: '7d0c5ab0', biosBootImage: ISOLINUX_ISO_PATHS.bin }));
  // The same tree through genisoimage, with Ironic's arguments.
  const tree = join(dir, 'tree');
  for (const f of files) {
    mkdirSync(join(tree, f.path, '..'), { recursive: true });
    writeFileSync(join(tree, f.path), f.data);
  }
  reference = join(dir, 'genisoimage.iso');
  await run('genisoimage', [
    '-quiet',
    '-r',
    '-V',
    'VMEDIA_BOOT_ISO',
    '-J',
    '-l',
    '-publisher',
    '7d0c5ab0',
    '-no-emul-boot',
    '-boot-load-size',
    '4',
    '-boot-info-table',
    '-b',
    ISOLINUX_ISO_PATHS.bin,
    '-o',
    reference,
    tree,
  ]);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const isoinfo = async (image: string, ...args: string[]) =>
  (await run('isoinfo', ['-i', image, ...args], { encoding: 'latin1', maxBuffer: 1 << 24 })).stdout;
/** A file's first sector (isoinfo -l's `[ LBA 00]`). */
const lbaOf = (listing: string, name: string) =>
  Number(new RegExp(`\\[\\s*(\\d+) 00\\]\\s+${name.replace('.', '\\.')}`, 'i').exec(listing)?.[1]);

it('has an El Torito catalog for x86 booting isolinux.bin without emulation, 4 sectors, as isoinfo reads it', async () => {
  const description = await isoinfo(iso, '-d');
  expect(description).toMatch(/El Torito VD version 1 found, boot catalog is in sector \d+/);
  expect(description).toContain('Arch 0 (x86)');
  expect(description).toContain('Bootid 88 (bootable)');
  expect(description).toContain('Boot media 0 (No Emulation Boot)');
  expect(description).toMatch(/Nsect 4\n/);
  const bootoff = /Bootoff ([0-9a-f]+) (\d+)/.exec(description);
  const lba = lbaOf(await isoinfo(iso, '-l'), 'isolinux.bin;1');
  expect(Number(bootoff?.[2])).toBe(lba);
  expect(Number.parseInt(bootoff?.[1] ?? '', 16)).toBe(lba);
  // Rock Ridge names and contents as Debian packaged them.
  expect(Buffer.from(await isoinfo(iso, '-R', '-x', '/isolinux/ldlinux.c32'), 'latin1')).toEqual(isolinux.ldlinuxC32);
  expect(await isoinfo(iso, '-R', '-x', '/isolinux/isolinux.cfg')).toBe(
    `default boot\n\nlabel boot\nkernel /vmlinuz\nappend initrd=/initrd text ${PARAMS} --\n`,
  );
});

it('is a BIOS no-emulation image with a boot info table, as xorriso reports it', async () => {
  const { stdout } = await run('xorriso', ['-indev', iso, '-report_el_torito', 'plain'], { encoding: 'utf8' });
  const lba = lbaOf(await isoinfo(iso, '-l'), 'isolinux.bin;1');
  expect(stdout).toMatch(new RegExp(`El Torito boot img :\\s+1\\s+BIOS\\s+y\\s+none\\s+0x0000\\s+0x00\\s+4\\s+${lba}\\n`));
  expect(stdout).toMatch(/El Torito img path :\s+1\s+\/isolinux\/isolinux\.bin\n/);
  expect(stdout).toMatch(/El Torito img opts :\s+1\s+boot-info-table/);
});

it('patches the same boot info table into isolinux.bin as genisoimage, but for its sector', async () => {
  const ours = Buffer.from(await isoinfo(iso, '-R', '-x', '/isolinux/isolinux.bin'), 'latin1');
  const theirs = Buffer.from(await isoinfo(reference, '-R', '-x', '/isolinux/isolinux.bin'), 'latin1');
  const ourLba = lbaOf(await isoinfo(iso, '-l'), 'isolinux.bin;1');
  const theirLba = lbaOf(await isoinfo(reference, '-l'), 'isolinux.bin;1');
  expect(ours.length).toBe(isolinux.isolinuxBin.length);
  expect([ours.readUInt32LE(8), ours.readUInt32LE(12), ours.readUInt32LE(16)]).toEqual([16, ourLba, isolinux.isolinuxBin.length]);
  expect([theirs.readUInt32LE(8), theirs.readUInt32LE(12)]).toEqual([16, theirLba]);
  // Length, checksum, the reserved zeros and every other byte alike.
  expect(ours.subarray(16)).toEqual(theirs.subarray(16));
  expect(ours.subarray(0, 12)).toEqual(theirs.subarray(0, 12));
  // And the file really sits at the sector the table names.
  expect(readFileSync(iso).subarray(ourLba * SECTOR, ourLba * SECTOR + ours.length)).toEqual(ours);
});
