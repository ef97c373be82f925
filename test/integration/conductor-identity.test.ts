/**
 * Conductor identity on the local stack (nova's stable-compute-UUID spec): each conductor group of
 * the conductor function is a service with a UUID recorded once; a new version is an instance of
 * the same service, what nodes keep names the service (not the version) so an upgrade orphans
 * nothing, the old version's registrations are retired once dead long enough, and a version whose
 * environment describes another service (a renamed group) refuses to run.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalStack } from '../../local/stack';
import { selectRelease } from '../../functions/common/releases';
import { createDocumentClient } from '../../functions/db/client';
import type { ConductorService } from '../../functions/db/conductors';
import { createStores, type Stores } from '../../functions/db/stores';
import { ApiClient, faultOf, startStack } from './helpers/stack';

let stack: LocalStack;
let api: ApiClient;
let raw: DynamoDBClient;
let stores: Stores;

beforeAll(async () => {
  stack = await startStack({ settings: { conductorGroups: ['', 'rack-a'] } });
  api = new ApiClient(stack.url, '1.82');
  raw = new DynamoDBClient({
    endpoint: stack.endpoints.dynamodb,
    region: 'us-east-1',
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  });
  stores = createStores({ client: createDocumentClient(raw), tables: stack.tables, release: selectRelease('') });
}, 60_000);

afterAll(async () => {
  raw?.destroy();
  await stack?.stop();
});

const queueOf = (group: string) => (stack.queues.find((q) => q.group === group)?.url ?? '').split('/').pop() as string;

async function identities(): Promise<(ConductorService | undefined)[]> {
  const found = await Promise.all(['', 'rack-a'].map((g) => stores.conductors.findService('conductor', g, queueOf(g))));
  for (const f of found) expect(f.byGroup).toEqual(f.byQueue);
  return found.map((f) => f.byGroup);
}

async function deploy(node: string): Promise<void> {
  await api.provision(node, 'active');
  await api.waitFor(node, 'active', 30_000);
}

async function hostnames(): Promise<string[]> {
  return (await api.get('/v1/conductors')).body.conductors.map((c: { hostname: string }) => c.hostname);
}

it('keeps one identity across a version change; nodes name the service, and the old version is retired', async () => {
  const before = await identities();
  expect(before.map((s) => [s?.name, s?.conductorGroup])).toEqual([
    ['conductor:live', ''],
    ['conductor:live:rack-a', 'rack-a'],
  ]);

  // Version 1 deploys a node: its history names the conductor.
  const node = (await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: 'identity-1' })).body.uuid as string;
  await api.provision(node, 'manage');
  await api.waitFor(node, 'manageable');
  await api.provision(node, 'provide');
  await api.waitFor(node, 'available');
  await deploy(node);

  // Version 2 takes over (it counts a conductor dead after 1 s, so it retires version 1 after 24 s).
  const v2 = stack.lambda.publishVersion('conductor', { env: { CONDUCTOR_HEARTBEAT_TIMEOUT: '1' } });
  stack.lambda.setAlias('conductor', 'live', v2);
  await stack.conductorHeartbeat();
  expect(await identities()).toEqual(before);
  expect(await hostnames()).toEqual(['conductor:1', 'conductor:1:rack-a', `conductor:${v2}`, `conductor:${v2}:rack-a`]);
  await api.provision(node, 'rebuild');
  await api.waitFor(node, 'active', 30_000);

  const history = (await api.get(`/v1/nodes/${node}/history?detail=true`)).body.history as { conductor: string; event: string }[];
  expect(history.length).toBeGreaterThanOrEqual(2);
  expect(new Set(history.map((e) => e.conductor))).toEqual(new Set(['conductor:live']));

  // Dead 24 of its timeouts in version 2's eyes, version 1 leaves the list at the next heartbeat.
  const lastBeat = Math.max(
    ...(await stores.conductors.list({}, { limit: 10 })).items
      .filter((c) => c.hostname.startsWith('conductor:1'))
      .map((c) => Date.parse(c.updated_at ?? '')),
  );
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, lastBeat + 24_500 - Date.now())));
  const beat = await stack.lambda.invoke('conductor:live', { entry: 'periodic', task: 'conductor_heartbeat' });
  expect(JSON.parse(beat.payload)).toEqual({
    registered: [`conductor:${v2}`, `conductor:${v2}:rack-a`],
    retired: ['conductor:1', 'conductor:1:rack-a'],
  });
  expect(await hostnames()).toEqual([`conductor:${v2}`, `conductor:${v2}:rack-a`]);

  // What the node keeps still names a conductor Ironic's API shows: the service, served by version 2.
  const service = await api.get('/v1/conductors/conductor:live?fields=hostname,conductor_group,alive,drivers');
  expect(service.body).toMatchObject({
    hostname: 'conductor:live',
    conductor_group: '',
    alive: true,
    drivers: ['fake-hardware', 'redfish'],
  });
  const rack = await api.get('/v1/conductors/conductor:live:rack-a');
  expect(rack.body).toMatchObject({ hostname: 'conductor:live:rack-a', conductor_group: 'rack-a', alive: true });
  const none = await api.get('/v1/conductors/conductor:live:rack-z');
  expect([none.status, faultOf(none).faultstring]).toEqual([404, 'Conductor conductor:live:rack-z could not be found.']);
  expect(await identities()).toEqual(before);
}, 150_000);

it('refuses to run a version whose environment serves a recorded queue under a renamed group', async () => {
  const queues = Object.fromEntries(stack.queues.map((q) => [q.group === 'rack-a' ? 'rack-1' : q.group, q.url]));
  const renamed = stack.lambda.publishVersion('conductor', { env: { CONDUCTOR_QUEUES: JSON.stringify(queues) } });
  const result = await stack.lambda.invoke('conductor', { entry: 'periodic', task: 'conductor_heartbeat' }, renamed);
  expect(result.functionError).toBe('Unhandled');
  const error = JSON.parse(result.payload) as { errorType: string; errorMessage: string };
  expect(error.errorType).toBe('Runtime.ConductorIdentityMismatch');
  expect(error.errorMessage).toMatch(
    new RegExp(
      `^Queue ${queueOf('rack-a')} belongs to conductor service [0-9a-f-]{36} \\(conductor group "rack-a" of conductor\\), ` +
        'but this version serves it as the conductor group "rack-1" of conductor',
    ),
  );
  // The reason is in its log, and it neither registered nor recorded an identity for "rack-1".
  expect(readFileSync(join(stack.logDir, 'conductor.log'), 'utf8')).toContain(`"message":${JSON.stringify(error.errorMessage)}`);
  expect(await hostnames()).not.toContain(`conductor:${renamed}:rack-1`);
  expect((await stores.conductors.findService('conductor', 'rack-1', queueOf('rack-a'))).byGroup).toBeUndefined();
}, 60_000);
