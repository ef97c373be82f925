/** A conductor version registers once per group at cold start and refreshes its heartbeat. */
import { Logger } from '@aws-lambda-powertools/logger';
import { ConcurrentUpdate } from '../../../functions/common/errors';
import { Liveness, registrationsOf } from '../../../functions/conductor/liveness';
import { MemoryConductorStore } from '../helpers/memory-stores';

const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });

describe('registrationsOf', () => {
  it('names the default group by the hostname and other groups after it', () => {
    expect(registrationsOf({ hostname: 'conductor:3', conductorQueues: { '': 'q0', 'rack-a': 'q1' } })).toEqual([
      { hostname: 'conductor:3', conductorGroup: '' },
      { hostname: 'conductor:3:rack-a', conductorGroup: 'rack-a' },
    ]);
  });
});

describe('Liveness', () => {
  it('registers with its hardware types first, then only touches; beatIfDue waits for the interval', async () => {
    let now = 1_000_000;
    const store = new MemoryConductorStore();
    const liveness = new Liveness(store, { hostname: 'conductor:1', conductorQueues: { '': 'q' } }, log, () => now);
    await liveness.beatIfDue();
    expect((await store.get('conductor:1')).drivers).toEqual(['fake-hardware', 'redfish']);
    await liveness.beatIfDue();
    now += 11_000;
    await liveness.beatIfDue();
    await liveness.beat();
    expect(store.calls).toEqual(['register conductor:1', 'touch conductor:1', 'touch conductor:1', 'touch conductor:1']);
  });

  it('never fails the invocation it rides on when the heartbeat cannot be written', async () => {
    const store = new MemoryConductorStore();
    store.register = () => Promise.reject(new Error('DynamoDB down'));
    const liveness = new Liveness(store, { hostname: 'conductor:1', conductorQueues: { '': 'q' } }, log);
    await expect(liveness.beatIfDue()).resolves.toBeUndefined();
    await expect(liveness.beat()).rejects.toThrow('DynamoDB down');
  });

  it('is registered when another environment of its version takes the record over at the same moment (ConcurrentUpdate)', async () => {
    const store = new MemoryConductorStore();
    const register = store.register.bind(store);
    // The other environment's take-over lands first; this one's conditional save then loses.
    store.register = async (registration) => {
      await register(registration);
      throw new ConcurrentUpdate(`Conductor ${registration.hostname}`);
    };
    const liveness = new Liveness(store, { hostname: 'conductor:3', conductorQueues: { '': 'q' } }, log);
    await expect(liveness.beat()).resolves.toEqual([{ hostname: 'conductor:3', conductorGroup: '' }]);
    expect(await store.get('conductor:3')).toMatchObject({ online: true, drivers: ['fake-hardware', 'redfish'] });
    expect(store.calls.at(-1)).toBe('touch conductor:3');
    // Any other failure still fails the scheduled heartbeat.
    store.register = () => Promise.reject(new Error('DynamoDB down'));
    await expect(new Liveness(store, { hostname: 'conductor:4', conductorQueues: { '': 'q' } }, log).beat()).rejects.toThrow(
      'DynamoDB down',
    );
  });
});

it("registers only the enabled hardware types (Ironic's enabled_hardware_types)", async () => {
  const store = new MemoryConductorStore();
  const config = { hostname: 'conductor:1', conductorQueues: { '': 'q' }, enabledHardwareTypes: ['fake-hardware'] };
  await new Liveness(store, config, log).beat();
  expect((await store.get('conductor:1')).drivers).toEqual(['fake-hardware']);
});

describe('retiring stale versions', () => {
  const config = (hostname: string) => ({
    hostname,
    conductorQueues: { '': 'q', 'rack-a': 'q2' },
    functionName: 'conductor',
    conductorHeartbeatTimeoutSeconds: 60,
  });

  it("retires another version's registrations once dead 24 heartbeat timeouts, never its own or a live one", async () => {
    let now = Date.parse('2026-11-25T12:00:00Z');
    const store = new MemoryConductorStore();
    store.now = () => now;
    await new Liveness(store, config('conductor:1'), log, () => now).beat();
    await store.register({ hostname: 'other-fn:1', conductorGroup: '', drivers: null });
    const v2 = new Liveness(store, config('conductor:2'), log, () => now);
    now += 23 * 60_000;
    await v2.beat();
    expect(await v2.retireStale()).toEqual([]); // version 1 dead 23 timeouts: still shown, as dead
    now += 60_000 + 1;
    await v2.beat();
    expect(await v2.retireStale()).toEqual(['conductor:1', 'conductor:1:rack-a']);
    expect([...store.items.keys()]).toEqual(['other-fn:1', 'conductor:2', 'conductor:2:rack-a']);
  });

  it('keeps a registration that beat after it was read, and registers again when retired', async () => {
    let now = Date.parse('2026-11-25T12:00:00Z');
    const store = new MemoryConductorStore();
    store.now = () => now;
    const v1 = new Liveness(store, config('conductor:1'), log, () => now);
    await v1.beat();
    now += 25 * 60_000;
    const seen = (await store.get('conductor:1')).updated_at;
    await v1.beat(); // it beats between the read and the delete
    expect(await store.retire('conductor:1', seen ?? null)).toBe(false);
    // Retired while idle: its next heartbeat registers it again.
    expect(await store.retire('conductor:1', (await store.get('conductor:1')).updated_at ?? null)).toBe(true);
    now += 20_000;
    await v1.beatIfDue();
    expect(await store.get('conductor:1')).toMatchObject({ online: true, drivers: ['fake-hardware', 'redfish'] });
  });
});
