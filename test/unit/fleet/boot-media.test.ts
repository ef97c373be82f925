/**
 * The virtual firmware booting a built agent ISO (`local/fleet/agent/boot-media.ts`): it reads El
 * Torito and grub.cfg, boots the agent only for the fleet's ramdisk, and says what is wrong with a
 * damaged image (the `mediaCorrupt` fault) instead of booting it.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildIso } from '../../../functions/common/iso9660';
import { bootsAgent, fetchBootIso, readBootIso } from '../../../local/fleet/agent/boot-media';
import { AGENT_RAMDISK } from '../../../local/fleet/agent-images';

const SECTOR = 2048;
const agentIso = (ramdisk: Buffer = AGENT_RAMDISK) =>
  buildIso(
    [
      { path: 'vmlinuz', data: 'kernel' },
      { path: 'initrd', data: ramdisk },
      { path: 'boot/grub/efiboot.img', data: Buffer.alloc(SECTOR, 0xe5) },
      {
        path: 'EFI/BOOT/grub.cfg',
        data: 'menuentry "a" {\n    linux /vmlinuz ipa-api-url=http://api boot_method=vmedia --\n    initrd /initrd\n}\n',
      },
    ],
    { volumeId: 'A', efiBootImage: 'boot/grub/efiboot.img' },
  );

describe('readBootIso', () => {
  it('finds the kernel, ramdisk and command line grub.cfg names, and knows the agent ramdisk', () => {
    const iso = readBootIso(agentIso());
    expect(iso.kernel.toString()).toBe('kernel');
    expect(iso.cmdline).toBe('ipa-api-url=http://api boot_method=vmedia');
    expect(bootsAgent(iso)).toBe(true);
    expect(bootsAgent(readBootIso(agentIso(Buffer.from('another ramdisk'))))).toBe(false);
  });

  it('refuses an image without El Torito, with a bad catalog checksum, or for another platform', () => {
    const image = agentIso();
    expect(() => readBootIso(buildIso([{ path: 'a', data: 'b' }], { volumeId: 'A' }))).toThrow(
      'no boot record volume descriptor at sector 17',
    );
    const catalog = image.readUInt32LE(17 * SECTOR + 0x47) * SECTOR;
    const badSum = Buffer.from(image);
    badSum[catalog + 4] = 0x41;
    expect(() => readBootIso(badSum)).toThrow('the boot catalog has no valid validation entry (header, key or checksum)');
    const bios = Buffer.from(image);
    bios[catalog + 1] = 0;
    bios.writeUInt16LE((bios.readUInt16LE(catalog + 0x1c) + 0xef00) & 0xffff, catalog + 0x1c);
    expect(() => readBootIso(bios)).toThrow('the boot catalog is for platform 0x0, not EFI');
  });
});

describe('fetchBootIso', () => {
  let server: Server;
  let url = '';
  beforeAll(async () => {
    const image = agentIso();
    server = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Length': String(image.length) });
      res.end(image);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x.iso`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('reads the ISO as served, and a damaged one (mediaCorrupt) fails to read', async () => {
    expect(bootsAgent(readBootIso(await fetchBootIso(url)))).toBe(true);
    expect(() => readBootIso(Buffer.alloc(0))).toThrow('too short for an El Torito boot record');
    const damaged = await fetchBootIso(url, true);
    expect(() => readBootIso(damaged)).toThrow('the boot catalog has no valid validation entry (header, key or checksum)');
  });
});
