/**
 * Conductors on the local stack: each conductor version registers once per conductor group and
 * keeps a heartbeat, `/v1/conductors` and `/v1/drivers` show the live ones (both versions during
 * an upgrade), nodes are routed to a live conductor of their group or refused with Ironic's "no
 * conductor" errors, and a failure leaves an entry in the node's history, which the daily
 * `manage_node_history` task trims to the newest records.
 */
import type { LocalStack } from '../../local/stack';
import { ApiClient, faultOf, type Json, SHORT_STEP_LIMITS, startStack } from './helpers/stack';

let stack: LocalStack;
let api: ApiClient;

beforeAll(async () => {
  stack = await startStack({
    settings: {
      conductorGroups: ['', 'rack-a'],
      conductorGroupConcurrency: { 'rack-a': 3 },
      conductorTimeoutSeconds: 5,
      stepTimeoutSeconds: 4,
      lockTtlSeconds: 8,
      ...SHORT_STEP_LIMITS,
      nodeHistoryMaxEntries: 1,
    },
  });
  api = new ApiClient(stack.url, '1.82');
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

describe('GET /v1/conductors', () => {
  it('lists the conductor version once per group, alive, with its drivers in detail', async () => {
    const list = await api.get('/v1/conductors');
    expect(list.status).toBe(200);
    expect(list.body.conductors).toEqual([
      { hostname: 'conductor:1', conductor_group: '', alive: true, links: expect.any(Array) },
      { hostname: 'conductor:1:rack-a', conductor_group: 'rack-a', alive: true, links: expect.any(Array) },
    ]);
    const detail = await api.get('/v1/conductors?detail=true');
    expect(detail.body.conductors[0]).toMatchObject({ drivers: ['fake-hardware', 'redfish'], alive: true });
    expect(detail.body.conductors[0].created_at).toMatch(/\+00:00$/);
    const one = await api.get('/v1/conductors/conductor:1:rack-a?fields=hostname,drivers');
    expect(one.body).toEqual({
      hostname: 'conductor:1:rack-a',
      drivers: ['fake-hardware', 'redfish'],
      links: [
        { href: `${stack.url}/v1/conductors/conductor:1:rack-a`, rel: 'self' },
        { href: `${stack.url}/conductors/conductor:1:rack-a`, rel: 'bookmark' },
      ],
    });
  });

  it('pages by hostname and refuses what Ironic refuses', async () => {
    const first = await api.get('/v1/conductors?limit=1');
    expect(first.body.next).toBe(
      `${stack.url}/v1/conductors?sort_key=id&sort_dir=asc&fields=hostname,conductor_group,alive&limit=1&marker=conductor:1`,
    );
    const second = await api.get('/v1/conductors?limit=1&marker=conductor:1');
    expect(second.body.conductors.map((c: { hostname: string }) => c.hostname)).toEqual(['conductor:1:rack-a']);
    expect(faultOf(await api.get('/v1/conductors?sort_key=alive')).faultstring).toBe(
      'The sort_key value alive is an invalid field for sorting',
    );
    const missing = await api.get('/v1/conductors/nope');
    expect([missing.status, faultOf(missing).faultstring]).toEqual([404, 'Conductor nope could not be found.']);
    const old = await new ApiClient(stack.url, '1.48').get('/v1/conductors');
    expect([old.status, faultOf(old).faultstring]).toEqual([404, 'Resource could not be found.']);
  });

  it('shows a second version beside the first during an upgrade, each with its own heartbeat', async () => {
    const v2 = stack.lambda.publishVersion('conductor');
    stack.lambda.setAlias('conductor', 'live', '1', { [v2]: 0.5 });
    try {
      await stack.conductorHeartbeat();
      const list = await api.get('/v1/conductors');
      expect(list.body.conductors.map((c: { hostname: string; alive: boolean }) => [c.hostname, c.alive])).toEqual([
        ['conductor:1', true],
        ['conductor:1:rack-a', true],
        [`conductor:${v2}`, true],
        [`conductor:${v2}:rack-a`, true],
      ]);
      const drivers = await api.get('/v1/drivers');
      expect(drivers.body.drivers.find((d: { name: string }) => d.name === 'fake-hardware').hosts).toEqual([
        'conductor:1',
        'conductor:1:rack-a',
        `conductor:${v2}`,
        `conductor:${v2}:rack-a`,
      ]);
    } finally {
      stack.lambda.setAlias('conductor', 'live', '1');
    }
  });
});

describe('GET /v1/drivers', () => {
  it('lists the hardware types of live conductors, with interfaces in detail and properties', async () => {
    const list = await api.get('/v1/drivers');
    expect(list.body.drivers.map((d: { name: string; type: string }) => [d.name, d.type])).toEqual([
      ['fake-hardware', 'dynamic'],
      ['redfish', 'dynamic'],
    ]);
    const redfish = await api.get('/v1/drivers/redfish');
    expect(redfish.body).toMatchObject({ default_power_interface: 'redfish', default_boot_interface: 'redfish-virtual-media' });
    expect((await api.get('/v1/drivers?type=classic')).body).toEqual({ drivers: [] });
    const properties = await api.get('/v1/drivers/fake-hardware/properties');
    expect(properties.body).toEqual({ B1: 'B1 description. Required.', B2: 'B2 description. Required.' });
    const unknown = await api.get('/v1/drivers/nope/properties');
    expect([unknown.status, faultOf(unknown).faultstring]).toEqual([404, "The driver 'nope' is unknown."]);
    const old = await new ApiClient(stack.url, '1.1').get('/v1/drivers/fake-hardware');
    expect(Object.keys(old.body).sort()).toEqual(['hosts', 'links', 'name']);
  });
});

describe('no conductor', () => {
  it("refuses a node in a group without a live conductor with Ironic's NoValidHost", async () => {
    const created = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', conductor_group: 'rack-b' });
    expect([created.status, faultOf(created).faultstring]).toEqual([
      400,
      'No valid host was found. Reason: No conductor service registered which supports driver fake-hardware for conductor group "rack-b".',
    ]);
    const node = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', conductor_group: 'rack-a', name: 'in-rack-a' });
    expect(node.status).toBe(201);
    // Version 1, or version 2 of the upgrade test above (alive until its heartbeat times out).
    expect(node.body.conductor).toMatch(/^conductor:[12]:rack-a$/);
    const moved = await api.request('PATCH', '/v1/nodes/in-rack-a', [{ op: 'replace', path: '/conductor_group', value: 'rack-b' }]);
    expect([moved.status, faultOf(moved).faultstring]).toEqual([
      400,
      'No valid host was found. Reason: No conductor service registered which supports driver fake-hardware for conductor group "rack-b".',
    ]);
    // Its verbs travel on its group's own queue (each group has a queue and a DLQ of its own).
    expect(stack.queues.map((q) => q.group)).toEqual(['', 'rack-a']);
    expect(new Set(stack.queues.map((q) => q.dlqUrl)).size).toBe(2);
    await api.provision('in-rack-a', 'manage');
    await api.waitFor('in-rack-a', 'manageable');
    expect((await api.get(`/v1/nodes?conductor=${node.body.conductor as string}&fields=name`)).body.nodes).toEqual([
      { name: 'in-rack-a', links: expect.any(Array) },
    ]);
  });
});

describe('per-group concurrency', () => {
  it("runs at most the group's conductorGroupConcurrency invocations from its queue at once", async () => {
    const names = Array.from({ length: 12 }, (_, i) => `burst-${i}`);
    for (const name of names) {
      const created = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', conductor_group: 'rack-a', name });
      expect(created.status).toBe(201);
    }
    await Promise.all(names.map((name) => api.provision(name, 'manage')));
    for (const name of names) await api.waitFor(name, 'manageable');
    expect(stack.maxConcurrencyByGroup).toEqual({ '': 2, 'rack-a': 3 });
    const peaks = stack.peakConcurrencyByGroup;
    expect(peaks['rack-a']).toBeGreaterThanOrEqual(1);
    expect(peaks['rack-a']).toBeLessThanOrEqual(3);
    expect(peaks['']).toBeLessThanOrEqual(2);
  }, 60_000);
});

describe('node history', () => {
  it('records a failed deploy as an ERROR event of the conductor, shown per Ironic view', async () => {
    const created = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name: 'hist-1' });
    const uuid = created.body.uuid as string;
    expect((await api.get('/v1/nodes/hist-1/history')).body).toEqual({ history: [] });
    await api.provision('hist-1', 'manage');
    await api.waitFor('hist-1', 'manageable');
    await api.provision('hist-1', 'provide');
    await api.waitFor('hist-1', 'available');
    stack.lambda.injectFault({
      function: 'conductor',
      action: 'crash',
      match: (event) => (event as { action?: string; node?: string }).action === 'run' && (event as { node?: string }).node === uuid,
    });
    await api.provision('hist-1', 'active');
    const failed = await api.waitFor('hist-1', 'deploy failed');

    // The step that started (INFO), then its failure (ERROR).
    const history = await api.get('/v1/nodes/hist-1/history');
    expect(history.body.history.map((e: { severity: string; event: string }) => [e.severity, e.event])).toEqual([
      ['INFO', 'Deploy step deploy.deploy (priority 100) started'],
      ['ERROR', failed.last_error],
    ]);
    const [started, event] = history.body.history;
    expect(Object.keys(event).sort()).toEqual(['created_at', 'event', 'links', 'severity', 'uuid']);
    expect(event).toMatchObject({ severity: 'ERROR', event: failed.last_error });
    expect(event.links).toEqual([{ href: `${stack.url}/v1/nodes/${uuid}/history/${event.uuid}`, rel: 'self' }]);
    const one = await new ApiClient(stack.url, '1.112').get(`/v1/nodes/hist-1/history/${event.uuid}`);
    expect(one.body).toMatchObject({ event_type: 'deploying', conductor: 'conductor:live', user: null, severity: 'ERROR' });
    expect(Object.keys(one.body)).toEqual(['uuid', 'created_at', 'severity', 'event_type', 'event', 'conductor', 'user', 'links']);
    // 1.113 adds the project (none: Ironic's conductor records none), 1.115 the node's state at the event.
    const withProject = await new ApiClient(stack.url, '1.113').get(`/v1/nodes/hist-1/history/${event.uuid}`);
    expect(Object.keys(withProject.body)).toEqual([
      'uuid',
      'created_at',
      'severity',
      'event_type',
      'event',
      'conductor',
      'user',
      'project',
      'links',
    ]);
    expect(withProject.body.project).toBeNull();
    const newest = await new ApiClient(stack.url, '1.115').get(`/v1/nodes/hist-1/history?detail=true`);
    const [startedAt, failedAt] = newest.body.history as Json[];
    expect(startedAt).toMatchObject({ state: 'deploying', target_provision_state: 'active', duration_seconds: expect.any(Number) });
    expect(failedAt).toMatchObject({ project: null, state: 'deploy failed', target_provision_state: 'active' });
    expect(failedAt?.duration_seconds).toBeGreaterThanOrEqual(0);
    const detail = await api.get('/v1/nodes/hist-1/history?detail=true&limit=1');
    // The next link names the release's whole detail list, whatever the version asked (as Ironic).
    expect(detail.body.next).toBe(
      `${stack.url}/v1/nodes/hist-1/history?marker=None&fields=uuid,created_at,severity,event_type,event,conductor,user,project,state,target_provision_state,duration_seconds&limit=1&marker=${started.uuid}`,
    );
    expect(Object.keys(detail.body.history[0])).not.toContain('state');
    const old = await new ApiClient(stack.url, '1.77').get('/v1/nodes/hist-1/history');
    expect(old.status).toBe(404);

    // The periodic task, as EventBridge sends it, keeps the newest record (nodeHistoryMaxEntries: 1).
    const trimmed = await stack.lambda.invoke('conductor:live', { entry: 'periodic', task: 'manage_node_history' });
    expect(JSON.parse(trimmed.payload)).toEqual({ deleted: 1, nodes: 1 });
    const after = await api.get('/v1/nodes/hist-1/history');
    expect(after.body.history.map((e: { uuid: string }) => e.uuid)).toEqual([event.uuid]);
  }, 60_000);
});
