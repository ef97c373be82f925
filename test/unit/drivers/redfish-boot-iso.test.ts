/**
 * The agent ISO the redfish-virtual-media boot interface builds (`boot-iso.ts`): which ISO a node
 * boots and Ironic's errors for what is missing, the kernel parameters and grub.cfg, and building
 * one from downloads on a loopback image server into a recording S3 stub, then deleting it.
 */
import { ANY_HOST, DEFAULT_HOST_POLICY, HostRules } from '../../../functions/drivers/hosts';
import {
  type BootIsoConfig,
  deleteBootIsos,
  grubConfig,
  isoKey,
  kernelParams,
  planBootIso,
  publishBootIso,
} from '../../../functions/drivers/redfish/boot-iso';
import { bootsAgent, readBootIso } from '../../../local/fleet/agent/boot-media';
import { readIso } from '../../../local/fleet/agent/iso9660';
import { makeNode } from '../helpers/builders';
import { stubS3 } from '../helpers/stub-s3';
import { useBootFiles } from '../helpers/boot-files';

const ANY = new HostRules(ANY_HOST);
const CONFIG: BootIsoConfig = { bucket: 'boot-isos', kernelAppendParams: 'nofb vga=normal', apiUrl: 'https://api.example' };
const KERNEL_INFO = {
  deploy_kernel: 'http://images.example/k',
  deploy_ramdisk: 'http://images.example/r',
  bootloader: 'http://images.example/esp.img',
};

describe('planBootIso', () => {
  it('boots a ready deploy_iso (or its deprecated redfish_ name) as it is', () => {
    expect(planBootIso(makeNode({ driver_info: { deploy_iso: 'http://x/a.iso' } }), 'deploy', CONFIG, ANY)).toEqual({
      kind: 'ready',
      url: 'http://x/a.iso',
    });
    expect(planBootIso(makeNode({ driver_info: { redfish_rescue_iso: 'http://x/r.iso' } }), 'rescue', CONFIG, ANY)).toMatchObject({
      url: 'http://x/r.iso',
    });
  });

  it('builds from the mode’s kernel and ramdisk with the node’s bootloader, else the configured one', () => {
    expect(planBootIso(makeNode({ driver_info: KERNEL_INFO }), 'deploy', CONFIG, ANY)).toEqual({
      kind: 'build',
      bootMode: 'uefi',
      kernel: 'http://images.example/k',
      ramdisk: 'http://images.example/r',
      bootloader: 'http://images.example/esp.img',
    });
    const { bootloader: _b, ...noBootloader } = KERNEL_INFO;
    expect(
      planBootIso(makeNode({ driver_info: noBootloader }), 'deploy', { ...CONFIG, bootloader: 'http://default/esp' }, ANY),
    ).toMatchObject({ bootloader: 'http://default/esp' });
  });

  it("says what is missing with Ironic's messages, and refuses BIOS mode without isolinux, saying what to install", () => {
    const node = makeNode({ driver_info: { deploy_kernel: 'http://k' } });
    expect(() => planBootIso(node, 'deploy', CONFIG, ANY)).toThrow(
      "Error validating Redfish virtual media. Some parameters were missing in node's driver_info. Missing are: ['deploy_kernel', 'deploy_ramdisk']",
    );
    const { bootloader: _b, ...noBootloader } = KERNEL_INFO;
    const noEsp = makeNode({ driver_info: noBootloader });
    expect(() => planBootIso(noEsp, 'deploy', CONFIG, ANY)).toThrow("Missing are: ['bootloader']");
    const bios = makeNode({ driver_info: KERNEL_INFO, properties: { capabilities: 'boot_mode:bios' } });
    expect(() => planBootIso(bios, 'deploy', CONFIG, ANY)).toThrow(
      `Node ${bios.uuid}: building a deploy ISO for BIOS boot mode needs isolinux, which this Ironless conductor was built without: build the stack on a machine with Debian's isolinux and syslinux-common packages (or set the settings isolinuxBin and ldlinuxC32, Ironic's [DEFAULT]isolinux_bin and ldlinux_c32); or set driver_info/deploy_iso to a bootable ISO, or boot the node in UEFI mode`,
    );
  });

  it('refuses without a bucket, other schemes, and hosts the image policy refuses', () => {
    const node = makeNode({ driver_info: KERNEL_INFO });
    expect(() => planBootIso(node, 'deploy', { kernelAppendParams: '' }, ANY)).toThrow('this deployment has no boot ISO bucket');
    const ftp = makeNode({ driver_info: { ...KERNEL_INFO, deploy_ramdisk: 'ftp://x/r' } });
    expect(() => planBootIso(ftp, 'deploy', CONFIG, ANY)).toThrow('deploy_ramdisk "ftp://x/r" is not supported');
    const local = makeNode({ driver_info: { ...KERNEL_INFO, bootloader: 'http://127.0.0.1/esp' } });
    expect(() => planBootIso(local, 'deploy', CONFIG, new HostRules(DEFAULT_HOST_POLICY))).toThrow(
      `The URL in driver_info/bootloader of node ${local.uuid} may not be used`,
    );
  });
});

describe('kernel parameters and grub.cfg', () => {
  it('puts the configured parameters (or the node’s, %default% expanded) before the agent’s', () => {
    expect(kernelParams(makeNode(), CONFIG)).toBe('nofb vga=normal ipa-api-url=https://api.example boot_method=vmedia');
    const own = makeNode({ driver_info: { kernel_append_params: '%default% console=ttyS0' } });
    expect(kernelParams(own, { ...CONFIG, apiUrl: undefined })).toBe('nofb vga=normal console=ttyS0 boot_method=vmedia');
    expect(grubConfig('a=b')).toContain('    linux /vmlinuz a=b --\n    initrd /initrd\n');
  });
});

describe('publishing and deleting', () => {
  const files = useBootFiles();

  const plan = () => {
    const base = files.base();
    return { kind: 'build' as const, bootMode: 'uefi' as const, kernel: `${base}/k`, ramdisk: `${base}/r`, bootloader: `${base}/esp.img` };
  };

  it('puts an ISO the fleet’s firmware boots the agent from under <node>/<mode>.iso', async () => {
    const node = makeNode();
    const { client, sent } = stubS3();
    const url = await publishBootIso(node, 'deploy', plan(), CONFIG, ANY, client);
    expect(url).toMatch(new RegExp(`^https://boot-isos\\.s3\\.eu-west-1\\.amazonaws\\.com/${node.uuid}/deploy\\.iso\\?X-Amz-Algorithm=`));
    expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe(String(6 * 3600));
    const put = sent.find((s) => s.name === 'PutObjectCommand');
    expect(put?.input).toMatchObject({ Bucket: 'boot-isos', Key: `${node.uuid}/deploy.iso`, ContentLength: put?.body?.length });
    const iso = readBootIso(put?.body as Buffer);
    expect(bootsAgent(iso)).toBe(true);
    expect(iso.kernel.toString()).toBe('kernel');
    // Ironic's ir_pub_id: a new UUID per ISO, on the kernel line and as the volume's publisher id.
    const publisherId = /^nofb vga=normal ir_pub_id=([0-9a-f-]{36}) ipa-api-url=https:\/\/api\.example boot_method=vmedia$/.exec(
      iso.cmdline,
    )?.[1];
    expect(publisherId).toBeDefined();
    const primaryVolume = (put?.body as Buffer).subarray(16 * 2048, 17 * 2048);
    expect([primaryVolume[0], primaryVolume.toString('latin1', 318, 446).trimEnd()]).toEqual([1, publisherId]);
    expect(isoKey(node, 'rescue')).toBe(`${node.uuid}/rescue.iso`);
  });

  it('puts the node’s network_data on a config-2 volume as Ironic does, and labels it VMEDIA_BOOT_ISO without', async () => {
    const networkData = {
      links: [{ id: 'port-0', type: 'phy', ethernet_mac_address: '52:54:00:00:00:01' }],
      networks: [{ id: 'net-0', link: 'port-0', type: 'ipv4', ip_address: '192.0.2.10', netmask: '255.255.255.0', routes: [] }],
      services: [{ type: 'dns', address: 'ré.example' }],
    };
    const { client, sent } = stubS3();
    await publishBootIso(makeNode({ network_data: networkData }), 'deploy', plan(), CONFIG, ANY, client);
    const withData = readIso(sent.find((s) => s.name === 'PutObjectCommand')?.body as Buffer);
    expect(withData.volumeId).toBe('config-2');
    // Python's json.dumps(network_data, indent=2), byte for byte.
    expect(withData.files.get('openstack/latest/network_data.json')?.toString()).toBe(
      [
        '{',
        '  "links": [',
        '    {',
        '      "id": "port-0",',
        '      "type": "phy",',
        '      "ethernet_mac_address": "52:54:00:00:00:01"',
        '    }',
        '  ],',
        '  "networks": [',
        '    {',
        '      "id": "net-0",',
        '      "link": "port-0",',
        '      "type": "ipv4",',
        '      "ip_address": "192.0.2.10",',
        '      "netmask": "255.255.255.0",',
        '      "routes": []',
        '    }',
        '  ],',
        '  "services": [',
        '    {',
        '      "type": "dns",',
        '      "address": "r\\u00e9.example"',
        '    }',
        '  ]',
        '}',
      ].join('\n'),
    );
    expect(JSON.parse(withData.files.get('openstack/latest/network_data.json')?.toString() ?? '')).toEqual(networkData);

    const plain = stubS3();
    await publishBootIso(makeNode({ network_data: {} }), 'deploy', plan(), CONFIG, ANY, plain.client);
    const without = readIso(plain.sent.find((s) => s.name === 'PutObjectCommand')?.body as Buffer);
    expect(without.volumeId).toBe('VMEDIA_BOOT_ISO');
    expect([...without.files.keys()].filter((p) => p.startsWith('openstack/'))).toEqual([]);
  });

  it('fails with ImageCreationFailed naming the download, and refuses a redirect to a refused host', async () => {
    const node = makeNode();
    const { client } = stubS3();
    await expect(publishBootIso(node, 'deploy', { ...plan(), ramdisk: `${files.base()}/gone` }, CONFIG, ANY, client)).rejects.toThrow(
      `Creating iso image failed: downloading driver_info/deploy_ramdisk from ${files.base()}/gone failed: HTTP 404`,
    );
    const policy = new HostRules({ allowed: [], denied: ['169.254.0.0/16'] });
    await expect(publishBootIso(node, 'deploy', { ...plan(), kernel: `${files.base()}/moved` }, CONFIG, policy, client)).rejects.toThrow(
      `The URL in driver_info/deploy_kernel of node ${node.uuid} may not be used`,
    );
    const failing = stubS3(new Error('AccessDenied'));
    await expect(publishBootIso(node, 'deploy', plan(), CONFIG, ANY, failing.client)).rejects.toThrow(
      `Creating iso image failed: putting s3://boot-isos/${node.uuid}/deploy.iso failed: AccessDenied`,
    );
  });

  it('deletes both of the node’s ISOs, returns a failure rather than throwing, and does nothing without a bucket', async () => {
    const node = makeNode();
    const { client, sent } = stubS3();
    expect(await deleteBootIsos(node, CONFIG, client)).toBeUndefined();
    expect(sent.map((s) => [s.name, s.input.Key])).toEqual([
      ['DeleteObjectCommand', `${node.uuid}/deploy.iso`],
      ['DeleteObjectCommand', `${node.uuid}/rescue.iso`],
    ]);
    expect((await deleteBootIsos(node, CONFIG, stubS3(new Error('down')).client))?.message).toBe('down');
    const none = stubS3();
    expect(await deleteBootIsos(node, { kernelAppendParams: '' }, none.client)).toBeUndefined();
    expect(none.sent).toEqual([]);
  });
});
