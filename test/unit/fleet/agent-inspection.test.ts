/**
 * The virtual agent booted to inspect, as IPA with `ipa-inspection-callback-url`: it posts the
 * machine's inventory in IPA's format (no API version header, so Ironic reads it at 1.1) before
 * looking up, retries a 409 or 5xx, carries on to lookup after a 404, and names its node by the
 * UUID the answer gave.
 */
import { VirtualAgent } from '../../../local/fleet/agent/agent';
import { agentGuestFactory } from '../../../local/fleet/agent/factory';
import { guessRootDisk, hardwareInventory } from '../../../local/fleet/agent/inventory';
import { defaultSpec } from '../../../local/fleet/fleet';
import { type BootEvent, VirtualMachine } from '../../../local/fleet/machine';
import { FakeIronic, waitFor } from './helpers/fake-ironic';
import { readTarGz } from '../../helpers/tar';

const GIB = 1024 ** 3;
const NODE = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123';

let ironic: FakeIronic;
let agents: VirtualAgent[] = [];

beforeEach(async () => {
  ironic = await new FakeIronic(NODE).start();
  agents = [];
});

afterEach(async () => {
  await Promise.all(agents.map((a) => a.stop()));
  await ironic.stop();
});

function agentOn(machine: VirtualMachine, options: Partial<ConstructorParameters<typeof VirtualAgent>[0]> = {}): VirtualAgent {
  const agent = new VirtualAgent({
    machine,
    apiUrl: ironic.url,
    heartbeatIntervalMs: 50,
    lookupIntervalMs: 5,
    lookupMaxIntervalMs: 20,
    inspectionCallbackUrl: `${ironic.url}/v1/continue_inspection`,
    inspectionRetryMs: 10,
    ...options,
  });
  agents.push(agent);
  return agent;
}

describe('the inventory', () => {
  it("describes the machine's model as IPA's list_hardware_info does", () => {
    const machine = new VirtualMachine(
      defaultSpec('inv', 0, {
        processors: [
          { model: 'CPU A', arch: 'x86', cores: 4, threads: 8 },
          { model: 'CPU A', arch: 'x86', cores: 4, threads: 8 },
        ],
        memoryGiB: 32,
        disks: [
          { name: 'sda', sizeBytes: 2 * GIB },
          { name: 'sdb', sizeBytes: 200 * GIB },
          { name: 'sdc', sizeBytes: 50 * GIB },
        ],
        nics: [
          { id: 'NIC1', mac: '52:54:00:00:10:01', enabled: true, speedMbps: 25_000 },
          { id: 'NIC2', mac: '52:54:00:00:10:02', enabled: false, speedMbps: 1000 },
        ],
        bootMode: 'Legacy',
      }),
    );
    const inventory = hardwareInventory(machine);
    expect(inventory.cpu).toMatchObject({ count: 16, architecture: 'x86_64', socket_count: 2, model_name: 'CPU A' });
    expect(inventory.memory).toMatchObject({ physical_mb: 32 * 1024 });
    expect(inventory.disks.map((d) => [d.name, d.size])).toEqual([
      ['/dev/sda', 2 * GIB],
      ['/dev/sdb', 200 * GIB],
      ['/dev/sdc', 50 * GIB],
    ]);
    expect(inventory.interfaces).toEqual([
      expect.objectContaining({
        name: 'eth0',
        mac_address: '52:54:00:00:10:01',
        ipv4_address: '10.0.16.2',
        has_carrier: true,
        speed_mbps: 25_000,
      }),
      expect.objectContaining({ name: 'eth1', mac_address: '52:54:00:00:10:02', ipv4_address: null, has_carrier: false }),
    ]);
    expect(inventory.boot).toEqual({ current_boot_mode: 'bios', pxe_interface: null });
    expect([inventory.bmc_address, inventory.bmc_v6address]).toEqual(['0.0.0.0', '::/0']);
    // IPA's guess: the smallest disk of at least 4 GiB.
    expect(guessRootDisk(inventory)?.name).toBe('/dev/sdc');
  });
});

describe('an agent built to inspect', () => {
  it('posts its data before looking up, at API 1.1, then looks up with the UUID the answer names', async () => {
    const machine = new VirtualMachine(defaultSpec('insp', 0));
    const agent = agentOn(machine);
    await agent.start();
    await waitFor(() => ironic.heartbeats.length >= 1, 'a heartbeat');
    expect(ironic.inspections).toHaveLength(1);
    const post = ironic.inspections[0];
    expect(post?.headers['x-openstack-ironic-api-version']).toBeUndefined();
    expect(Object.keys(post?.body ?? {}).sort()).toEqual(['boot_interface', 'configuration', 'error', 'inventory', 'logs', 'root_disk']);
    expect(post?.body?.inventory).toEqual(hardwareInventory(machine));
    expect(post?.body?.error).toBeNull();
    expect((post?.body?.root_disk as { name: string }).name).toBe('/dev/sda');
    // IPA's `logs` collector posts its logs as a base64 gzipped tar.
    expect(readTarGz(Buffer.from(String(post?.body?.logs), 'base64')).journal).toContain('starting on insp-0');
    expect(ironic.lookups[0]?.query.get('node_uuid')).toBe(NODE);
  });

  it('retries a 409 and a 5xx, and goes on to look up by its MACs alone after a 404', async () => {
    ironic.inspectionStatuses = [409, 503, 202];
    const retried = agentOn(new VirtualMachine(defaultSpec('insp', 1)));
    await retried.start();
    expect(ironic.inspections).toHaveLength(3);
    ironic.inspectionStatuses = [404];
    const refused = agentOn(new VirtualMachine(defaultSpec('insp', 2)));
    await refused.start();
    expect(ironic.inspections).toHaveLength(4);
    expect(ironic.lookups.at(-1)?.query.has('node_uuid')).toBe(false);
    expect(refused.state).toBe('running');
  });

  it('gives up posting after five attempts, as IPA, and looks up all the same', async () => {
    ironic.inspectionStatuses = [500, 500, 500, 500, 500, 500];
    const agent = agentOn(new VirtualMachine(defaultSpec('insp', 3)));
    await agent.start();
    expect(ironic.inspections).toHaveLength(5);
    expect(agent.state).toBe('running');
  });

  it('reports a failed collector in `error` (the inspect fault), still posting what it has', async () => {
    const machine = new VirtualMachine(defaultSpec('insp', 4));
    machine.setAgentFaults({ failStep: 'inspect' });
    await agentOn(machine, { inspectionCollectors: 'default' }).start();
    expect(ironic.inspections[0]?.body?.error).toBe('collector default failed: injected failure of inspection on insp-4');
    expect(ironic.inspections[0]?.body?.logs).toBeUndefined();
  });

  it('derives the URL from its API URL with collectors alone, and posts nothing without either', async () => {
    await agentOn(new VirtualMachine(defaultSpec('insp', 5)), {
      inspectionCallbackUrl: undefined,
      inspectionCollectors: 'default',
    }).start();
    expect(ironic.inspections.map((r) => r.path)).toEqual(['/v1/continue_inspection']);
    await agentOn(new VirtualMachine(defaultSpec('insp', 6)), { inspectionCallbackUrl: undefined }).start();
    expect(ironic.inspections).toHaveLength(1);
  });
});

describe("the fleet's PXE environment (unmanaged inspection)", () => {
  const boot = (machine: VirtualMachine, device: BootEvent['device']): BootEvent => ({
    machine,
    device,
    image: undefined,
    mode: 'UEFI',
    override: true,
    at: new Date().toISOString(),
  });

  it('boots the agent built to inspect on a machine booting PXE; it posts to the callback its command line names', async () => {
    const factory = agentGuestFactory({
      apiUrl: ironic.url,
      lookupIntervalMs: 5,
      lookupMaxIntervalMs: 20,
      heartbeatIntervalMs: 50,
      inspectionRetryMs: 10,
      pxe: { inspectionCallbackUrl: `${ironic.url}/v1/continue_inspection` },
    });
    const machine = new VirtualMachine(defaultSpec('pxe', 0));
    expect(await factory(boot(machine, 'Hdd'))).toBeUndefined();
    const agent = (await factory(boot(machine, 'Pxe'))) as VirtualAgent;
    agents.push(agent);
    await waitFor(() => ironic.inspections.length >= 1, 'an inspection post');
    expect(ironic.inspections[0]?.body?.inventory).toEqual(hardwareInventory(machine));
  });

  it('without one, a machine booting PXE boots nothing', async () => {
    const factory = agentGuestFactory({ apiUrl: ironic.url });
    expect(await factory(boot(new VirtualMachine(defaultSpec('pxe', 1)), 'Pxe'))).toBeUndefined();
  });
});
