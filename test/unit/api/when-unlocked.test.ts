/**
 * Ironic's lock retries at the API: a node held by another task is read again, 1 s apart, up to
 * 3 times; the fresh node is returned once free, NodeLocked (409) after that.
 */
import { NodeLocked } from '../../../functions/common/errors';
import { NODE_LOCKED_RETRY, whenUnlocked } from '../../../functions/api/lookup';
import { Node } from '../../../functions/objects/node';
import { makeNode } from '../helpers/builders';

function held(node: Node, reservation: string | null, target_power_state: string | null = null): Node {
  const copy = new Node({ ...node.toData(), reservation, target_power_state });
  copy.storeMeta = { ...(copy.storeMeta ?? {}), lockExpiresAt: reservation ? Date.now() + 60_000 : 0 } as Node['storeMeta'];
  return copy;
}

function store(reads: Node[]) {
  let n = 0;
  return { nodes: { get: async () => reads[Math.min(n++, reads.length - 1)] as Node } } as never;
}

const sleeps: number[] = [];
const sleep = async (ms: number) => {
  sleeps.push(ms);
};

beforeEach(() => {
  sleeps.length = 0;
});

it('returns a free node at once', async () => {
  const node = makeNode();
  expect(await whenUnlocked(store([]), node, undefined, sleep)).toBe(node);
  expect(sleeps).toEqual([]);
});

it('reads a held node again until it is free, and returns the fresh node', async () => {
  const node = makeNode({ provision_state: 'active' });
  const free = held(node, null);
  const result = await whenUnlocked(store([held(node, 'conductor:1'), free]), held(node, 'conductor:1'), undefined, sleep);
  expect(result).toBe(free);
  expect(sleeps).toEqual([1000, 1000]);
});

it('counts a power action in progress as held when asked', async () => {
  const node = makeNode();
  const free = held(node, null, null);
  const busy = (n: Node) => n.target_power_state !== null;
  expect(await whenUnlocked(store([free]), held(node, null, 'power off'), busy, sleep)).toBe(free);
});

it(`answers NodeLocked after ${NODE_LOCKED_RETRY.attempts} retries`, async () => {
  const node = makeNode();
  await expect(whenUnlocked(store([held(node, 'conductor:1')]), held(node, 'conductor:1'), undefined, sleep)).rejects.toThrow(NodeLocked);
  expect(sleeps).toHaveLength(NODE_LOCKED_RETRY.attempts);
});
