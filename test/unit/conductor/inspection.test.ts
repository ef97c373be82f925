/**
 * In-band inspection in the conductor (the `agent` inspect interface on fake-hardware): `inspect`
 * boots the ramdisk and leaves the node waiting; the ramdisk's data runs the hooks, stores the
 * inventory apart from the node and ends manageable (powered off); a bad inventory, an abort and
 * the wait's timeout fail it and take the ramdisk away; a pinned service refuses to start.
 */
import { selectRelease } from '../../../functions/common/releases';
import { loadInspectorConfig } from '../../../functions/common/config';
import { doAbort } from '../../../functions/conductor/flows/abort';
import { doContinueInspection, doInspect } from '../../../functions/conductor/flows/inspection';
import { failTimedOutWaits } from '../../../functions/conductor/flows/timeouts';
import { createAgentInspect } from '../../../functions/drivers/inspector/agent';
import { inBandInspectionRefusal } from '../../../functions/drivers/inspector/index';
import { loadDriver } from '../../../functions/drivers/registry';
import type { Node } from '../../../functions/objects/node';
import { makeConductorContext, makeNode, storesWith } from '../helpers/builders';
import { MemoryInspectionRuleStore, makeRule } from '../helpers/inspection-rules';
import { MemoryNodeInventoryStore, MemoryPortStore } from '../helpers/memory-stores';

const GIB = 1024 ** 3;

function context() {
  const base = makeConductorContext();
  const ports = new MemoryPortStore();
  const nodeInventory = new MemoryNodeInventoryStore();
  const inspectionRules = new MemoryInspectionRuleStore();
  return { ...base, stores: storesWith(base.nodes, { ports, nodeInventory, inspectionRules }), ports, nodeInventory, inspectionRules };
}
type Ctx = ReturnType<typeof context>;

/** What the API does for a verb or a ramdisk's post: the state change and the lock for message `id`. */
async function begin(ctx: Ctx, uuid: string, event: 'inspect' | 'resume' | 'abort', id: string, lastError?: string): Promise<Node> {
  const node = await ctx.nodes.get(uuid);
  node.processEvent(event);
  node.last_error = lastError ?? null;
  return ctx.nodes.save(node, { lockFor: { host: 'api', token: `rpc:${id}`, ttlSeconds: 300 } });
}

async function waitingNode(ctx: Ctx, overrides: Parameters<typeof makeNode>[0] = {}): Promise<Node> {
  const node = await ctx.nodes.create(
    makeNode({ provision_state: 'manageable', inspect_interface: 'agent', power_state: 'power on', ...overrides }),
  );
  await begin(ctx, node.uuid, 'inspect', 'i1');
  await doInspect(ctx, { node_id: node.uuid, lock_token: 'rpc:i1', message_id: 'i1' });
  return ctx.nodes.get(node.uuid);
}

const INVENTORY = {
  interfaces: [
    { name: 'eth0', mac_address: '52:54:00:12:00:01', ipv4_address: '10.0.0.5' },
    { name: 'eth1', mac_address: '52:54:00:12:00:02', ipv4_address: '10.0.0.6' },
  ],
  cpu: { count: 8, architecture: 'x86_64' },
  memory: { physical_mb: 16384 },
  disks: [{ name: '/dev/sda', size: 100 * GIB }],
  boot: { current_boot_mode: 'uefi', pxe_interface: null },
  bmc_address: '0.0.0.0',
};

async function post(
  ctx: Ctx,
  uuid: string,
  pluginData: Record<string, unknown>,
  id = 'c1',
  inventory: Record<string, unknown> = INVENTORY,
) {
  await begin(ctx, uuid, 'resume', id);
  await doContinueInspection(ctx, { node_id: uuid, lock_token: `rpc:${id}`, message_id: id, inventory, plugin_data: pluginData });
  return ctx.nodes.get(uuid);
}

describe('inspect with the agent interface', () => {
  it('boots the ramdisk and leaves the node waiting in inspect wait, unlocked, without the old agent token', async () => {
    const ctx = context();
    const created = await ctx.nodes.create(
      makeNode({
        provision_state: 'manageable',
        inspect_interface: 'agent',
        driver_internal_info: { agent_secret_token: 'old', agent_url: 'x' },
      }),
    );
    await begin(ctx, created.uuid, 'inspect', 'i1');
    await doInspect(ctx, { node_id: created.uuid, lock_token: 'rpc:i1', message_id: 'i1' });
    const node = await ctx.nodes.get(created.uuid);
    expect([node.provision_state, node.last_error, node.reservation, node.power_state]).toEqual(['inspect wait', null, null, 'power on']);
    expect(node.driver_internal_info).toEqual({ inspector_manage_boot: true });
    expect(node.inspection_started_at).not.toBeNull();
  });

  it('processes the posted data: properties, ports, the inventory kept apart without logs, powered off, manageable', async () => {
    const ctx = context();
    const waiting = await waitingNode(ctx);
    const node = await post(ctx, waiting.uuid, { root_disk: INVENTORY.disks[0], logs: 'H4sI…', error: null });
    expect([node.provision_state, node.last_error, node.reservation, node.power_state]).toEqual(['manageable', null, null, 'power off']);
    // Ironic's default hooks set cpu_arch only: memory_mb, cpus, local_gb and the boot mode need their hooks listed.
    expect(node.properties).toEqual({ cpu_arch: 'x86_64' });
    expect(ctx.ports.items.map((p) => [p.node_uuid, p.address, p.pxe_enabled])).toEqual([
      [node.uuid, '52:54:00:12:00:01', false],
      [node.uuid, '52:54:00:12:00:02', false],
    ]);
    const stored = await ctx.nodeInventory.get(node.uuid);
    expect(stored.inventory_data).toEqual(INVENTORY);
    expect(Object.keys(stored.plugin_data ?? {}).sort()).toEqual(['all_interfaces', 'error', 'macs', 'root_disk', 'valid_interfaces']);
    expect(node.inspection_finished_at).not.toBeNull();
    expect(node.driver_internal_info.inspector_manage_boot).toBeUndefined();
    expect(typeof node.driver_internal_info.agent_last_heartbeat).toBe('string');
  });

  it('with fast track the agent keeps running: the node stays powered on', async () => {
    const ctx = context();
    const waiting = await waitingNode(ctx, { driver_info: { fast_track: true } });
    const node = await post(ctx, waiting.uuid, {});
    expect([node.provision_state, node.power_state]).toEqual(['manageable', 'power on']);
  });

  it("fails the inspection with Ironic's message when the ramdisk reports an error, storing nothing", async () => {
    const ctx = context();
    const waiting = await waitingNode(ctx);
    const node = await post(ctx, waiting.uuid, { error: 'collector default failed: no disks' });
    expect([node.provision_state, node.reservation, node.power_state]).toEqual(['inspect failed', null, 'power off']);
    expect(node.last_error).toBe(
      'Failed to finish inspection: Failed to inspect hardware. Reason: failed to run inspection hooks: Failed to inspect hardware. ' +
        `Reason: The following failures happened while running preprocess hooks for node ${node.uuid}:\n` +
        'Error in preprocess hook ramdisk-error: Failed to inspect hardware. Reason: Ramdisk reported error: collector default failed: no disks',
    );
    expect(ctx.nodeInventory.items.size).toBe(0);
    expect(ctx.ports.items).toEqual([]);
  });

  it('handles a message once: a redelivered copy finds the node released and does nothing', async () => {
    const ctx = context();
    const waiting = await waitingNode(ctx);
    await post(ctx, waiting.uuid, {});
    ctx.nodeInventory.items.clear();
    await doContinueInspection(ctx, {
      node_id: waiting.uuid,
      lock_token: 'rpc:c1',
      message_id: 'c1',
      inventory: INVENTORY,
      plugin_data: {},
    });
    expect(ctx.nodeInventory.items.size).toBe(0);
  });

  it('abort takes the ramdisk away and powers the node off', async () => {
    const ctx = context();
    const waiting = await waitingNode(ctx);
    await begin(ctx, waiting.uuid, 'abort', 'a1', 'Inspection was aborted by request.');
    await doAbort(ctx, { node_id: waiting.uuid, lock_token: 'rpc:a1', message_id: 'a1' });
    const node = await ctx.nodes.get(waiting.uuid);
    expect([node.provision_state, node.last_error, node.reservation, node.power_state]).toEqual([
      'inspect failed',
      'Inspection was aborted by request.',
      null,
      'power off',
    ]);
    expect(node.driver_internal_info).toEqual({});
  });

  it('fails a node that waited longer than the inspect wait timeout, and takes the ramdisk away', async () => {
    const ctx = { ...context(), config: { ...makeConductorContext().config, inspectWaitTimeoutSeconds: 60 } };
    const waiting = await waitingNode(ctx);
    expect((await failTimedOutWaits(ctx, {}, Date.now() + 30_000)).failed).toBe(0);
    expect((await failTimedOutWaits(ctx, {}, Date.now() + 61_000)).failed).toBe(1);
    const node = await ctx.nodes.get(waiting.uuid);
    expect([node.provision_state, node.reservation, node.power_state]).toEqual(['inspect failed', null, 'power off']);
    expect(node.last_error).toBe(
      'Timeout reached while inspecting the node. Please check if the ramdisk responsible for the inspection is running on the node.',
    );
    const unlimited = { ...ctx, config: { ...ctx.config, inspectWaitTimeoutSeconds: 0 } };
    await waitingNode(unlimited);
    expect((await failTimedOutWaits(unlimited, {}, Date.now() + 10 * 86_400_000)).failed).toBe(0);
  });

  it('keeps out-of-band inspection as it was: properties at once, manageable', async () => {
    const ctx = context();
    const created = await ctx.nodes.create(makeNode({ provision_state: 'manageable', properties: { cpus: 2 } }));
    await begin(ctx, created.uuid, 'inspect', 'o1');
    await doInspect(ctx, { node_id: created.uuid, lock_token: 'rpc:o1', message_id: 'o1' });
    const node = await ctx.nodes.get(created.uuid);
    expect([node.provision_state, node.properties, node.inspection_finished_at !== null]).toEqual(['manageable', { cpus: 2 }, true]);
  });
});

describe('a service pinned below RPC continue_inspection', () => {
  it('refuses to start an in-band inspection, saying why', async () => {
    expect(inBandInspectionRefusal(selectRelease(''))).toBeUndefined();
    const refusal = inBandInspectionRefusal(selectRelease('2026.3'));
    expect(refusal).toBe(
      "In-band inspection needs RPC API 1.2 (continue_inspection) to hand the ramdisk's data to a conductor, above RPC 1.1 of release 2026.3 this service is pinned to. " +
        'Inspect the node once every service runs the new release unpinned, or with an out-of-band inspect interface.',
    );
    const pinned = createAgentInspect({
      driverOf: (task) => loadDriver(task.node),
      config: () => loadInspectorConfig({}),
      fastTrack: () => false,
      refusal: () => refusal,
    });
    const node = makeNode({ provision_state: 'inspecting', inspect_interface: 'agent' });
    await expect(pinned.validate({ node, log: makeConductorContext().log })).rejects.toThrow(refusal);
  });
});

describe('inspection rules at the end of in-band inspection', () => {
  it('apply to the node and the plugin data before they are stored; the node ends manageable', async () => {
    const ctx = context();
    ctx.inspectionRules.rules.push(
      makeRule({
        conditions: [{ op: 'eq', args: { values: ['{inventory[cpu][architecture]}', 'x86_64'] } }],
        actions: [
          { op: 'add-trait', args: { name: 'CUSTOM_X86' } },
          { op: 'set-attribute', args: { path: '/properties/vendor', value: '{inventory[bmc_address]}' } },
          { op: 'set-plugin-data', args: { path: 'ruled', value: true } },
        ],
      }),
      makeRule({ conditions: [{ op: 'eq', args: { values: [1, 2] } }], actions: [{ op: 'add-trait', args: { name: 'CUSTOM_NEVER' } }] }),
    );
    const waiting = await waitingNode(ctx);
    const node = await post(ctx, waiting.uuid, {});
    expect([node.provision_state, node.last_error]).toEqual(['manageable', null]);
    expect(node.traits).toEqual(['CUSTOM_X86']);
    expect(node.properties.vendor).toBe('0.0.0.0');
    expect((await ctx.nodeInventory.get(node.uuid)).plugin_data).toMatchObject({ ruled: true });
  });

  it('a failing rule fails the inspection with its message and stores no inventory', async () => {
    const ctx = context();
    ctx.inspectionRules.rules.push(makeRule({ actions: [{ op: 'fail', args: { msg: 'unsupported hardware' } }] }));
    const waiting = await waitingNode(ctx);
    const node = await post(ctx, waiting.uuid, {});
    expect([node.provision_state, node.reservation]).toEqual(['inspect failed', null]);
    expect(node.last_error).toBe('Failed to finish inspection: Failed to inspect hardware. Reason: unsupported hardware');
    expect(ctx.nodeInventory.items.size).toBe(0);
  });
});
