/**
 * The power-state sync periodic task (Ironic's `_sync_power_states` and `_power_failure_recovery`).
 * Each node's power state is read from its BMC: a state changed out of band is recorded; a BMC
 * that cannot be read is retried on the next runs and, after `maxRetries` failures in a row, the
 * node goes into maintenance with fault "power failure". A node in that fault whose BMC answers
 * again comes out of maintenance. Nodes being worked on (locked, or with a power action in
 * progress) are skipped. Every change is a conditional write: a node changed meanwhile is skipped.
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
import { ADOPTFAIL, CLEANWAIT, DEPLOYWAIT, ENROLL } from '#common/states';
import { loadDriver } from '#drivers/registry';
import type { Node } from '#objects/node';
import type { ConductorContext } from '../context';
import { abandoned, clearAbandonedPowerAction } from './abandoned-power';
import { cacheHealth } from './health';
import { PERIODIC_PAGE_SIZE, walkAllNodes } from './periodic-pages';

/** States whose power state is not corrected (Ironic's SYNC_EXCLUDED_STATES). */
const EXCLUDED = [DEPLOYWAIT, CLEANWAIT, ENROLL, ADOPTFAIL];
export const POWER_FAILURE = 'power failure';
/** driver_internal_info key counting consecutive failed reads (Ironic keeps it in conductor memory). */
const FAILURES = 'power_sync_failures';

export interface PowerSyncResult {
  checked: number;
  corrected: number;
  failed: number;
  maintenance: number;
  recovered: number;
  /** Power targets left by an invocation that died, cleared (see abandoned-power.ts). */
  abandoned: number;
}

export interface PowerSyncOptions {
  readonly maxRetries?: number;
  readonly concurrency?: number;
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
  const maxRetries = options.maxRetries ?? 3;
  const now = options.now ?? Date.now();
  const result: PowerSyncRun = { checked: 0, corrected: 0, failed: 0, maintenance: 0, recovered: 0, abandoned: 0 };
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
    await inBatches(candidates, options.concurrency ?? 8, async (node) => {
      try {
        await syncOne(ctx, node, maxRetries, result);
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

async function syncOne(ctx: ConductorContext, node: Node, maxRetries: number, result: PowerSyncResult): Promise<void> {
  const recovering = node.maintenance && node.fault === POWER_FAILURE;
  if (node.maintenance && !recovering) return;
  if (recovering && node.provision_state === ENROLL) return;
  result.checked++;
  const task = { node, log: ctx.log };
  let actual: string | null;
  try {
    const driver = loadDriver(node);
    await driver.power.validate(task);
    actual = await driver.power.getPowerState(task);
  } catch (err) {
    if (recovering) return; // still failing: stays in maintenance
    const count = (typeof node.driver_internal_info[FAILURES] === 'number' ? (node.driver_internal_info[FAILURES] as number) : 0) + 1;
    result.failed++;
    if (count > maxRetries) {
      const message =
        `During sync_power_state, max retries exceeded for node ${node.uuid}, node state None does not match expected state '${node.power_state ?? 'None'}'. ` +
        `Updating DB state to 'None' Switching node to maintenance mode. Error: ${(err as Error).message}`;
      node.power_state = null;
      node.maintenance = true;
      node.maintenance_reason = message;
      node.fault = POWER_FAILURE;
      node.last_error = message;
      setFailures(node, undefined);
      result.maintenance++;
      ctx.log.error(message);
    } else {
      ctx.log.warn(
        `During sync_power_state, could not get power state for node ${node.uuid}, attempt ${count} of ${maxRetries}. Error: ${(err as Error).message}.`,
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
  const hadFailures = node.driver_internal_info[FAILURES] !== undefined;
  if (hadFailures) setFailures(node, undefined);
  // Ironic's node_cache_health, on each node whose power state could be read.
  const healthChanged = await cacheHealth(ctx, node);
  if (node.power_state === actual || (node.power_state !== null && EXCLUDED.includes(node.provision_state))) {
    if (hadFailures || healthChanged) await ctx.nodes.save(node);
    return;
  }
  ctx.log.warn(
    `During sync_power_state, node ${node.uuid} state does not match expected state '${node.power_state ?? 'None'}'. Updating recorded state to '${actual}'.`,
  );
  node.power_state = actual;
  await ctx.nodes.save(node);
  result.corrected++;
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
