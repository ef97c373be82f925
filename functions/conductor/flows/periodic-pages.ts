/**
 * How a periodic task walks nodes without any invocation walking the whole fleet (the shards
 * spec's lesson, applied to Ironless itself): an invocation reads at most one page's worth of
 * nodes, and before it acts on them it hands a cursor for the rest to `continueAt` (the conductor
 * invokes itself, asynchronously). The work of one invocation is thus bounded by the page, the
 * pages of a run proceed side by side, and the cost of a run grows with the nodes it must look at.
 *
 * A task that looks at nodes in a few provision states (stuck states, wait states) walks those
 * states in order through their index; the cursor names the state and the last node seen in it
 * (`<state>|<uuid>`). Empty states cost one Query each and no page budget, so a quiet fleet is
 * checked by one invocation. Without `continueAt` (tests, tools) a walk pages through everything.
 *
 * Pages are read eventually consistently (half the read units): a task acts on a node only after
 * taking its lock, which reads it afresh, or by a conditional write.
 */
import { NodeNotFound } from '#common/errors';
import type { Node } from '#objects/node';
import type { NodeStore } from '#db/nodes';
import type { ConductorContext } from '../context';

/** Nodes one invocation of a periodic task reads at most. */
export const PERIODIC_PAGE_SIZE = 100;

export interface PageWalk {
  /** Where an earlier invocation stopped (its `continuedAt`). */
  readonly cursor?: string;
  /** Nodes per invocation. @default PERIODIC_PAGE_SIZE */
  readonly pageSize?: number;
  /** Hand the rest of the walk, from this cursor, to another invocation. */
  readonly continueAt?: (cursor: string) => Promise<void>;
}

interface Position {
  readonly index: number;
  readonly marker?: string;
}

export function encodeCursor(state: string, marker?: string): string {
  return marker === undefined ? state : `${state}|${marker}`;
}

/** The position a cursor names among `states`; undefined (start over) for a cursor of no such state. */
export function decodeCursor(cursor: string | undefined, states: readonly string[]): Position | undefined {
  if (cursor === undefined) return undefined;
  const bar = cursor.indexOf('|');
  const state = bar < 0 ? cursor : cursor.slice(0, bar);
  const index = states.indexOf(state);
  if (index < 0) return undefined;
  return bar < 0 ? { index } : { index, marker: cursor.slice(bar + 1) };
}

/**
 * Walk the nodes in `states`, from `walk.cursor`, handing each page to `handle`. Returns the
 * cursor handed on, if the walk continues in another invocation.
 */
export async function walkNodesInStates(
  ctx: ConductorContext,
  states: readonly string[],
  walk: PageWalk,
  handle: (state: string, nodes: readonly Node[]) => Promise<void>,
): Promise<string | undefined> {
  const pageSize = walk.pageSize ?? PERIODIC_PAGE_SIZE;
  let position: Position | undefined = decodeCursor(walk.cursor, states) ?? { index: 0 };
  let budget = pageSize;
  while (position !== undefined) {
    const state = states[position.index]!;
    let page: { nodes: Node[]; more: boolean };
    try {
      page = await ctx.nodes.list(
        { provisionState: state },
        { limit: budget, consistent: false, ...(position.marker ? { marker: position.marker } : {}) },
      );
    } catch (err) {
      // The node the cursor names is gone: go on with the next state (the next run sees the rest).
      if (!(err instanceof NodeNotFound) || position.marker === undefined) throw err;
      position = position.index + 1 < states.length ? { index: position.index + 1 } : undefined;
      continue;
    }
    const last = page.nodes[page.nodes.length - 1]?.uuid;
    const next: Position | undefined =
      page.more && last !== undefined
        ? { index: position.index, marker: last }
        : position.index + 1 < states.length
          ? { index: position.index + 1 }
          : undefined;
    budget -= page.nodes.length;
    if (next !== undefined && budget <= 0 && walk.continueAt) {
      const cursor = encodeCursor(states[next.index]!, next.marker);
      // The rest starts now, beside this page.
      await walk.continueAt(cursor);
      await handle(state, page.nodes);
      return cursor;
    }
    await handle(state, page.nodes);
    if (budget <= 0) budget = pageSize; // walking everything here (no continueAt)
    position = next;
  }
  return undefined;
}

/**
 * Walk every node, one page per invocation, from `walk.cursor` (where an earlier invocation
 * stopped), handing each page to `handle`. Returns the cursor handed on, if the walk continues in
 * another invocation. Pages come from `NodeStore.sweep`: no order, eventually consistent, charged
 * by the bytes read (the tasks that walk everything act under a lock or by conditional writes).
 */
export async function walkAllNodes(
  nodes: Pick<NodeStore, 'sweep'>,
  walk: PageWalk,
  handle: (nodes: readonly Node[]) => Promise<void>,
): Promise<string | undefined> {
  let cursor = walk.cursor;
  do {
    const page = await nodes.sweep({ limit: walk.pageSize ?? PERIODIC_PAGE_SIZE, ...(cursor !== undefined ? { cursor } : {}) });
    if (page.cursor !== undefined && walk.continueAt) {
      // The next page starts now, beside this one: a run takes as long as its slowest page.
      await walk.continueAt(page.cursor);
      await handle(page.nodes);
      return page.cursor;
    }
    await handle(page.nodes);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return undefined;
}
