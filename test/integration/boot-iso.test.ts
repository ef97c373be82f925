/**
 * Issue 21 on the local stack: a redfish node that gives `deploy_kernel`, `deploy_ramdisk` and a
 * `bootloader` (no `deploy_iso`) boots the virtual agent from the ISO the conductor builds. The
 * ISO lives in the stack's boot ISO bucket (fauxqs' S3) while the ramdisk runs and is deleted when
 * the boot interface cleans up; the machine's firmware reads the ISO's El Torito catalog and
 * grub.cfg and boots the agent because the ramdisk in it is the fleet's. The node's network_data
 * is read back from the ISO in the bucket, on a `config-2` volume. A node in BIOS mode gets
 * Ironic's isolinux ISO instead (issue 21), built with the isolinux the local stack bundles into
 * the conductor's code; its machine, in UEFI until the boot interface's boot mode sync sets it to
 * legacy boot (Ironic's sync_boot_mode), boots the agent from isolinux.cfg.
 *
 * The built ISO also carries a pregenerated agent token on its kernel command line
 * (`ipa-agent-token`, as Ironic's prepare_ramdisk puts it). The virtual agent booted from it takes
 * the token from there; its lookup (and anyone's) answers "******"; it heartbeats with that token
 * and cleaning and deploying complete; the token is gone from the node afterwards.
 */
import { readFileSync } from 'node:fs';
import type { VirtualAgent } from '../../local/fleet/agent/agent';
import { readBootIso } from '../../local/fleet/agent/boot-media';
import { kernelArg } from '../../local/fleet/agent/factory';
import { readIso } from '../../local/fleet/agent/iso9660';
import type { LocalStack } from '../../local/stack';
import { BootIsoBucket } from './helpers/boot-iso-bucket';
import { type FleetStack, startFleetStack } from './helpers/fleet';
import { ApiClient } from './helpers/stack';

let fleet: FleetStack;
let stack: LocalStack;
let api: ApiClient;
let isos: BootIsoBucket;
const IMAGE = Buffer.from('a whole-disk image\n'.repeat(200));

beforeAll(async () => {
  fleet = await startFleetStack({ count: 3, prefix: 'biso', image: IMAGE });
  stack = fleet.stack;
  api = new ApiClient(stack.url, '1.82');
  isos = new BootIsoBucket(stack);
}, 120_000);

afterAll(async () => {
  isos?.destroy();
  await fleet?.stop();
});

/** Switch a node from the fleet's ready ISO to a kernel, ramdisk and ESP image for the conductor to build from. */
/** Manage the node, then provide it: it must come out of cleaning available, without an error. */
async function manageAndClean(uuid: string): Promise<void> {
  await api.provision(uuid, 'manage');
  await api.settle(uuid, ['manageable'], 60_000);
  await api.provision(uuid, 'provide');
  expect(await api.settle(uuid, ['available', 'clean failed'], 150_000)).toMatchObject({ provision_state: 'available', last_error: null });
}

async function useKernelAndRamdisk(name: string): Promise<string> {
  const uuid = (await api.get(`/v1/nodes/${name}`)).body.uuid as string;
  const machine = stack.fleet?.machine(name);
  if (machine === undefined || stack.fleet === undefined) throw new Error(`no machine ${name}`);
  const patched = await api.request('PATCH', `/v1/nodes/${uuid}`, [
    { op: 'replace', path: '/driver_info', value: stack.fleet.kernelDriverInfo(machine) },
  ]);
  expect(patched.status).toBe(200);
  expect(patched.body.driver_info).not.toHaveProperty('deploy_iso');
  return uuid;
}

it('cleans and deploys through an ISO built from deploy_kernel/deploy_ramdisk, kept in the bucket only while the ramdisk runs', async () => {
  const uuid = await useKernelAndRamdisk('biso-0');
  const networkData = {
    links: [{ id: 'port-0', type: 'phy', ethernet_mac_address: '52:54:00:00:00:01' }],
    networks: [{ id: 'net-0', link: 'port-0', type: 'ipv4_dhcp', network_id: 'provisioning' }],
    services: [],
  };
  const withData = await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/network_data', value: networkData }]);
  expect(withData.status).toBe(200);
  const key = `${uuid}/deploy.iso`;
  const cleaned = await isos.watch(key, () => manageAndClean(uuid));
  expect(cleaned.length).toBeGreaterThan(0);
  expect(await isos.exists(key)).toBe(false);
  const iso = readIso(cleaned[0]!);
  expect(iso.volumeId).toBe('config-2');
  expect(JSON.parse(iso.files.get('openstack/latest/network_data.json')?.toString() ?? 'null')).toEqual(networkData);

  // The instance asks for secure boot (Ironic's configure_secure_boot_if_needed).
  const instance = { ...fleet.image, capabilities: { secure_boot: 'true' } };
  const deployIsos = await isos.watch(key, async () => {
    await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/instance_info', value: instance }]);
    await api.provision(uuid, 'active');
    expect(await api.settle(uuid, ['active', 'deploy failed'], 300_000)).toMatchObject({ provision_state: 'active', last_error: null });
  });
  expect(deployIsos.length).toBeGreaterThan(0);
  expect(await isos.exists(key)).toBe(false);
  const machine = stack.fleet?.machine('biso-0');
  // The agent ran from the built ISO: the CD boots used the bucket's presigned URL, then the disk.
  const cdBoots = machine?.boots.filter((b) => b.device === 'Cd') ?? [];
  expect(cdBoots.length).toBeGreaterThan(0);
  for (const boot of cdBoots) expect(boot.image).toContain(`/${stack.bootIsoBucket}/${key}?`);
  expect(machine?.disk).toMatchObject({ imageId: 'disk.img', size: IMAGE.length });
  expect(machine?.boots.at(-1)?.device).toBe('Hdd');
  // The node asked for no boot mode: the sync recorded the BMC's (Ironic's sync_boot_mode) and set nothing.
  const deployed = await api.get(`/v1/nodes/${uuid}`);
  expect(deployed.body.driver_internal_info.deploy_boot_mode).toBe('uefi');
  expect(machine?.boot.mode).toBe('UEFI');
  // Secure boot was turned on for the instance, and the node shows it; tearing down turns it off.
  expect(machine?.secureBoot).toBe(true);
  expect(deployed.body.secure_boot).toBe(true);
  await api.provision(uuid, 'deleted');
  expect(await api.settle(uuid, ['available', 'clean failed', 'error'], 300_000)).toMatchObject({ provision_state: 'available' });
  expect(machine?.secureBoot).toBe(false);
}, 600_000);

it('cleans and deploys a BIOS-mode node through an isolinux ISO its legacy firmware boots', async () => {
  const uuid = await useKernelAndRamdisk('biso-1');
  const machine = stack.fleet?.machine('biso-1');
  if (machine === undefined) throw new Error('no machine biso-1');
  // The node asks for BIOS while its BMC is in UEFI: nobody sets the BMC, the boot interface's
  // boot mode sync does (Ironic's sync_boot_mode before the ramdisk boots).
  expect(machine.boot.mode).toBe('UEFI');
  await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/properties/capabilities', value: 'boot_mode:bios' }]);
  expect((await api.get(`/v1/nodes/${uuid}/validate`)).body.boot).toEqual({ result: true });
  const key = `${uuid}/deploy.iso`;
  const built = await isos.watch(key, async () => {
    await manageAndClean(uuid);
    await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/instance_info', value: fleet.image }]);
    await api.provision(uuid, 'active');
    expect(await api.settle(uuid, ['active', 'deploy failed'], 300_000)).toMatchObject({ provision_state: 'active', last_error: null });
  });
  expect(await isos.exists(key)).toBe(false);
  // Ironic's BIOS ISO: isolinux with its config and ldlinux.c32 (Debian's, bundled), no ESP, and
  // the agent's parameters on the isolinux.cfg kernel line, a fresh token each boot.
  expect(built.length).toBeGreaterThan(0);
  for (const bytes of built) {
    const iso = readBootIso(bytes, 'Legacy');
    expect([...iso.files.keys()].filter((p) => p.startsWith('isolinux/')).sort()).toEqual([
      'isolinux/isolinux.bin',
      'isolinux/isolinux.cfg',
      'isolinux/ldlinux.c32',
    ]);
    expect(iso.files.get('isolinux/ldlinux.c32')).toEqual(readFileSync('/usr/lib/syslinux/modules/bios/ldlinux.c32'));
    expect(iso.files.has('boot/grub/efiboot.img')).toBe(false);
    expect(iso.cmdline).toMatch(
      /^initrd=\/initrd text nofb vga=normal ir_pub_id=[0-9a-f-]{36} ipa-agent-token=[A-Za-z0-9_-]{43} boot_method=vmedia$/,
    );
    expect(() => readBootIso(bytes, 'UEFI')).toThrow('the boot catalog is for platform 0x0, not EFI');
  }
  // The legacy machine booted the agent from the built ISOs, then its disk.
  const cdBoots = machine.boots.filter((b) => b.device === 'Cd');
  expect(cdBoots.length).toBeGreaterThanOrEqual(2);
  for (const boot of cdBoots) expect(boot.image).toContain(`/${stack.bootIsoBucket}/${key}?`);
  expect(machine.disk).toMatchObject({ imageId: 'disk.img', size: IMAGE.length });
  expect(machine.boots.at(-1)?.device).toBe('Hdd');
  // Every boot was a legacy one, and the node caches the mode the sync set (Ironic's node_cache_boot_mode).
  expect(machine.boots.map((b) => b.mode)).toEqual(machine.boots.map(() => 'Legacy'));
  expect(machine.boot.mode).toBe('Legacy');
  const after = await api.get(`/v1/nodes/${uuid}`);
  expect(after.body.boot_mode).toBe('bios');
  expect(after.body.driver_internal_info).not.toHaveProperty('deploy_boot_mode');
}, 600_000);

/** What the test saw of one ramdisk boot. */
interface Seen {
  tokens: Set<string>;
  agents: Set<VirtualAgent>;
  lookups: unknown[];
}

/** The kernel command line's token of the ISO while it is in the bucket, else undefined. */
async function isoToken(key: string): Promise<string | undefined> {
  const bytes = await isos.bytes(key);
  if (bytes === undefined) return undefined;
  return kernelArg(readBootIso(bytes).cmdline, 'ipa-agent-token') ?? '(none)';
}

/** Run `action` while watching the bucket's ISO, the machine's agent and what a lookup answers. */
async function watching(name: string, uuid: string, action: () => Promise<void>): Promise<Seen> {
  const seen: Seen = { tokens: new Set(), agents: new Set(), lookups: [] };
  const machine = stack.fleet?.machine(name);
  let on = true;
  const watcher = (async () => {
    while (on) {
      const token = await isoToken(`${uuid}/deploy.iso`);
      if (token !== undefined) seen.tokens.add(token);
      const agent = machine?.runningGuest as VirtualAgent | undefined;
      if (agent?.lookup !== undefined && !seen.agents.has(agent)) {
        seen.agents.add(agent);
        // A lookup of our own while that agent runs: the node holds the token already.
        const reply = await api.request('GET', `/v1/lookup?node_uuid=${uuid}`, undefined, { 'X-OpenStack-Ironic-API-Version': '1.62' });
        seen.lookups.push(reply.status === 200 ? (reply.body.config as Record<string, unknown>).agent_token : reply.status);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  try {
    await action();
  } finally {
    on = false;
    await watcher;
  }
  return seen;
}

function expectPregenerated(seen: Seen): void {
  // One ISO per ramdisk boot, each with its own 43-character token.
  expect(seen.tokens.size).toBeGreaterThan(0);
  for (const token of seen.tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(seen.agents.size).toBeGreaterThan(0);
  for (const agent of seen.agents) {
    expect(agent.lookup?.config.agent_token).toBe('******');
    expect(agent.tokenSource).toBe('kernel command line');
    expect(agent.heartbeats).toBeGreaterThan(0);
  }
  expect(seen.lookups.length).toBeGreaterThan(0);
  for (const answer of seen.lookups) expect(answer).toBe('******');
}

it('boots the agent with the token on the built ISO’s kernel command line; lookup answers "******"; cleaning and deploying complete and the token is gone after', async () => {
  const uuid = await useKernelAndRamdisk('biso-2');
  const machine = stack.fleet?.machine('biso-2');
  if (machine === undefined) throw new Error('no machine biso-2');
  await api.provision(uuid, 'manage');
  await api.settle(uuid, ['manageable'], 60_000);

  const cleaning = await watching('biso-2', uuid, async () => {
    await api.provision(uuid, 'provide');
    expect(await api.settle(uuid, ['available', 'clean failed'], 150_000)).toMatchObject({
      provision_state: 'available',
      last_error: null,
    });
  });
  expectPregenerated(cleaning);
  const cleaned = (await api.get(`/v1/nodes/${uuid}`)).body.driver_internal_info as Record<string, unknown>;
  expect(cleaned).not.toHaveProperty('agent_secret_token');
  expect(cleaned).not.toHaveProperty('agent_secret_token_pregenerated');

  await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/instance_info', value: fleet.image }]);
  const deploying = await watching('biso-2', uuid, async () => {
    await api.provision(uuid, 'active');
    expect(await api.settle(uuid, ['active', 'deploy failed'], 300_000)).toMatchObject({ provision_state: 'active', last_error: null });
  });
  expectPregenerated(deploying);
  // A new boot, a new token.
  for (const token of deploying.tokens) expect(cleaning.tokens.has(token)).toBe(false);
  const deployed = (await api.get(`/v1/nodes/${uuid}`)).body.driver_internal_info as Record<string, unknown>;
  expect(deployed).not.toHaveProperty('agent_secret_token');
  expect(deployed).not.toHaveProperty('agent_secret_token_pregenerated');
  expect(machine.disk).toMatchObject({ imageId: 'disk.img', size: IMAGE.length });
}, 600_000);
