/**
 * Ironic's `[agent]api_ca_file` on the agent ISO the conductor builds: the CA and the IPA
 * configuration naming it are on the image where Ironic's `prepare_deploy_iso` puts them, read back
 * as the fleet's firmware and IPA's `copy_config_from_vmedia` read them; the conductor takes the
 * file from its code (AGENT_API_CA_FILE, below LAMBDA_TASK_ROOT).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../../functions/common/config';
import { ANY_HOST, HostRules } from '../../../functions/drivers/hosts';
import { type BootIsoConfig, ISO_PATHS, injectedFiles, publishBootIso } from '../../../functions/drivers/redfish/boot-iso';
import { loadAgentApiCa, loadRedfishConfig } from '../../../functions/drivers/redfish/config';
import { PROJECT_ROOT } from '../../../lib/bundling';
import { bootsAgent, readBootIso } from '../../../local/fleet/agent/boot-media';
import { agentTls, copyConfigFromVmedia, kernelArg } from '../../../local/fleet/agent/vmedia-config';
import { makeNode } from '../helpers/builders';
import { stubS3 } from '../helpers/stub-s3';
import { useBootFiles } from '../helpers/boot-files';

const PEM = readFileSync(join(PROJECT_ROOT, 'test/fixtures/tls/bmc.crt'), 'utf8');
const ANY = new HostRules(ANY_HOST);
const CONFIG: BootIsoConfig = { bucket: 'boot-isos', kernelAppendParams: 'nofb vga=normal', apiUrl: 'https://api.example', apiCaFile: PEM };

describe('the built ISO with api_ca_file', () => {
  const files = useBootFiles();

  const build = async (config: BootIsoConfig, networkData: Record<string, unknown> = {}) => {
    const { client, sent } = stubS3();
    const base = files.base();
    const plan = {
      kind: 'build' as const,
      bootMode: 'uefi' as const,
      kernel: `${base}/k`,
      ramdisk: `${base}/r`,
      bootloader: `${base}/esp.img`,
    };
    await publishBootIso(makeNode({ network_data: networkData }), 'deploy', plan, config, ANY, client);
    return readBootIso(sent.find((s) => s.name === 'PutObjectCommand')?.body as Buffer);
  };

  it('carries the CA at etc/ironic-python-agent/ironic.crt and the IPA configuration naming it, as Ironic does', async () => {
    const iso = await build(CONFIG);
    expect(bootsAgent(iso)).toBe(true);
    expect(iso.files.get('etc/ironic-python-agent/ironic.crt')?.toString()).toBe(PEM);
    expect(iso.files.get('etc/ironic-python-agent.d/ironic-tls.conf')?.toString()).toBe(
      '[DEFAULT]\ncafile = /etc/ironic-python-agent/ironic.crt\n',
    );
    expect(iso.label).toBe('VMEDIA_BOOT_ISO');
    // No kernel parameter carries the CA (Ironic sets none), and verification stays on.
    expect(kernelArg(iso.cmdline, 'boot_method')).toBe('vmedia');
    expect(iso.cmdline).not.toMatch(/ipa-insecure|cafile|ca-file/);
  });

  it('is found by the agent as IPA finds it: copied to /etc from the media, [DEFAULT]cafile naming the file', async () => {
    const iso = await build(CONFIG);
    const etc = copyConfigFromVmedia(iso, iso.cmdline);
    expect([...etc.keys()].sort()).toEqual(['/etc/ironic-python-agent.d/ironic-tls.conf', '/etc/ironic-python-agent/ironic.crt']);
    const tls = agentTls(etc, iso.cmdline);
    expect(tls).toEqual({ cafile: '/etc/ironic-python-agent/ironic.crt', ca: Buffer.from(PEM), insecure: false });
  });

  it('sits beside network_data on a config-2 volume, and is absent without the setting', async () => {
    const both = await build(CONFIG, { links: [], networks: [], services: [] });
    expect(both.label).toBe('config-2');
    expect([...both.files.keys()].filter((p) => !p.startsWith('EFI') && !p.startsWith('boot/')).sort()).toEqual([
      'etc/ironic-python-agent.d/ironic-tls.conf',
      'etc/ironic-python-agent/ironic.crt',
      'initrd',
      'openstack/latest/network_data.json',
      'vmlinuz',
    ]);
    const { apiCaFile: _ca, ...noCa } = CONFIG;
    const plain = await build(noCa);
    expect([...plain.files.keys()].filter((p) => p.startsWith('etc/'))).toEqual([]);
    expect(agentTls(copyConfigFromVmedia(plain, plain.cmdline), plain.cmdline)).toEqual({ insecure: false });
    expect(injectedFiles(makeNode(), {})).toEqual([]);
    expect(injectedFiles(makeNode(), { apiCaFile: PEM }).map((f) => f.path)).toEqual([ISO_PATHS.apiCa, ISO_PATHS.apiCaConfig]);
  });
});

describe('the agent reading its media (IPA copy_config_from_vmedia)', () => {
  const files = new Map([
    ['etc/ironic-python-agent/ironic.crt', Buffer.from(PEM)],
    ['etc/ironic-python-agent.d/ironic-tls.conf', Buffer.from('[DEFAULT]\ncafile = /etc/ironic-python-agent/ironic.crt\n')],
    ['etc/ironic-python-agent/deeper/ignored', Buffer.from('x')],
  ]);

  it('copies nothing unless booted from virtual media, from a volume with one of IPA’s labels', () => {
    expect(copyConfigFromVmedia({ label: 'config-2', files }, 'nofb').size).toBe(0);
    expect(copyConfigFromVmedia({ label: 'SOMETHING', files }, 'boot_method=vmedia').size).toBe(0);
    expect([...copyConfigFromVmedia({ label: 'vmedia_boot_iso', files }, 'boot_method=vmedia').keys()]).toEqual([
      '/etc/ironic-python-agent/ironic.crt',
      '/etc/ironic-python-agent.d/ironic-tls.conf',
    ]);
  });

  it('takes ipa-insecure from the kernel line, later .conf files over earlier ones, and a cafile it lacks as such', () => {
    const etc = copyConfigFromVmedia({ label: 'config-2', files }, 'boot_method=vmedia');
    expect(agentTls(etc, 'boot_method=vmedia ipa-insecure=1').insecure).toBe(true);
    etc.set('/etc/ironic-python-agent.d/zz-override.conf', Buffer.from('# later wins\n[DEFAULT]\ncafile = /etc/ssl/other.pem\n'));
    expect(agentTls(etc, '')).toEqual({ cafile: '/etc/ssl/other.pem', insecure: false });
  });
});

describe('the conductor reading the CA from its code', () => {
  const root = mkdtempSync(join(tmpdir(), 'task-root-'));
  writeFileSync(join(root, 'agent-api-ca.crt'), PEM);

  it('reads AGENT_API_CA_FILE below LAMBDA_TASK_ROOT into the boot ISO settings, and nothing when unset', () => {
    const env = { AGENT_API_CA_FILE: 'agent-api-ca.crt', LAMBDA_TASK_ROOT: root };
    expect(loadAgentApiCa(env)).toBe(PEM);
    expect(loadRedfishConfig(env).bootIso?.apiCaFile).toBe(PEM);
    expect(loadAgentApiCa({ LAMBDA_TASK_ROOT: root })).toBeUndefined();
    expect(loadRedfishConfig({}).bootIso?.apiCaFile).toBeUndefined();
  });

  it('fails the cold start, saying what to do, when the code lacks the file the variable names', () => {
    const env = { AGENT_API_CA_FILE: 'agent-api-ca.crt', LAMBDA_TASK_ROOT: join(root, 'elsewhere') };
    expect(() => loadAgentApiCa(env)).toThrow(ConfigError);
    expect(() => loadAgentApiCa(env)).toThrow(
      `Environment variable AGENT_API_CA_FILE names ${join(root, 'elsewhere', 'agent-api-ca.crt')}, which cannot be read (ENOENT): publish the conductor with the CA in its code (settings.agentApiCaFile puts it at agent-api-ca.crt), or unset the variable`,
    );
  });
});
