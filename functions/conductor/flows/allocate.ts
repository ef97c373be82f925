/**
 * The allocation process (Ironic's `conductor/allocations.py` do_allocate): find the available
 * nodes that suit an allocation, try them in random order (a node named like the allocation
 * first), and take the first one whose lock can be had and that still suits once locked. Taking it
 * is: instance_uuid = the allocation's UUID on the node (a conditional write under the node lock;
 * the unique instance guard refuses a second node with the same instance), then the allocation
 * becomes active with the node. Nothing suitable: the allocation is in `error` with Ironic's message.
 *
 * Two allocations racing for one node never both get it: only one can hold the node's lock, and
 * the other finds the node associated once it gets the lock. Nodes locked by someone else are
 * retried (all of them together, as Ironic does) a few times before giving up.
 *
 * At-least-once delivery: an allocation no longer `allocating` was handled already; one whose
 * node was associated before a crash (found by its instance UUID) is finished, not allocated twice.
 */
import { ALLOCATING, ALLOCATION_ACTIVE, ALLOCATION_ERROR, nodeSuits } from '#common/allocation-rules';
import { AllocationFailed, AllocationNotFound, ConcurrentUpdate, DatabaseUnavailable, NodeLocked, NodeNotFound } from '#common/errors';
import { AVAILABLE } from '#common/states';
import type { Allocation } from '#objects/allocation';
import type { Node } from '#objects/node';
import type { ConductorContext } from '../context';
import { lockOwner } from '../lock';

export interface AllocateOptions {
  /** Ironic's `[conductor]node_locked_retry_attempts` (3). */
  readonly attempts?: number;
  /** Ironic's `[conductor]node_locked_retry_interval` (1 s), in milliseconds. */
  readonly retryIntervalMs?: number;
  /** Shuffles the candidates (tests pass a fixed order). */
  readonly shuffle?: <T>(items: T[]) => T[];
}

const PAGE = 1000;

function shuffled<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

/** The lock token of an allocation: the same for a redelivered message, so a crash is resumable. */
const tokenOf = (allocation: Allocation) => `allocation:${allocation.uuid}`;

export async function doAllocate(ctx: ConductorContext, args: { allocation_id: string }, options: AllocateOptions = {}): Promise<void> {
  let allocation: Allocation;
  try {
    allocation = await ctx.stores.allocations.get(args.allocation_id);
  } catch (err) {
    if (err instanceof AllocationNotFound) return ctx.log.info('Allocation gone before processing', { allocation: args.allocation_id });
    throw err;
  }
  if (allocation.state !== ALLOCATING)
    return ctx.log.info('Allocation already processed', { allocation: allocation.uuid, state: allocation.state });
  try {
    if (await resumeAssociated(ctx, allocation)) return;
    const nodes = await candidateNodes(ctx, allocation, options.shuffle ?? shuffled);
    await allocateNode(ctx, allocation, nodes, options);
  } catch (err) {
    // DynamoDB unavailable: the allocation stays `allocating` and the message is retried (its
    // node locks are the allocation's, so the retry resumes them).
    if (err instanceof DatabaseUnavailable) throw err;
    const reason = err instanceof AllocationFailed ? err.message : `Unexpected exception during allocation: ${(err as Error).message}`;
    if (err instanceof AllocationFailed) ctx.log.error(reason);
    else ctx.log.error('Unexpected exception during allocation', { allocation: allocation.uuid, error: String(err) });
    await failAllocation(ctx, allocation, reason);
  }
}

/** A node already holding this allocation's UUID as its instance (a crash between the two writes). */
async function resumeAssociated(ctx: ConductorContext, allocation: Allocation): Promise<boolean> {
  let node: Node;
  try {
    node = await ctx.nodes.getByInstance(allocation.uuid);
  } catch (err) {
    if (err instanceof NodeNotFound) return false;
    throw err;
  }
  if (node.allocation_uuid !== allocation.uuid) return false;
  const locked = await ctx.nodes.reserve(node.uuid, lockOwner(ctx, tokenOf(allocation)));
  try {
    await markActive(ctx, allocation, locked);
  } finally {
    await ctx.nodes.release(locked);
  }
  return true;
}

async function candidateNodes(ctx: ConductorContext, allocation: Allocation, shuffle: <T>(items: T[]) => T[]): Promise<Node[]> {
  const found: Node[] = [];
  let marker: string | undefined;
  for (;;) {
    const page = await ctx.nodes.list(
      {
        provisionState: AVAILABLE,
        associated: false,
        maintenance: false,
        ...(allocation.resource_class !== null ? { resourceClass: allocation.resource_class } : {}),
        ...(allocation.owner ? { project: allocation.owner } : {}),
      },
      { limit: PAGE, ...(marker !== undefined ? { marker } : {}) },
    );
    found.push(...page.nodes);
    const last = page.nodes[page.nodes.length - 1];
    if (!page.more || last === undefined) break;
    marker = last.uuid;
  }
  const withoutTraits = { ...allocation.toData(), traits: null } as unknown as Allocation;
  let nodes = found.filter((n) => nodeSuits(n, withoutTraits));
  const rc = String(allocation.resource_class);
  if (nodes.length === 0) {
    const error =
      allocation.candidate_nodes && allocation.candidate_nodes.length > 0
        ? `none of the requested nodes are available and match the resource class ${rc}`
        : `no available nodes match the resource class ${rc}`;
    throw new AllocationFailed(allocation.uuid, error);
  }
  if (allocation.traits && allocation.traits.length > 0) {
    nodes = nodes.filter((n) => nodeSuits(n, allocation));
    if (nodes.length === 0) {
      throw new AllocationFailed(
        allocation.uuid,
        `no suitable nodes have the requested traits ${[...new Set(allocation.traits)].join(', ')}`,
      );
    }
  }
  nodes = shuffle(nodes);
  const named = allocation.name ? nodes.findIndex((n) => n.name === allocation.name) : -1;
  if (named > 0) nodes.unshift(...nodes.splice(named, 1));
  ctx.log.debug('Allocation candidates', { allocation: allocation.uuid, count: nodes.length });
  return nodes;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function allocateNode(ctx: ConductorContext, allocation: Allocation, candidates: Node[], options: AllocateOptions): Promise<void> {
  const attempts = options.attempts ?? 3;
  let nodes = candidates;
  for (let attempt = 1; ; attempt++) {
    const retry: Node[] = [];
    for (const candidate of nodes) {
      let node: Node;
      try {
        node = await ctx.nodes.reserve(candidate.uuid, lockOwner(ctx, tokenOf(allocation)));
      } catch (err) {
        if (err instanceof NodeLocked) retry.push(candidate);
        else if (!(err instanceof NodeNotFound)) throw err;
        continue;
      }
      try {
        // The node may have changed before we locked it: check again.
        if (!nodeSuits(node, allocation)) continue;
        await associate(ctx, allocation, node);
        ctx.log.info('Node reserved for allocation', { node: node.uuid, allocation: allocation.uuid });
        return;
      } finally {
        await ctx.nodes
          .release(node)
          .catch((err: unknown) => ctx.log.warn('Could not release the node', { node: node.uuid, error: String(err) }));
      }
    }
    nodes = retry;
    const error =
      nodes.length > 0 ? `could not reserve any of ${nodes.length} suitable nodes` : 'all nodes were filtered out during reservation';
    if (nodes.length === 0 || attempt >= attempts) throw new AllocationFailed(allocation.uuid, error);
    await sleep(options.retryIntervalMs ?? 1000);
  }
}

/** Associate the locked node with the allocation, then mark the allocation active; undo the node if the allocation is gone. */
async function associate(ctx: ConductorContext, allocation: Allocation, node: Node): Promise<void> {
  node.instance_uuid = allocation.uuid;
  node.allocation_uuid = allocation.uuid;
  node.instance_info = { ...node.instance_info, traits: allocation.traits ?? [] };
  await ctx.nodes.save(node);
  try {
    await markActive(ctx, allocation, node);
  } catch (err) {
    if (!(err instanceof AllocationNotFound)) throw err;
    ctx.log.info('Allocation deleted while allocating; freeing the node', { allocation: allocation.uuid, node: node.uuid });
    node.instance_uuid = null;
    node.allocation_uuid = null;
    await ctx.nodes.save(node);
  }
}

/** Save the allocation active on `node`; a concurrent update of name or extra is re-read and retried. */
async function markActive(ctx: ConductorContext, allocation: Allocation, node: Node): Promise<void> {
  let current = allocation;
  for (let tries = 0; ; tries++) {
    current.node_uuid = node.uuid;
    current.state = ALLOCATION_ACTIVE;
    current.updated_at = new Date().toISOString();
    try {
      await ctx.stores.allocations.save(current);
      return;
    } catch (err) {
      if (!(err instanceof ConcurrentUpdate) || tries >= 3) throw err;
      current = await ctx.stores.allocations.get(allocation.uuid);
    }
  }
}

async function failAllocation(ctx: ConductorContext, allocation: Allocation, reason: string): Promise<void> {
  let current = allocation;
  for (let tries = 0; tries < 4; tries++) {
    current.node_uuid = null;
    current.state = ALLOCATION_ERROR;
    current.last_error = reason;
    current.updated_at = new Date().toISOString();
    try {
      await ctx.stores.allocations.save(current);
      return;
    } catch (err) {
      if (err instanceof AllocationNotFound)
        return ctx.log.debug('Not saving a failed allocation: it is gone', { allocation: allocation.uuid });
      if (!(err instanceof ConcurrentUpdate)) throw err;
      current = await ctx.stores.allocations.get(allocation.uuid);
    }
  }
}

/**
 * Remove the allocation a node held, once the node no longer holds it (tear-down; Ironic destroys
 * it in the same step). One already gone is fine; one changed meanwhile is read again.
 */
export async function destroyReleasedAllocation(ctx: { stores: ConductorContext['stores'] }, uuid: string): Promise<void> {
  for (let tries = 0; tries < 3; tries++) {
    try {
      await ctx.stores.allocations.destroy(await ctx.stores.allocations.get(uuid));
      return;
    } catch (err) {
      if (err instanceof AllocationNotFound) return;
      if (!(err instanceof ConcurrentUpdate)) throw err;
    }
  }
}
