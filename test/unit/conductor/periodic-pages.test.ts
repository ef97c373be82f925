import { decodeCursor, encodeCursor, walkAllNodes, walkNodesInStates } from '../../../functions/conductor/flows/periodic-pages';
import { makeConductorContext, makeNode } from '../helpers/builders';

const STATES = ['deploying', 'cleaning', 'inspecting'];

async function fleet(counts: Record<string, number>) {
  const ctx = makeConductorContext();
  for (const [state, count] of Object.entries(counts)) {
    for (let i = 0; i < count; i++) await ctx.nodes.create(makeNode({ provision_state: state }));
  }
  return ctx;
}

describe('cursors', () => {
  it('name a state and the node after which the next page starts', () => {
    expect(encodeCursor('clean wait', 'abc')).toBe('clean wait|abc');
    expect(decodeCursor('clean wait|abc', ['deploying', 'clean wait'])).toEqual({ index: 1, marker: 'abc' });
    expect(decodeCursor('cleaning', STATES)).toEqual({ index: 1 });
  });

  it('of a state the task does not walk (an older release, a changed list) start over', () => {
    expect(decodeCursor('rescuing|abc', STATES)).toBeUndefined();
    expect(decodeCursor(undefined, STATES)).toBeUndefined();
  });
});

describe('walking nodes in states', () => {
  it('reads at most a page per invocation and hands the rest on before acting on its page', async () => {
    const ctx = await fleet({ deploying: 5, cleaning: 3, inspecting: 4, available: 20 });
    const events: string[] = [];
    const seen: string[] = [];
    let cursor: string | undefined;
    const cursors: string[] = [];
    do {
      const from: string | undefined = cursor;
      cursor = undefined;
      await walkNodesInStates(
        ctx,
        STATES,
        {
          ...(from !== undefined ? { cursor: from } : {}),
          pageSize: 4,
          continueAt: async (next) => {
            events.push('handed on');
            cursor = next;
            cursors.push(next);
          },
        },
        async (state, nodes) => {
          events.push(`${state}:${nodes.length}`);
          seen.push(...nodes.map((n) => n.uuid));
        },
      );
    } while (cursor !== undefined);
    // 12 nodes in those states, at most 4 read per invocation; each hand-off before the page it follows.
    expect(events).toEqual(['handed on', 'deploying:4', 'deploying:1', 'handed on', 'cleaning:3', 'inspecting:4']);
    expect(new Set(seen).size).toBe(12);
    expect(cursors.map((c) => c.split('|')[0])).toEqual(['deploying', 'inspecting']);
    expect(cursors[1]).toBe('inspecting');
  });

  it('walks everything in one go without continueAt', async () => {
    const ctx = await fleet({ deploying: 5, inspecting: 7 });
    const pages: number[] = [];
    expect(await walkNodesInStates(ctx, STATES, { pageSize: 3 }, async (_state, nodes) => void pages.push(nodes.length))).toBeUndefined();
    expect(pages.reduce((a, b) => a + b, 0)).toBe(12);
  });
});

describe('walking all nodes', () => {
  it('hands the next page on and handles its own', async () => {
    const ctx = await fleet({ available: 7 });
    const handed: string[] = [];
    const pages: number[] = [];
    const next = await walkAllNodes(ctx.nodes, { pageSize: 5, continueAt: async (c) => void handed.push(c) }, async (nodes) => {
      pages.push(nodes.length);
    });
    expect(pages).toEqual([5]);
    expect(handed).toEqual([next]);
    const rest: number[] = [];
    expect(
      await walkAllNodes(ctx.nodes, { cursor: next!, pageSize: 5, continueAt: async () => {} }, async (n) => void rest.push(n.length)),
    ).toBeUndefined();
    expect(rest).toEqual([2]);
  });
});
