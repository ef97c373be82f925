/**
 * Redfish nodes end to end: API → conductor (call or cast) → Redfish driver → virtual BMC. Boot
 * device, boot mode, secure boot and NMI reach the BMC; inspection's hooks create the node's ports; and
 * every BMC fault (down, 500s, wrong credentials) ends a power action with last_error and no
 * target, while the power-state sync puts a node whose BMC keeps failing into maintenance with
 * fault "power failure" and takes it out once the BMC answers again. Nothing stays locked.
 */
import { jest } from '@jest/globals';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { selectRelease } from '../../functions/common/releases';
import { createDocumentClient } from '../../functions/db/client';
import { type Stores, createStores } from '../../functions/db/stores';
import type { VirtualMachine } from '../../local/fleet/machine';
import type { LocalStack } from '../../local/stack';
import { ApiClient, type Json, faultOf, startStack } from './helpers/stack';

// Real services on a loaded machine: jest's project-level testTimeout is not applied (see jest.config.js).
jest.setTimeout(30_000);

let stack: LocalStack;
let api: ApiClient;
let raw: DynamoDBClient;
let stores: Stores;

beforeAll(async () => {
  stack = await startStack({
    fleet: { count: 1, prefix: 'rc' },
    // Short Redfish deadlines so a dead BMC fails a call in seconds.
    functionEnv: {
      REDFISH_CONNECTION_ATTEMPTS: '2',
      REDFISH_CONNECTION_RETRY_INTERVAL: '0',
      REDFISH_READ_TIMEOUT: '2',
      // A new boot mode the BMC does not report is waited for 3 s, polled every 100 ms.
      REDFISH_BOOT_MODE_CONFIG_TIMEOUT: '3',
      REDFISH_BOOT_MODE_CONFIG_INTERVAL_MS: '100',
    },
  });
  api = new ApiClient(stack.url, '1.82');
  raw = new DynamoDBClient({
    endpoint: stack.endpoints.dynamodb,
    region: 'us-east-1',
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  });
  stores = createStores({ client: createDocumentClient(raw), tables: stack.tables, release: selectRelease('') });
}, 60_000);

afterAll(async () => {
  raw?.destroy();
  await stack?.stop();
});

/** A manageable redfish node on a new virtual machine. */
async function manageableNode(overrides: Record<string, unknown> = {}): Promise<{ uuid: string; machine: VirtualMachine }> {
  const fleet = stack.fleet!;
  const machine = fleet.add();
  const reply = await api.request('POST', '/v1/nodes', { driver: 'redfish', driver_info: fleet.driverInfo(machine), ...overrides });
  if (reply.status !== 201) throw new Error(reply.text);
  const uuid = reply.body.uuid as string;
  await api.provision(uuid, 'manage');
  await api.waitFor(uuid, 'manageable', 30_000);
  return { uuid, machine };
}

async function until(uuid: string, done: (node: Json) => boolean, timeoutMs = 30_000): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  let node: Json;
  while (Date.now() < deadline) {
    node = (await api.get(`/v1/nodes/${uuid}`)).body;
    if (done(node)) return node;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`node ${uuid} never got there: ${JSON.stringify(node)}`);
}

const settled = (n: Json) => n.reservation === null && n.target_power_state === null;

async function syncPowerStates(): Promise<Json> {
  const out = await stack.lambda.invoke('conductor:live', { entry: 'periodic', task: 'sync_power_states' });
  return JSON.parse(out.payload);
}

describe('management through the conductor to the BMC', () => {
  it('sets and reads the boot device, lists the supported ones', async () => {
    const { uuid, machine } = await manageableNode();
    expect((await api.get(`/v1/nodes/${uuid}/management/boot_device/supported`)).body).toEqual({
      supported_boot_devices: ['pxe', 'disk', 'cdrom', 'bios'],
    });
    const set = await api.request('PUT', `/v1/nodes/${uuid}/management/boot_device`, { boot_device: 'disk', persistent: true });
    expect(set.status).toBe(204);
    expect(machine.boot).toMatchObject({ target: 'Hdd', enabled: 'Continuous' });
    expect((await api.get(`/v1/nodes/${uuid}/management/boot_device`)).body).toEqual({ boot_device: 'disk', persistent: true });
    const bad = await api.request('PUT', `/v1/nodes/${uuid}/management/boot_device`, { boot_device: 'floppy' });
    expect(bad.status).toBe(400);
    expect(faultOf(bad).faultstring).toBe('Invalid boot device floppy specified.');
  }, 60_000);

  it('switches boot mode and secure boot on the BMC and records them on the node', async () => {
    const { uuid, machine } = await manageableNode();
    expect((await api.request('PUT', `/v1/nodes/${uuid}/states/boot_mode`, { target: 'bios' })).status).toBe(202);
    const legacy = await until(uuid, (n) => n.reservation === null && n.boot_mode === 'bios');
    expect(legacy.last_error).toBeNull();
    expect(machine.boot.mode).toBe('Legacy');

    // Secure boot needs UEFI: the BMC refuses, and the node says why.
    expect((await api.request('PUT', `/v1/nodes/${uuid}/states/secure_boot`, { target: true })).status).toBe(202);
    const refused = await until(uuid, (n) => n.reservation === null && n.last_error !== null);
    expect(refused.last_error).toMatch(/^Failed to change secure_boot state to 'True': Redfish exception occurred\./);
    expect(machine.secureBoot).toBe(false);

    expect((await api.request('PUT', `/v1/nodes/${uuid}/states/boot_mode`, { target: 'uefi' })).status).toBe(202);
    await until(uuid, (n) => n.reservation === null && n.boot_mode === 'uefi' && n.last_error === null);
    expect((await api.request('PUT', `/v1/nodes/${uuid}/states/secure_boot`, { target: true })).status).toBe(202);
    const secure = await until(uuid, (n) => n.reservation === null && n.secure_boot === true);
    expect(secure.last_error).toBeNull();
    expect(machine.secureBoot).toBe(true);
  }, 60_000);

  it('waits for a BMC that applies a boot mode at its next boot, and fails with Ironic’s error on one that never does', async () => {
    const { uuid, machine } = await manageableNode();
    machine.setFaults({ bootModeApply: 'reboot' });
    expect((await api.request('PUT', `/v1/nodes/${uuid}/states/boot_mode`, { target: 'bios' })).status).toBe(202);
    const legacy = await until(uuid, (n) => n.reservation === null && n.boot_mode === 'bios');
    expect(legacy).toMatchObject({ last_error: null, power_state: 'power off' });
    // Rebooted to run the BIOS job, then off again as it was.
    expect(machine.resets).toEqual(['On', 'ForceOff']);
    expect(machine.powerState).toBe('Off');

    machine.setFaults({ bootModeApply: 'never' });
    expect((await api.request('PUT', `/v1/nodes/${uuid}/states/boot_mode`, { target: 'uefi' })).status).toBe(202);
    const failed = await until(uuid, (n) => n.reservation === null && n.last_error !== null);
    expect(failed.last_error).toBe(
      `Failed to change boot mode to 'uefi: Redfish exception occurred. Error: Timeout reached while waiting for boot mode of node ${uuid} to become UEFI, current is Legacy`,
    );
    expect(failed.boot_mode).toBe('bios');
    expect(machine.boot.mode).toBe('Legacy');
  }, 60_000);

  it('injects an NMI into a running machine', async () => {
    const { uuid, machine } = await manageableNode();
    machine.reset('On');
    const nmis: string[] = [];
    machine.on('nmi', (e) => nmis.push(e.machine.id));
    expect((await api.request('PUT', `/v1/nodes/${uuid}/management/inject_nmi`)).status).toBe(204);
    expect(nmis).toEqual([machine.id]);
    expect(machine.resets[machine.resets.length - 1]).toBe('Nmi');
  }, 60_000);

  it('inspection creates a port per NIC the BMC reports, once (the ports hook, as Ironic master)', async () => {
    const { uuid, machine } = await manageableNode();
    const macs = machine.spec.nics.map((n) => n.mac);
    expect(macs.length).toBeGreaterThan(0);
    for (let round = 0; round < 2; round++) {
      await api.provision(uuid, 'inspect');
      await until(uuid, (n) => n.provision_state === 'manageable' && n.reservation === null);
    }
    const ports = (await stores.ports.list({ nodeUuid: uuid }, { limit: 100 })).items;
    expect(ports.map((p) => p.address).sort()).toEqual([...macs].sort());
    // The BMC names no PXE NIC: as Ironic master's validate-interfaces, none is marked PXE-booting.
    expect(ports.map((p) => p.pxe_enabled)).toEqual(macs.map(() => false));
  }, 60_000);

  it('answers the driver’s error when the BMC refuses, and 409 while the node is locked', async () => {
    const { uuid, machine } = await manageableNode();
    machine.setFaults({ unauthorized: true });
    const reply = await api.get(`/v1/nodes/${uuid}/management/boot_device`);
    expect(reply.status).toBe(500);
    expect(faultOf(reply).faultstring).toMatch(/^Redfish exception occurred\. Error: /);
    machine.clearFaults();
    expect((await api.get(`/v1/nodes/${uuid}`)).body.reservation).toBeNull();

    await stores.nodes.reserve(uuid, { host: 'elsewhere', token: 'test', ttlSeconds: 600 });
    const locked = await api.request('PUT', `/v1/nodes/${uuid}/management/inject_nmi`);
    expect(locked.status).toBe(409);
    expect(faultOf(locked).faultstring).toBe(
      `Node ${uuid} is locked by host elsewhere, please retry after the current operation is completed.`,
    );
    expect(machine.resets).not.toContain('Nmi');
  }, 60_000);
});

describe('BMC faults through the conductor', () => {
  it.each([
    ['down', { down: 'reset' }],
    ['failing with 500s', { errorStatus: 500 }],
    ['refusing the credentials', { unauthorized: true }],
  ] as const)(
    'a BMC %s ends a power action with last_error, no target and no lock',
    async (_what, faults) => {
      const { uuid, machine } = await manageableNode();
      machine.setFaults(faults);
      const reply = await api.request('PUT', `/v1/nodes/${uuid}/states/power`, { target: 'power on' });
      expect(reply.status).toBe(202);
      const node = await until(uuid, settled);
      expect(node.last_error).toMatch(/^Failed to change power state to 'power on' by 'power on': /);
      expect(node.power_state).toBe('power off');
      expect(node.provision_state).toBe('manageable');
      expect(machine.powerState).toBe('Off');
      // The BMC answers again: the next action works.
      machine.clearFaults();
      await api.request('PUT', `/v1/nodes/${uuid}/states/power`, { target: 'power on' });
      const on = await until(uuid, (n) => settled(n) && n.power_state === 'power on');
      expect(on.last_error).toBeNull();
    },
    60_000,
  );

  it('a BMC that is down fails management calls and casts cleanly, leaving the node unlocked', async () => {
    const { uuid, machine } = await manageableNode();
    machine.setFaults({ down: 'reset' });
    const call = await api.request('PUT', `/v1/nodes/${uuid}/management/boot_device`, { boot_device: 'pxe' });
    expect(call.status).toBe(500);
    expect(faultOf(call).faultstring).toMatch(new RegExp(`^Redfish connection failed for node ${uuid}: Unable to connect to `));
    expect((await api.request('PUT', `/v1/nodes/${uuid}/states/boot_mode`, { target: 'bios' })).status).toBe(202);
    const node = await until(uuid, (n) => n.reservation === null && n.last_error !== null);
    expect(node.last_error).toMatch(new RegExp(`^Failed to change boot mode to 'bios: .*Redfish connection failed for node ${uuid}`));
    expect(node.boot_mode).not.toBe('bios');
  }, 60_000);

  it('power sync: hardware switched off behind its back is powered back on (force_power_state_during_sync)', async () => {
    const { uuid, machine } = await manageableNode();
    expect((await api.request('PUT', `/v1/nodes/${uuid}/states/power`, { target: 'power on' })).status).toBe(202);
    await until(uuid, (n) => n.power_state === 'power on' && n.reservation === null);
    machine.reset('ForceOff');
    await syncPowerStates();
    expect(machine.powerState).toBe('On');
    const forced = (await api.get(`/v1/nodes/${uuid}`)).body;
    expect(forced).toMatchObject({ power_state: 'power on', target_power_state: null, reservation: null, maintenance: false });
    expect((forced.driver_internal_info as Json).power_sync_failures).toBe(1);
    // The hardware stayed on: the count goes.
    await syncPowerStates();
    expect(((await api.get(`/v1/nodes/${uuid}`)).body.driver_internal_info as Json).power_sync_failures).toBeUndefined();
  }, 60_000);

  it('power sync: maintenance with fault "power failure" after repeated failures, out of it on recovery', async () => {
    const { uuid, machine } = await manageableNode();
    machine.setFaults({ errorStatus: 500 });
    for (let i = 0; i < 3; i++) {
      await syncPowerStates();
      const node = (await api.get(`/v1/nodes/${uuid}`)).body;
      expect([node.maintenance, node.fault]).toEqual([false, null]);
    }
    await syncPowerStates();
    const failed = (await api.get(`/v1/nodes/${uuid}`)).body;
    expect(failed).toMatchObject({ maintenance: true, fault: 'power failure', power_state: null, reservation: null });
    expect(failed.maintenance_reason).toMatch(/^During sync_power_state, max retries exceeded for node /);

    // Still failing: stays in maintenance.
    await syncPowerStates();
    expect((await api.get(`/v1/nodes/${uuid}`)).body).toMatchObject({ maintenance: true, fault: 'power failure' });

    machine.clearFaults();
    machine.reset('On');
    await syncPowerStates();
    const recovered = (await api.get(`/v1/nodes/${uuid}`)).body;
    expect(recovered).toMatchObject({
      maintenance: false,
      fault: null,
      maintenance_reason: null,
      power_state: 'power on',
      reservation: null,
    });
  }, 90_000);
});
