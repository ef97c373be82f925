/** Finding the resource a path names (Ironic's `_lookup`, `get_rpc_node` and `get_rpc_node_with_suffix`). */
import {
  ConcurrentUpdate,
  NodeLocked,
  ChassisNotFound,
  Invalid,
  InvalidUuidOrName,
  NodeNotFound,
  NotFound,
  httpErrors,
  isIronicError,
  withStatus,
} from '#common/errors';
import { isOsloUuidLike } from '#common/ids';
import type { Node } from '#objects/node';
import { argUuidOrName } from './args';
import type { ApiContext } from './context';
import type { ApiRequest } from './http';
import { atLeast } from './microversion';
import { isValidLogicalName } from './names';

/**
 * The routing check every `/v1/nodes/{ident}/…` path passes first: a value that can be neither a
 * UUID nor a name is a 400 in webob's form.
 */
export function checkNodeIdent(ident: string): void {
  argUuidOrName('node', ident, httpErrors.badRequest);
}

export async function getRpcNode(req: ApiRequest, ctx: ApiContext, ident: string): Promise<Node> {
  // UUIDs are looked up as written, as Ironic's database compares them.
  if (isOsloUuidLike(ident)) return ctx.nodes.get(ident);
  if (atLeast(req.version, 5)) {
    if (isValidLogicalName(ident, req.version)) return ctx.nodes.getByName(ident);
    throw new InvalidUuidOrName(ident);
  }
  throw new NodeNotFound(ident);
}

/**
 * A node by UUID, or by name from 1.5 on. With `withSuffix` (show, update, delete), a path that
 * ended in ".json" (stripped by the router) also finds a node whose name ends in ".json".
 */
export async function findNode(req: ApiRequest, ctx: ApiContext, ident: string, withSuffix = false): Promise<Node> {
  checkNodeIdent(ident);
  try {
    return await getRpcNode(req, ctx, ident);
  } catch (err) {
    if (!(err instanceof NodeNotFound) || !withSuffix || !req.jsonSuffix) throw err;
    return getRpcNode(req, ctx, `${ident}.json`);
  }
}

/**
 * The node another node links to (`parent_node`, 1.83), by UUID or name, as its UUID (Ironic's
 * `authorize_node_link`): one message whether the node is missing or not the caller's to link to.
 */
export async function resolveParentNode(req: ApiRequest, ctx: ApiContext, ident: string): Promise<string> {
  try {
    return (await findNode(req, ctx, ident)).uuid;
  } catch (err) {
    if (!isIronicError(err) || err.code >= 500) throw err;
    throw new Invalid(`Unable to apply the requested parent_node '${ident}'. Requested value was invalid.`);
  }
}

/** The nodes whose ports have these addresses (Ironic's get_by_port_addresses looks for exactly one). */
export async function portOwners(ctx: ApiContext, addresses: readonly string[]): Promise<Set<string>> {
  const owners = new Set<string>();
  for (const address of addresses) {
    try {
      owners.add((await ctx.stores.ports.getByAddress(address)).node_uuid);
    } catch (err) {
      if (!(err instanceof NotFound)) throw err;
    }
  }
  return owners;
}

/** Whether a node's lock is held right now (an expired lock does not count). */
export function isLocked(node: Node, now: number = Date.now()): boolean {
  return node.reservation !== null && (node.storeMeta?.lockExpiresAt ?? 0) >= now;
}

/** Ironic's `[conductor]node_locked_retry_attempts` and `node_locked_retry_interval` (seconds). */
export const NODE_LOCKED_RETRY = { attempts: 3, intervalSeconds: 1 } as const;

/**
 * The node once nothing holds it: Ironic's conductor, asked to act on a node another task holds,
 * tries the lock again (3 times, 1 s apart) before answering NodeLocked, so a client acting right
 * after the previous action finished (a power off just after a reboot) never sees a 409. Here the
 * API waits the same way, reading the node again; `busy` adds what else counts as held (a power
 * action in progress). The node returned is the fresh one.
 */
export async function whenUnlocked(
  ctx: Pick<ApiContext, 'nodes'>,
  node: Node,
  busy: (node: Node) => boolean = () => false,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<Node> {
  let current = node;
  for (let attempt = 0; isLocked(current) || busy(current); attempt++) {
    if (attempt >= NODE_LOCKED_RETRY.attempts) throw new NodeLocked(current.uuid, current.reservation ?? 'a power action in progress');
    await sleep(NODE_LOCKED_RETRY.intervalSeconds * 1000);
    current = await ctx.nodes.get(current.uuid);
  }
  return current;
}

/** How an update that lost a conditional write is tried again (`retryOnConflict`). */
export const CONFLICT_RETRY = { attempts: 8, firstPauseMs: 20, maxPauseMs: 400 } as const;

/**
 * Run `attempt` again while it loses a conditional write to another writer (ConcurrentUpdate),
 * after a pause drawn at random up to 20 ms, doubling to at most 400 ms (full jitter, as AWS
 * advises for contended writes), at most 8 times: about 1.6 s in the worst case, inside the 3 s
 * Ironic's conductor waits for a node's lock. Updates racing on one item then spread out instead
 * of retrying in lock step, and a client sees a 409 only when the item stays contended that long.
 */
export async function retryOnConflict<T>(
  attempt: () => Promise<T>,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  random: () => number = Math.random,
): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof ConcurrentUpdate) || tries >= CONFLICT_RETRY.attempts) throw err;
    }
    const ceiling = Math.min(CONFLICT_RETRY.maxPauseMs, CONFLICT_RETRY.firstPauseMs * 2 ** (tries - 1));
    await sleep(Math.floor(random() * ceiling));
  }
}

/**
 * The chassis a node names, by UUID: an unknown one is a ChassisNotFound, which node requests
 * answer with 400 (Ironic's `_replace_chassis_uuid_with_id`) and the node list with `status`.
 */
export async function requireChassis(ctx: ApiContext, uuid: string, status = 400): Promise<string> {
  try {
    return (await ctx.stores.chassis.get(uuid)).uuid;
  } catch (err) {
    if (err instanceof ChassisNotFound) throw withStatus(err, status);
    throw err;
  }
}
