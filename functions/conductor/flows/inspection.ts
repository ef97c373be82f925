/**
 * Inspection (Ironic's `conductor/inspection.py`): the `inspect` verb, the ramdisk's data, abort
 * and the wait's timeout.
 *
 * - `inspect`: the API moved the node to `inspecting` and locked it for this message. An
 *   out-of-band interface (redfish, fake) answers at once: the properties it found are saved, ports
 *   created for any MACs it reports (redfish reports none: its inspection hooks made the ports);
 *   redfish's inventory and plugin data, as its hooks left them, are stored apart from the node and
 *   the inspection rules applied to them; the node ends `manageable`. An in-band one (`agent`) prepares the
 *   ramdisk's boot: the node is saved waiting in `inspect wait` (still locked), then powered on,
 *   then released; the ramdisk's data arrives later.
 * - `continue_inspection`: the API found the node in `inspect wait` for a ramdisk's post, moved it
 *   to `inspecting` and locked it for this message. The interface runs the inspection hooks and
 *   tears the ramdisk down, then the inspection rules run; the inventory is stored apart from the node (the ramdisk's logs,
 *   staged by the API, are kept as Ironic keeps them), and the node ends `manageable` — or `inspect failed` with Ironic's message.
 * - abort (from `inspect wait`) and the `inspect wait` timeout take the ramdisk away through the
 *   interface's `abort`.
 */
import { HardwareInspectionFailure, MACAlreadyExists, UnsupportedDriverExtension } from '#common/errors';
import { newUuid } from '#common/ids';
import { INSPECTING } from '#common/states';
import type { InspectionTask } from '#drivers/base';
import { wipeAgentToken } from '#drivers/agent/inband';
import { keepInspectionLogs } from '#drivers/agent/ramdisk-logs';
import { loadDriver } from '#drivers/registry';
import type { Node } from '#objects/node';
import { NodeInventory } from '#objects/node-inventory';
import { Port } from '#objects/port';
import type { RpcMethods } from '#rpc/messages';
import type { ConductorContext } from '../context';
import { type MessageArgs, claimForMessage } from '../claim';
import { shouldRetry } from '../attempt';
import { historyEventType } from '../history';
import { applyRules } from '../inspection-rules/engine';
import { createPortsIfNotExist } from './inspect-ports';

/** What inspection hooks may do to the node's ports, over the port store. */
export function inspectionTask(ctx: ConductorContext, node: Node): InspectionTask {
  const ports = ctx.stores.ports;
  return {
    node,
    log: ctx.log,
    persist: async () => void (await ctx.nodes.save(node)),
    ports: {
      async list() {
        const out: Port[] = [];
        let marker: string | undefined;
        do {
          const page = await ports.list({ nodeUuid: node.uuid }, { limit: 1000, ...(marker ? { marker } : {}) });
          out.push(...page.items);
          marker = page.more ? page.items[page.items.length - 1]?.uuid : undefined;
        } while (marker !== undefined);
        return out;
      },
      async create(port) {
        try {
          await ports.create(new Port({ uuid: newUuid(), node_uuid: node.uuid, ...port, created_at: new Date().toISOString() }));
          return true;
        } catch (err) {
          if (err instanceof MACAlreadyExists) return false;
          throw err;
        }
      },
      async save(port) {
        await ports.save(port);
      },
      async destroy(port) {
        await ports.destroy(port);
      },
    },
  };
}

/**
 * The inspection rules of phase `main` over what inspection found (Ironic's apply_rules, where its
 * agent and redfish inspections finish). They change the node in memory (saved by the caller) and
 * the ports through the store; `pluginData` as they leave it is what is stored.
 */
async function applyInspectionRules(
  ctx: ConductorContext,
  task: InspectionTask,
  inventory: Record<string, unknown>,
  pluginData: Record<string, unknown>,
): Promise<void> {
  const rules = await ctx.stores.inspectionRules.listPhase('main');
  let ports: Port[] | undefined;
  const ruleTask = { node: task.node, log: task.log, ports: async () => (ports ??= await task.ports.list()), savePort: task.ports.save };
  await applyRules(ruleTask, rules, inventory, pluginData);
}

/** Keep what an inspection found apart from the node, replacing what the last one found (Ironic's store_inspection_data). */
async function storeInventory(
  ctx: ConductorContext,
  node: Node,
  inventory: Record<string, unknown>,
  pluginData: Record<string, unknown>,
): Promise<void> {
  const record = { node_uuid: node.uuid, inventory_data: inventory, plugin_data: pluginData, created_at: new Date().toISOString() };
  await ctx.stores.nodeInventory.put(new NodeInventory(record));
}

/** last_error of a failed inspection: Ironic's HardwareInspectionFailure as it reads (a rule's `fail`), others wrapped in one. */
const failed = (err: unknown) =>
  err instanceof HardwareInspectionFailure ? err.message : `Failed to inspect hardware. Reason: ${(err as Error).message}`;

/** The `inspect` verb (Ironic's `inspect_hardware`). */
export async function doInspect(ctx: ConductorContext, args: MessageArgs): Promise<void> {
  const node = await claimForMessage(ctx, args, [INSPECTING]);
  if (node === undefined) return;
  const task = inspectionTask(ctx, node);
  let start: (() => Promise<void>) | undefined;
  try {
    const driver = loadDriver(node);
    await driver.power.validate(task);
    await driver.inspect.validate(task);
    // Inspection cannot start in fast-track mode (Ironic's wipe_token_and_url).
    wipeAgentToken(node);
    node.inspection_started_at = new Date().toISOString();
    node.inspection_finished_at = null;
    if (driver.inspect.inBand !== undefined) {
      start = (await driver.inspect.inBand.start(task)).start;
    } else {
      const result = await driver.inspect.inspectHardware(task);
      node.properties = result.properties;
      await createPortsIfNotExist(ctx, node, result.macs);
      if (result.inventory !== undefined) {
        // As Ironic master's redfish inspection: the inventory is stored, then the rules run on it.
        const pluginData = { ...result.pluginData };
        await storeInventory(ctx, node, result.inventory, pluginData);
        await applyInspectionRules(ctx, task, result.inventory, pluginData);
      }
      node.inspection_finished_at = new Date().toISOString();
    }
  } catch (err) {
    // Out of time before any hardware changed: another delivery tries again.
    if (shouldRetry(ctx, err)) throw err;
    node.last_error = failed(err);
    node.processEvent('fail');
    await ctx.nodes.save(node, { release: true });
    ctx.log.info('inspect failed', { node: node.uuid, lastError: node.last_error });
    return;
  }
  node.last_error = null;
  if (start === undefined) {
    node.processEvent('done');
    await ctx.nodes.save(node, { release: true });
    ctx.log.info('inspect finished', { node: node.uuid, state: node.provision_state, message_id: args.message_id });
    return;
  }
  // The ramdisk may post as soon as the machine runs: the node waits first (still locked, so a
  // post meanwhile is a 409 the ramdisk retries), then powers on, then is released.
  node.processEvent('wait');
  await ctx.nodes.save(node);
  try {
    await start();
  } catch (err) {
    node.last_error = failed(err);
    node.processEvent('fail');
  }
  await ctx.nodes.save(node, { release: true });
  ctx.log.info('inspect started: waiting for the ramdisk', { node: node.uuid, state: node.provision_state, lastError: node.last_error });
}

/** The ramdisk's data (Ironic's `continue_inspection`). */
export async function doContinueInspection(
  ctx: ConductorContext,
  args: MessageArgs & Omit<RpcMethods['continue_inspection'], 'node_id' | 'lock_token'>,
): Promise<void> {
  const node = await claimForMessage(ctx, args, [INSPECTING]);
  if (node === undefined) return;
  // The agent just spoke: with fast track it counts as up (Ironic timestamps agent_last_heartbeat).
  node.driver_internal_info = { ...node.driver_internal_info, agent_last_heartbeat: new Date().toISOString() };
  const pluginData = { ...args.plugin_data };
  try {
    const inBand = loadDriver(node).inspect.inBand;
    // The interface was changed while the node waited (Ironic allows it): nothing can take the data.
    if (inBand === undefined) throw new UnsupportedDriverExtension(node.driver, 'continue_inspection');
    const task = inspectionTask(ctx, node);
    try {
      await inBand.continue(task, args.inventory, pluginData);
    } catch (err) {
      // Ironic keeps the ramdisk's logs when its inspection hooks fail (unless "never").
      if (!shouldRetry(ctx, err)) await keepInspectionLogs(node, args.logs_key, 'failure', ctx.log);
      throw err;
    }
    await applyInspectionRules(ctx, task, args.inventory, pluginData);
    // The ramdisk's logs are kept apart from the inventory (the API staged them: logs_key).
    delete pluginData.logs;
    await storeInventory(ctx, node, args.inventory, pluginData);
    // With "always" Ironic keeps them after a successful inspection too.
    await keepInspectionLogs(node, args.logs_key, 'success', ctx.log);
  } catch (err) {
    if (shouldRetry(ctx, err)) throw err;
    node.last_error = `Failed to finish inspection: ${(err as Error).message}`;
    node.processEvent('fail');
    await ctx.nodes.save(node, { release: true });
    ctx.log.warn('Inspection processing failed', { node: node.uuid, lastError: node.last_error });
    return;
  }
  node.last_error = null;
  node.inspection_finished_at = new Date().toISOString();
  node.processEvent('done');
  await ctx.nodes.save(node, { release: true });
  ctx.log.info('Inspection finished', { node: node.uuid, state: node.provision_state });
}

/**
 * Take away what a waiting in-band inspection set up (Ironic's `inspect.abort`), for an abort or
 * a timeout: the ramdisk's boot, the power (unless fast track), the agent's token. A failure is
 * added to last_error; the node is not saved here.
 */
export async function tearDownInspection(ctx: ConductorContext, node: Node): Promise<void> {
  try {
    await loadDriver(node).inspect.inBand?.abort({ node, log: ctx.log });
  } catch (err) {
    ctx.log.error('Could not abort the inspection', { node: node.uuid, error: String(err) });
    node.last_error = `${node.last_error ?? 'Inspection failed'}. Also failed to abort inspection on node ${node.uuid}, reason: ${(err as Error).message}`;
  }
  wipeAgentToken(node);
  // The event is recorded (Ironic's node_history_record with INTROSPECTION) even when the message is the API's.
  historyEventType(node, 'introspection');
  node.last_error = node.last_error ?? null;
}
