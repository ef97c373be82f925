/**
 * Unmanaged in-band inspection on the local stack (Ironic's `[inspector]require_managed_boot =
 * False`), nothing faked but the hardware: a redfish node whose network interface (flat, with no
 * inspection network) cannot take part in booting the ramdisk is powered off, set to boot PXE once
 * and powered on; the virtual fleet's PXE environment (the operator's) boots the agent built to
 * inspect, which posts to /v1/continue_inspection, and the node ends manageable with its inventory
 * stored. Virtual media without its ISO has no unmanaged fallback (as Ironic's), and with
 * require_managed_boot on (the default) the same node is refused.
 */
import type { LocalStack } from '../../local/stack';
import { ApiClient, startStack } from './helpers/stack';

/** A fleet node moved to manageable with the agent inspect interface and the given network interface. */
async function manageable(api: ApiClient, name: string, patch: { op: string; path: string; value?: unknown }[] = []): Promise<string> {
  const patched = await api.request('PATCH', `/v1/nodes/${name}`, [
    { op: 'replace', path: '/inspect_interface', value: 'agent' },
    ...patch,
  ]);
  expect(patched.status).toBe(200);
  await api.provision(name, 'manage');
  await api.settle(name, ['manageable'], 60_000);
  return patched.body.uuid as string;
}

const FLAT = [{ op: 'replace', path: '/network_interface', value: 'flat' }];
const UNSUPPORTED = 'Driver redfish does not support validate_inspection (disabled or not implemented).';

describe('with require_managed_boot off', () => {
  let stack: LocalStack;
  let api: ApiClient;

  beforeAll(async () => {
    stack = await startStack({
      fleet: { count: 2, prefix: 'unm', pxe: true, inspectionRetryMs: 300 },
      settings: { inspectorRequireManagedBoot: false },
    });
    api = new ApiClient(stack.url, '1.87');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('inspects the node unmanaged: PXE once, the PXE-booted agent posts, manageable with the inventory stored', async () => {
    const uuid = await manageable(api, 'unm-0', FLAT);
    const machine = stack.fleet!.machine('unm-0');
    const booted = machine.boots.length;
    const validation = (await api.get(`/v1/nodes/${uuid}/validate`)).body;
    expect(validation.inspect).toEqual({ result: true });

    await api.provision(uuid, 'inspect');
    const node = await api.settle(uuid, ['manageable', 'inspect failed'], 90_000);
    expect(node).toMatchObject({ provision_state: 'manageable', last_error: null, power_state: 'power off' });
    expect(node.properties).toMatchObject({ cpu_arch: 'x86_64' });
    expect(node.driver_internal_info.inspector_manage_boot).toBeUndefined();
    expect(machine.powerState).toBe('Off');
    // It booted from the network once, through a one-time override; the virtual CD was never used.
    expect(machine.boots.slice(booted).map((b) => [b.device, b.override])).toEqual([['Pxe', true]]);
    expect(machine.media.Cd.inserted).toBe(false);
    expect(machine.boot.enabled).toBe('Disabled');

    const inventory = await api.get(`/v1/nodes/${uuid}/inventory`);
    expect(inventory.status).toBe(200);
    expect(inventory.body.inventory).toMatchObject({ cpu: { count: 8, architecture: 'x86_64' }, memory: { physical_mb: 16384 } });
    const ports = (await api.get(`/v1/ports?node=${uuid}`)).body.ports as { address: string }[];
    expect(ports.map((p) => p.address).sort()).toEqual(machine.spec.nics.map((n) => n.mac).sort());
  }, 180_000);

  it('a virtual media node without its ISO is not inspected unmanaged: the inspection fails, nothing boots', async () => {
    const uuid = await manageable(api, 'unm-1', [{ op: 'remove', path: '/driver_info/deploy_iso' }]);
    const machine = stack.fleet!.machine('unm-1');
    const booted = machine.boots.length;
    await api.provision(uuid, 'inspect');
    const node = await api.settle(uuid, ['manageable', 'inspect failed'], 60_000);
    expect(node.provision_state).toBe('inspect failed');
    expect(node.last_error).toBe(
      "Failed to inspect hardware. Reason: Error validating Redfish virtual media. Some parameters were missing in node's driver_info. " +
        "Missing are: ['deploy_kernel', 'deploy_ramdisk']",
    );
    expect(machine.boots.length).toBe(booted);
  }, 120_000);
});

describe('with require_managed_boot on (the default)', () => {
  let stack: LocalStack;
  let api: ApiClient;

  beforeAll(async () => {
    stack = await startStack({ fleet: { count: 1, prefix: 'req', pxe: true } });
    api = new ApiClient(stack.url, '1.87');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('refuses the node whose network interface cannot boot the ramdisk: validation fails, nothing boots', async () => {
    const uuid = await manageable(api, 'req-0', FLAT);
    const machine = stack.fleet!.machine('req-0');
    const booted = machine.boots.length;
    const validation = (await api.get(`/v1/nodes/${uuid}/validate`)).body;
    expect(validation.inspect).toEqual({ result: false, reason: UNSUPPORTED });

    await api.provision(uuid, 'inspect');
    const node = await api.settle(uuid, ['manageable', 'inspect failed'], 60_000);
    expect(node).toMatchObject({ provision_state: 'inspect failed', last_error: `Failed to inspect hardware. Reason: ${UNSUPPORTED}` });
    expect(machine.boots.length).toBe(booted);
  }, 120_000);
});
