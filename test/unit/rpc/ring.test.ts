/** Routing nodes to live conductors (Ironic's hash ring) and the errors when none serves a node. */
import { NoValidHost, TemporaryFailure } from '../../../functions/common/errors';
import { ConductorRing, isAlive } from '../../../functions/rpc/ring';
import { MemoryConductorStore } from '../helpers/memory-stores';

const NODE = { uuid: '11111111-1111-4111-8111-111111111111', driver: 'fake-hardware', conductor_group: '' };

function setup() {
  let now = Date.parse('2026-11-22T06:00:00Z');
  const store = new MemoryConductorStore();
  store.now = () => now;
  const ring = new ConductorRing(store, { heartbeatTimeoutSeconds: 60, cacheSeconds: 15, now: () => now });
  return { store, ring, advance: (ms: number) => (now += ms) };
}

describe('ConductorRing', () => {
  it('maps a node to a live conductor of its group serving its driver, the same one every time', async () => {
    const { store, ring } = setup();
    await store.register({ hostname: 'conductor:1', conductorGroup: '', drivers: ['fake-hardware'] });
    await store.register({ hostname: 'conductor:2', conductorGroup: '', drivers: ['fake-hardware'] });
    await store.register({ hostname: 'conductor:1:rack', conductorGroup: 'rack', drivers: ['fake-hardware'] });
    const host = await ring.conductorFor(NODE);
    expect(['conductor:1', 'conductor:2']).toContain(host);
    expect(await ring.conductorFor(NODE)).toBe(host);
    expect(await ring.conductorFor({ ...NODE, conductor_group: 'RACK' })).toBe('conductor:1:rack');
  });

  it('counts a conductor dead once its heartbeat is older than heartbeat_timeout', async () => {
    const { store, ring, advance } = setup();
    await store.register({ hostname: 'conductor:1', conductorGroup: '', drivers: ['fake-hardware'] });
    await store.register({ hostname: 'conductor:1:rack', conductorGroup: 'rack', drivers: ['fake-hardware'] });
    advance(61_000);
    await store.touch('conductor:1:rack');
    const c = await store.get('conductor:1');
    expect(isAlive(c, 60, Date.parse('2026-11-22T06:01:01Z'))).toBe(false);
    await expect(ring.conductorFor(NODE)).rejects.toThrow(
      new NoValidHost(
        'No valid host was found. Reason: No conductor service registered which supports driver fake-hardware for conductor group "".',
      ),
    );
    expect(await ring.conductorOrNull(NODE)).toBeNull();
  });

  it('answers TemporaryFailure (503) when no conductor at all is alive, as Ironic', async () => {
    const { ring } = setup();
    const err = await ring.conductorFor(NODE).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TemporaryFailure);
    expect((err as TemporaryFailure).code).toBe(503);
    expect((err as Error).message).toBe('Resource temporarily unavailable, please retry.');
  });

  it('refuses a driver no live conductor serves', async () => {
    const { store, ring } = setup();
    await store.register({ hostname: 'conductor:1', conductorGroup: '', drivers: ['fake-hardware'] });
    await expect(ring.conductorFor({ ...NODE, driver: 'redfish' })).rejects.toBeInstanceOf(NoValidHost);
  });

  it('re-reads the conductors before refusing, so one that just registered is seen at once', async () => {
    const { store, ring, advance } = setup();
    await store.register({ hostname: 'conductor:1', conductorGroup: '', drivers: ['fake-hardware'] });
    expect(await ring.conductorFor(NODE)).toBe('conductor:1');
    await store.register({ hostname: 'conductor:1:rack', conductorGroup: 'rack', drivers: ['fake-hardware'] });
    advance(1_500);
    expect(await ring.conductorFor({ ...NODE, conductor_group: 'rack' })).toBe('conductor:1:rack');
  });

  it("lists hardware types with every live conductor's hostname, across groups", async () => {
    const { store, ring } = setup();
    await store.register({ hostname: 'conductor:1', conductorGroup: '', drivers: ['fake-hardware', 'redfish'] });
    await store.register({ hostname: 'conductor:1:rack', conductorGroup: 'rack', drivers: ['fake-hardware'] });
    expect([...(await ring.hardwareTypes())]).toEqual([
      ['fake-hardware', ['conductor:1', 'conductor:1:rack']],
      ['redfish', ['conductor:1']],
    ]);
  });
});
