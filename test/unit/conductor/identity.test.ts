/**
 * A conductor service's identity (nova's stable-compute-UUID spec): created once, the same for
 * every later version whose environment describes the same service, and a refusal to run when the
 * environment describes another one (a replaced queue, a renamed conductor group).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import {
  ConductorIdentityMismatch,
  expectedServices,
  queueName,
  serviceName,
  verifyServiceIdentities,
} from '../../../functions/conductor/identity';
import { MemoryConductorStore } from '../helpers/memory-stores';

const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
const QUEUES = {
  '': 'http://127.0.0.1:9324/000000000000/ironless-conductor-default',
  'rack-a': 'https://sqs.x/1/ironless-conductor-rack-a',
};

let ids = 0;
const options = { log, newId: () => `uuid-${++ids}`, now: () => Date.parse('2026-11-25T12:00:00Z') };

describe('service names', () => {
  it('names a service by its function and alias, and a queue by the last part of its URL', () => {
    expect([serviceName('conductor'), serviceName('conductor', 'rack-a')]).toEqual(['conductor:live', 'conductor:live:rack-a']);
    expect(queueName('http://127.0.0.1:4566/000000000000/q-1/')).toBe('q-1');
    expect(expectedServices('fn', QUEUES)).toEqual([
      { function: 'fn', conductorGroup: '', queue: 'ironless-conductor-default' },
      { function: 'fn', conductorGroup: 'rack-a', queue: 'ironless-conductor-rack-a' },
    ]);
  });
});

describe('verifyServiceIdentities', () => {
  it('creates each group’s identity once; a later version with the same environment finds the same one', async () => {
    const store = new MemoryConductorStore();
    const first = await verifyServiceIdentities(store, expectedServices('conductor', QUEUES), options);
    expect(first.map((s) => [s.name, s.uuid, s.queue])).toEqual([
      ['conductor:live', 'uuid-1', 'ironless-conductor-default'],
      ['conductor:live:rack-a', 'uuid-2', 'ironless-conductor-rack-a'],
    ]);
    // Version 2 (another environment, same function and queues; the queue URL's endpoint may differ).
    const moved = { '': 'https://sqs.us-east-1.amazonaws.com/1/ironless-conductor-default', 'rack-a': QUEUES['rack-a'] };
    const second = await verifyServiceIdentities(store, expectedServices('conductor', moved), options);
    expect(second).toEqual(first);
    expect(ids).toBe(2);
  });

  it('reads the winner’s identity when another version created it first', async () => {
    const store = new MemoryConductorStore();
    const create = store.createService.bind(store);
    // Another environment records its identity between this one's read and its write.
    store.createService = async (service) => {
      await create({ ...service, uuid: 'winner' });
      return false;
    };
    const [service] = await verifyServiceIdentities(store, expectedServices('conductor', { '': 'q' }), options);
    expect(service?.uuid).toBe('winner');
  });

  it('refuses when the group’s recorded queue is not the environment’s (a replaced queue)', async () => {
    const store = new MemoryConductorStore();
    await verifyServiceIdentities(store, expectedServices('conductor', { '': 'https://sqs/1/old-queue' }), options);
    const refused = verifyServiceIdentities(store, expectedServices('conductor', { '': 'https://sqs/1/new-queue' }), options);
    await expect(refused).rejects.toThrow(ConductorIdentityMismatch);
    await expect(refused).rejects.toThrow(
      /^The conductor group "" of conductor is conductor service uuid-\d+, which consumes queue old-queue, but this version's CONDUCTOR_QUEUES gives it queue new-queue/,
    );
  });

  it('refuses a renamed conductor group that kept its queue, naming the old group', async () => {
    const store = new MemoryConductorStore();
    await verifyServiceIdentities(store, expectedServices('conductor', { 'rack-a': 'https://sqs/1/q-rack' }), options);
    const refused = verifyServiceIdentities(store, expectedServices('conductor', { 'rack-1': 'https://sqs/1/q-rack' }), options);
    await expect(refused).rejects.toThrow(
      /^Queue q-rack belongs to conductor service uuid-\d+ \(conductor group "rack-a" of conductor\), but this version serves it as the conductor group "rack-1" of conductor \(a renamed conductor group\?\): the nodes of group "rack-a" would lose their conductor\. Refusing to run/,
    );
    // Nothing was recorded for the new name: the old identity still stands.
    expect((await store.findService('conductor', 'rack-1', 'q-rack')).byGroup).toBeUndefined();
  });

  it('refuses another function consuming a recorded queue, and records that disagree', async () => {
    const store = new MemoryConductorStore();
    await verifyServiceIdentities(store, expectedServices('conductor', { '': 'https://sqs/1/q' }), options);
    await expect(
      verifyServiceIdentities(store, expectedServices('other-stack-conductor', { '': 'https://sqs/1/q' }), options),
    ).rejects.toThrow(
      /belongs to conductor service .* of conductor\), but this version serves it as the conductor group "" of other-stack-conductor/,
    );
    store.services.delete('queue/q');
    await expect(verifyServiceIdentities(store, expectedServices('conductor', { '': 'https://sqs/1/q' }), options)).rejects.toThrow(
      /^The identity records of the conductor group "" of conductor and of queue q disagree/,
    );
  });
});
