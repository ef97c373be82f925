/**
 * The power-state sync periodic task (Ironic's `_sync_power_states`, `do_sync_power_state` and
 * `_power_failure_recovery`). Each node's power state is read from its BMC. When it differs from
 * the recorded one, the hardware is powered back to the recorded state (Ironic's default,
 * `[conductor]force_power_state_during_sync`), or with that option off the new state is recorded;
 * a node without a recorded state gets the one read. A BMC that cannot be read, or hardware that
 * keeps differing, is counted; after `power_state_sync_max_retries` such runs in a row the node
 * takes the state read and goes into maintenance with fault "power failure". A node in that fault
 * whose BMC answers again comes out of maintenance. Nodes being worked on (locked, with a power
 * action in progress, in a wait state or in a firmware update) and nodes in maintenance for other
 * reasons are skipped. Every change is a conditional write: a node changed meanwhile is skipped.
 *
 * No invocation walks the whole fleet (the shards spec's lesson, applied to Ironless itself): an
 * invocation syncs one page of nodes, and before it starts on its BMCs it hands the next page's
 * marker to `continueAt` (the conductor invokes itself, asynchronously, with that cursor). Pages
 * are thus synced side by side, each in bounded time however slow its BMCs, and the cost of a run
 * grows with the page, not with the fleet. Without `continueAt` (tests, tools) it pages through
 * everything itself. Pages are read by `NodeStore.sweep`, a scan of the node table, which DynamoDB
 * charges by the bytes read rather than per node.
 */
import { ConcurrentUpdate, NodeLocked } from '#common/errors';
import { newUuid } from '#common/ids';
import { ADOPTFAIL, CLEANWAIT, DEPLOYWAIT, ENROLL, ERROR, FAILURE_STATES, POWER_OFF } from '#common/states';
import { wipeOnPowerOff } from '#drivers/agent/token';
import { FW_UPDATES_KEY } from '#drivers/redfish/firmware-update-state';
import { loadDriver } from '#drivers/registry';
import type { Node } from '#objects/node';
import type { ConductorContext } from '../context';
import { abandoned, clearAbandonedPowerAction } from './abandoned-power';
import { lockOwner } from '../lock';
import { cacheHealth } from './health';
import { PERIODIC_PAGE_SIZE, walkAllNodes } from './periodic-pages';

/** States whose nodes the sync leaves alone (Ironic's SYNC_EXCLUDED_STATES). */
const EXCLUDED = [DEPLOYWAIT, CLEANWAIT, ENROLL, ADOPTFAIL];
export const POWER_FAILURE = 'power failure';
/**
 * driver_internal_info key counting the runs in a row that could not read the BMC or found the
 * hardware still differing (Ironic keeps the count in its conductor's memory; a Lambda has none).
 */
const FAILURES = 'power_sync_failures';

export interface PowerSyncResult {
  checked: number;
  corrected: number;
  failed: number;
  maintenance: number;
  recovered: number;
  /** Nodes whose hardware was powered back to the recorded state. */
  forced: number;
  /** Power targets left by an invocation that died, cleared (see abandoned-power.ts). */
  abandoned: number;
}

export interface PowerSyncOptions {
  /** @default the conductor's `[conductor]power_state_sync_max_retries` */
  readonly maxRetries?: number;
  /** Nodes of a page synced at once. @default the conductor's `[conductor]sync_power_state_workers` */
  readonly concurrency?: number;
  /** @default the conductor's `[conductor]force_power_state_during_sync` */
  readonly force?: boolean;
  readonly now?: number;
  /** Start after this node (a cursor handed on by the invocation before). */
  readonly marker?: string;
  /** Nodes per page. @default PERIODIC_PAGE_SIZE (100) */
  readonly pageSize?: number;
  /** Hand the rest of the fleet, from this marker, to another invocation. */
  readonly continueAt?: (marker: string) => Promise<void>;
}

/** The nodes' power states synced, and where the next invocation goes on (if one was started). */
export type PowerSyncRun = PowerSyncResult & { continuedAt?: string };

export async function syncPowerStates(ctx: ConductorContext, options: PowerSyncOptions = {}): Promise<PowerSyncRun> {
  const sync: SyncSettings = {
    maxRetries: options.maxRetries ?? ctx.config.powerSync.maxRetries,
    force: options.force ?? ctx.config.powerSync.force,
  };
  const now = options.now ?? Date.now();
  const result: PowerSyncRun = { checked: 0, corrected: 0, failed: 0, maintenance: 0, recovered: 0, forced: 0, abandoned: 0 };
  const walk = {
    pageSize: options.pageSize ?? PERIODIC_PAGE_SIZE,
    ...(options.marker !== undefined ? { cursor: options.marker } : {}),
    ...(options.continueAt ? { continueAt: options.continueAt } : {}),
  };
  const continuedAt = await walkAllNodes(ctx.nodes, walk, async (page) => {
    for (const node of page.filter((n) => abandoned(n, now))) {
      if (await clearAbandonedPowerAction(ctx, node)) result.abandoned++;
    }
    const candidates = page.filter((node) => !busy(node, now));
    await inBatches(candidates, options.concurrency ?? ctx.config.powerSync.workers, async (node) => {
      try {
        await syncOne(ctx, node, sync, result);
      } catch (err) {
        if (err instanceof ConcurrentUpdate || err instanceof NodeLocked) return; // changed meanwhile: next run
        ctx.log.error('Power sync of a node failed', { node: node.uuid, error: String(err) });
      }
    });
  });
  if (continuedAt !== undefined) result.continuedAt = continuedAt;
  return result;
}

function busy(node: Node, now: number): boolean {
  const locked = node.reservation !== null && (node.storeMeta?.lockExpiresAt ?? 0) >= now;
  return locked || node.target_power_state !== null;
}

interface SyncSettings {
  readonly maxRetries: number;
  readonly force: boolean;
}

const failuresOf = (node: Node): number =>
  typeof node.driver_internal_info[FAILURES] === 'number' ? (node.driver_internal_info[FAILURES] as number) : 0;

async function syncOne(ctx: ConductorContext, node: Node, sync: SyncSettings, result: PowerSyncResult): Promise<void> {
  const recovering = node.maintenance && node.fault === POWER_FAILURE;
  if (node.maintenance && !recovering) return;
  if (EXCLUDED.includes(node.provision_state)) return;
  // A BMC may not answer while it updates its firmware, and power cycling could interrupt the update.
  if (!recovering && node.driver_internal_info[FW_UPDATES_KEY] !== undefined) return;
  result.checked++;
  const task = { node, log: ctx.log };
  let actual: string | null;
  try {
    const driver = loadDriver(node);
    if (node.power_state === null) {
      // Without a recorded state, a node whose power settings are not valid is not synced at all.
      try {
        await driver.power.validate(task);
      } catch {
        result.checked--;
        return;
      }
    }
    actual = await driver.power.getPowerState(task);
    if (actual === ERROR) throw new Error('Power driver returned ERROR state while trying to sync power state.');
  } catch (err) {
    if (recovering) return; // still failing: stays in maintenance
    const count = failuresOf(node) + 1;
    result.failed++;
    if (count > sync.maxRetries) {
      maxRetriesExceeded(ctx, node, null, (err as Error).message);
      result.maintenance++;
    } else {
      ctx.log.warn(
        `During sync_power_state, could not get power state for node ${node.uuid}, attempt ${count} of ${sync.maxRetries}. Error: ${(err as Error).message}.`,
      );
      setFailures(node, count);
    }
    await ctx.nodes.save(node);
    return;
  }
  if (recovering) {
    node.power_state = actual;
    node.maintenance = false;
    node.maintenance_reason = null;
    node.fault = null;
    setFailures(node, undefined);
    await ctx.nodes.save(node);
    result.recovered++;
    ctx.log.info(`Node ${node.uuid} is recovered from power failure with actual power state '${actual}'.`);
    return;
  }
  // Ironic's node_cache_health, on each node whose power state could be read.
  const healthChanged = await cacheHealth(ctx, node);
  if (node.power_state === actual) {
    const hadFailures = node.driver_internal_info[FAILURES] !== undefined;
    if (hadFailures) setFailures(node, undefined);
    if (hadFailures || healthChanged) await ctx.nodes.save(node);
    return;
  }
  if (node.power_state === null) {
    ctx.log.info(`During sync_power_state, node ${node.uuid} has no previous known state. Recording current state '${actual}'.`);
    node.power_state = actual;
    setFailures(node, undefined);
    await ctx.nodes.save(node);
    result.corrected++;
    return;
  }
  const count = failuresOf(node) + 1;
  if (count > sync.maxRetries) {
    maxRetriesExceeded(ctx, node, actual);
    await ctx.nodes.save(node);
    result.maintenance++;
    return;
  }
  if (sync.force && !node.disable_power_off) {
    ctx.log.warn(
      `During sync_power_state, node ${node.uuid} state '${actual ?? 'None'}' does not match expected state. Changing hardware state to '${node.power_state}'.`,
    );
    if (await forcePowerState(ctx, node, count, sync.maxRetries)) result.forced++;
    return;
  }
  ctx.log.warn(
    `During sync_power_state, node ${node.uuid} state does not match expected state '${node.power_state}'. Updating recorded state to '${actual ?? 'None'}'.`,
  );
  node.power_state = actual;
  setFailures(node, undefined);
  await ctx.nodes.save(node);
  result.corrected++;
}

/**
 * Ironic's handle_sync_power_state_max_retries_exceeded: the node takes the state read (none when
 * the BMC could not be read) and goes into maintenance with fault "power failure".
 */
function maxRetriesExceeded(ctx: ConductorContext, node: Node, actual: string | null, error?: string): void {
  let message =
    `During sync_power_state, max retries exceeded for node ${node.uuid}, node state ${actual ?? 'None'} does not match expected state '${node.power_state ?? 'None'}'. ` +
    `Updating DB state to '${actual ?? 'None'}' Switching node to maintenance mode.`;
  if (error !== undefined) message += ` Error: ${error}`;
  node.power_state = actual;
  node.maintenance = true;
  node.maintenance_reason = message;
  node.fault = POWER_FAILURE;
  node.last_error = message;
  setFailures(node, undefined);
  ctx.log.error(message);
}

/**
 * Power the hardware back to the node's recorded state, as Ironic's node_power_action does for the
 * sync: under the node's lock (checked again there, as Ironic upgrades its lock), with
 * `target_power_state` shown while the BMC works; the run is counted on the node either way.
 * False when the node changed meanwhile or the action failed.
 */
async function forcePowerState(ctx: ConductorContext, seen: Node, count: number, maxRetries: number): Promise<boolean> {
  const node = await ctx.nodes.reserve(seen.uuid, lockOwner(ctx, `periodic:${newUuid()}`));
  const target = node.power_state;
  if (
    target !== seen.power_state ||
    target === null ||
    node.maintenance ||
    node.target_power_state !== null ||
    EXCLUDED.includes(node.provision_state)
  ) {
    await ctx.nodes.release(node);
    return false;
  }
  node.target_power_state = target;
  if (!FAILURE_STATES.includes(node.provision_state)) node.last_error = null;
  if (target === POWER_OFF) wipeOnPowerOff(node);
  await ctx.nodes.save(node);
  let forced = false;
  try {
    await loadDriver(node).power.setPowerState({ node, log: ctx.log }, target);
    ctx.log.info(`Successfully set node ${node.uuid} power state to ${target} by ${target}.`);
    forced = true;
  } catch (err) {
    node.last_error = `Failed to change power state to '${target}' by '${target}': ${(err as Error).message}`;
    ctx.log.error(`Failed to change power state of node ${node.uuid} to '${target}', attempt ${count} of ${maxRetries}.`);
  }
  node.target_power_state = null;
  setFailures(node, count);
  await ctx.nodes.save(node, { release: true });
  return forced;
}

function setFailures(node: Node, count: number | undefined): void {
  const info = { ...node.driver_internal_info };
  if (count === undefined) delete info[FAILURES];
  else info[FAILURES] = count;
  node.driver_internal_info = info;
}

async function inBatches<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}
