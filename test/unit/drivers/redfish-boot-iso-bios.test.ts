/**
 * The BIOS agent ISO the redfish-virtual-media boot interface builds with the isolinux the stacks
 * bundle (Ironic's `create_isolinux_image_for_bios`): planned without an EFI system partition,
 * built with isolinux.bin as the BIOS boot image, ldlinux.c32 beside it and Ironic's isolinux.cfg
 * carrying the same kernel parameters as the UEFI grub.cfg; the fleet's legacy firmware boots the
 * agent from it, its UEFI firmware does not. And the conductor's reading of the bundled files.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ANY_HOST, HostRules } from '../../../functions/drivers/hosts';
import { type BootIsoConfig, planBootIso, publishBootIso } from '../../../functions/drivers/redfish/boot-iso';
import { isolinuxConfig, loadIsolinux } from '../../../functions/drivers/redfish/isolinux';
import { bootsAgent, readBootIso } from '../../../local/fleet/agent/boot-media';
import { readIso } from '../../../local/fleet/agent/iso9660';
import { makeNode } from '../helpers/builders';
import { stubS3 } from '../helpers/stub-s3';
import { useBootFiles } from '../helpers/boot-files';

const ANY = new HostRules(ANY_HOST);
/** Stand-ins for syslinux's files: the banner isolinux.bin carries, and room for the boot info table. */
const ISOLINUX_BIN = Buffer.concat([Buffer.alloc(64, 0xfa), Buffer.from('ISOLINUX 6.04 20200816'), Buffer.alloc(4000, 0x90)]);
const LDLINUX_C32 = Buffer.from('\x7fELF ldlinux.c32 stand-in');
const CONFIG: BootIsoConfig = {
  bucket: 'boot-isos',
  kernelAppendParams: 'nofb vga=normal',
  apiUrl: 'https://api.example',
  isolinux: { isolinuxBin: ISOLINUX_BIN, ldlinuxC32: LDLINUX_C32 },
};
const BIOS = { properties: { capabilities: 'boot_mode:bios' } };

describe('planBootIso in BIOS mode', () => {
  it('builds from the kernel and ramdisk alone, with no bootloader asked for or used', () => {
    const node = makeNode({
      ...BIOS,
      driver_info: { deploy_kernel: 'http://i/k', deploy_ramdisk: 'http://i/r', bootloader: 'http://i/esp' },
    });
    expect(planBootIso(node, 'deploy', CONFIG, ANY)).toEqual({
      kind: 'build',
      bootMode: 'bios',
      kernel: 'http://i/k',
      ramdisk: 'http://i/r',
    });
    const noEsp = makeNode({ ...BIOS, driver_info: { rescue_kernel: 'http://i/k', rescue_ramdisk: 'http://i/r' } });
    expect(planBootIso(noEsp, 'rescue', CONFIG, ANY)).toMatchObject({ bootMode: 'bios' });
  });

  it('refuses without the bundled isolinux, saying what to install or set', () => {
    const node = makeNode({ ...BIOS, driver_info: { deploy_kernel: 'http://i/k', deploy_ramdisk: 'http://i/r' } });
    const { isolinux: _i, ...without } = CONFIG;
    expect(() => planBootIso(node, 'deploy', without, ANY)).toThrow(
      `Node ${node.uuid}: building a deploy ISO for BIOS boot mode needs isolinux, which this Ironless conductor was built without: build the stack on a machine with Debian's isolinux and syslinux-common packages (or set the settings isolinuxBin and ldlinuxC32, Ironic's [DEFAULT]isolinux_bin and ldlinux_c32); or set driver_info/deploy_iso to a bootable ISO, or boot the node in UEFI mode`,
    );
  });
});

describe('publishBootIso in BIOS mode', () => {
  const files = useBootFiles();

  it('renders the operator’s isolinux_config_template into the ISO’s isolinux.cfg', async () => {
    const node = makeNode(BIOS);
    const { client, sent } = stubS3();
    const base = files.base();
    const configTemplate = 'default agent\ntimeout 30\nlabel agent\nkernel {{ kernel }}\nappend initrd={{ ramdisk }} {{ kernel_params }}\n';
    await publishBootIso(
      node,
      'deploy',
      { kind: 'build', bootMode: 'bios', kernel: `${base}/k`, ramdisk: `${base}/r`, agentToken: 'tok' },
      { ...CONFIG, isolinux: { ...CONFIG.isolinux!, configTemplate } },
      ANY,
      client,
    );
    const body = sent.find((s) => s.name === 'PutObjectCommand')?.body as Buffer;
    const cfg = readIso(body).files.get('isolinux/isolinux.cfg')?.toString() ?? '';
    const publisherId = /ir_pub_id=([0-9a-f-]{36})/.exec(cfg)?.[1];
    expect(cfg).toBe(
      `default agent\ntimeout 30\nlabel agent\nkernel /vmlinuz\nappend initrd=/initrd nofb vga=normal ir_pub_id=${publisherId} ipa-api-url=https://api.example ipa-agent-token=tok boot_method=vmedia`,
    );
  });

  it('puts isolinux, ldlinux.c32 and Ironic’s isolinux.cfg on an ISO the legacy firmware boots the agent from', async () => {
    const node = makeNode(BIOS);
    const { client, sent } = stubS3();
    const base = files.base();
    await publishBootIso(
      node,
      'deploy',
      { kind: 'build', bootMode: 'bios', kernel: `${base}/k`, ramdisk: `${base}/r`, agentToken: 'tok' },
      CONFIG,
      ANY,
      client,
    );
    const body = sent.find((s) => s.name === 'PutObjectCommand')?.body as Buffer;
    const onIso = readIso(body).files;
    expect([...onIso.keys()].sort()).toEqual([
      'initrd',
      'isolinux/isolinux.bin',
      'isolinux/isolinux.cfg',
      'isolinux/ldlinux.c32',
      'vmlinuz',
    ]);
    expect(onIso.get('isolinux/ldlinux.c32')).toEqual(LDLINUX_C32);
    // isolinux.bin as given, but for its boot info table (bytes 8-63).
    expect(onIso.get('isolinux/isolinux.bin')?.subarray(64)).toEqual(ISOLINUX_BIN.subarray(64));
    const cfg = onIso.get('isolinux/isolinux.cfg')?.toString() ?? '';
    const publisherId = /ir_pub_id=([0-9a-f-]{36})/.exec(cfg)?.[1];
    expect(cfg).toBe(
      [
        'default boot',
        '',
        'label boot',
        'kernel /vmlinuz',
        `append initrd=/initrd text nofb vga=normal ir_pub_id=${publisherId} ipa-api-url=https://api.example ipa-agent-token=tok boot_method=vmedia --`,
        '',
      ].join('\n'),
    );
    expect(
      body
        .subarray(16 * 2048 + 318, 16 * 2048 + 446)
        .toString('latin1')
        .trimEnd(),
    ).toBe(publisherId);

    const booted = readBootIso(body, 'Legacy');
    expect(bootsAgent(booted)).toBe(true);
    expect(booted.kernel.toString()).toBe('kernel');
    expect(booted.cmdline).toBe(
      `initrd=/initrd text nofb vga=normal ir_pub_id=${publisherId} ipa-api-url=https://api.example ipa-agent-token=tok boot_method=vmedia`,
    );
    // Ironic's BIOS ISO has no EFI entry: a UEFI machine does not boot it.
    expect(() => readBootIso(body, 'UEFI')).toThrow('the boot catalog is for platform 0x0, not EFI');
  });

  it('leaves ldlinux.c32 off when there is none (syslinux before 5), as Ironic does', async () => {
    const { client, sent } = stubS3();
    const base = files.base();
    const config = { ...CONFIG, isolinux: { isolinuxBin: ISOLINUX_BIN } };
    await publishBootIso(
      makeNode(BIOS),
      'deploy',
      { kind: 'build', bootMode: 'bios', kernel: `${base}/k`, ramdisk: `${base}/r` },
      config,
      ANY,
      client,
    );
    const body = sent.find((s) => s.name === 'PutObjectCommand')?.body as Buffer;
    expect(readIso(body).files.has('isolinux/ldlinux.c32')).toBe(false);
    // The virtual firmware models syslinux 6, which needs it.
    expect(() => readBootIso(body, 'Legacy')).toThrow('no ldlinux.c32 beside isolinux/isolinux.bin');
  });

  it('writes isolinux.cfg as Ironic’s template renders it', () => {
    expect(isolinuxConfig('a=1 b', 'vmlinuz', 'initrd')).toBe(
      'default boot\n\nlabel boot\nkernel /vmlinuz\nappend initrd=/initrd text a=1 b --\n',
    );
  });
});

describe('loadIsolinux', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'isolinux-'));
    writeFileSync(join(dir, 'isolinux.bin'), ISOLINUX_BIN);
    writeFileSync(join(dir, 'ldlinux.c32'), LDLINUX_C32);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the files the variables name under LAMBDA_TASK_ROOT, and nothing without them', () => {
    expect(loadIsolinux({ LAMBDA_TASK_ROOT: dir, ISOLINUX_BIN: 'isolinux.bin', LDLINUX_C32: 'ldlinux.c32' })).toEqual({
      isolinuxBin: ISOLINUX_BIN,
      ldlinuxC32: LDLINUX_C32,
    });
    expect(loadIsolinux({ LAMBDA_TASK_ROOT: dir, ISOLINUX_BIN: 'isolinux.bin' })).toEqual({ isolinuxBin: ISOLINUX_BIN });
    expect(loadIsolinux({ LAMBDA_TASK_ROOT: dir })).toBeUndefined();
  });

  it('fails the cold start when a named file is not in the code', () => {
    expect(() => loadIsolinux({ LAMBDA_TASK_ROOT: dir, ISOLINUX_BIN: 'isolinux/isolinux.bin' })).toThrow(
      `Environment variable ISOLINUX_BIN names ${join(dir, 'isolinux/isolinux.bin')}, which cannot be read (ENOENT): publish the conductor with the file in its code (the stacks put it at isolinux/isolinux.bin), or unset the variable`,
    );
  });
});
