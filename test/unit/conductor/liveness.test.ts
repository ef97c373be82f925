/** A conductor version registers once per group at cold start and refreshes its heartbeat. */
import { Logger } from '@aws-lambda-powertools/logger';
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
});

it("registers only the enabled hardware types (Ironic's enabled_hardware_types)", async () => {
  const store = new MemoryConductorStore();
  const config = { hostname: 'conductor:1', conductorQueues: { '': 'q' }, enabledHardwareTypes: ['fake-hardware'] };
  await new Liveness(store, config, log).beat();
  expect((await store.get('conductor:1')).drivers).toEqual(['fake-hardware']);
});
