/**
 * The plan's table reads by key (`getManyPooled`): one BatchGetItem-sized request of at most 100
 * keys per job, `--concurrency` of them in flight at once, the results in the keys' order.
 */
import { getManyPooled } from '../../../bin/import/lookups';

const keys = (n: number) => Array.from({ length: n }, (_, i) => `k${i}`);

/** A store's `getMany` that records its calls and how many are in flight; odd keys are missing. */
function fakeStore(delayMs = 5) {
  const calls: string[][] = [];
  let inFlight = 0;
  let peak = 0;
  const getMany = async (chunk: readonly string[]) => {
    calls.push([...chunk]);
    inFlight++;
    peak = Math.max(peak, inFlight);
    // Later chunks answer first: the order of the result must not depend on timing.
    await new Promise((r) => setTimeout(r, delayMs * (1 + ((1000 - calls.length) % 3))));
    inFlight--;
    return chunk.filter((k) => Number(k.slice(1)) % 2 === 0).map((k) => ({ uuid: k }));
  };
  return { getMany, calls, peak: () => peak };
}

describe('getManyPooled', () => {
  it('reads 100 keys per request, up to the concurrency at once, keeping the keys’ order', async () => {
    const store = fakeStore();
    const wanted = keys(1050);
    const found = await getManyPooled(store.getMany, wanted, 4);
    expect(store.calls.map((c) => c.length)).toEqual([100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 50]);
    expect(store.calls.flat()).toEqual(wanted);
    expect(store.peak()).toBe(4);
    expect(found.map((f) => f.uuid)).toEqual(wanted.filter((_, i) => i % 2 === 0));
  });

  it('sends nothing for no keys and one request for a few', async () => {
    const store = fakeStore();
    expect(await getManyPooled(store.getMany, [], 16)).toEqual([]);
    expect(store.calls).toEqual([]);
    expect((await getManyPooled(store.getMany, keys(3), 16)).map((f) => f.uuid)).toEqual(['k0', 'k2']);
    expect(store.calls).toEqual([['k0', 'k1', 'k2']]);
  });

  it('fails when a request fails', async () => {
    const getMany = async (chunk: readonly string[]) => {
      if (chunk.includes('k150')) throw Object.assign(new Error('Requested resource not found'), { name: 'ResourceNotFoundException' });
      return [];
    };
    await expect(getManyPooled(getMany, keys(300), 2)).rejects.toThrow('Requested resource not found');
  });
});
