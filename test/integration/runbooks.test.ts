/**
 * Runbooks on a local stack (API 1.92, traits 1.112): create, show by UUID and name, list with
 * fields, detail, paging, sorting and the `project` filter, patch (owner and public rules), delete;
 * the traits sub-resource; the errors (duplicate name, bad steps, unknown runbook, versions below
 * 1.92 and 1.112); and a manual clean and a service run by runbook on fake-hardware nodes that
 * carry the approving trait.
 */
import type { LocalStack } from '../../local/stack';
import { ApiClient, type Reply, faultOf, startStack } from './helpers/stack';

let stack: LocalStack;
let api: ApiClient;

beforeAll(async () => {
  stack = await startStack({ settings: { automatedClean: false } });
  api = new ApiClient(stack.url, '1.92');
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

const at = (version: string) => ({ 'X-OpenStack-Ironic-API-Version': version });
const STEPS = [
  { interface: 'power', step: 'power_on', args: {}, order: 0 },
  { interface: 'power', step: 'power_off', args: {}, order: 1 },
];
/** fake-hardware's one service step that needs no ramdisk. */
const SERVICE_STEP = { interface: 'vendor', step: 'log_passthrough', args: {}, order: 0 };

function expectFault(reply: Reply, status: number, message: string | RegExp): void {
  expect({ status: reply.status, text: reply.text }).toMatchObject({ status });
  const fault = faultOf(reply);
  const text = fault.faultstring ?? fault.description;
  if (typeof message === 'string') expect(text).toBe(message);
  else expect(text).toMatch(message);
}

async function createRunbook(body: Record<string, unknown>, version = '1.92'): Promise<Record<string, unknown>> {
  const reply = await api.request('POST', '/v1/runbooks', body, at(version));
  if (reply.status !== 201) throw new Error(`create runbook: ${reply.status} ${reply.text}`);
  return reply.body as Record<string, unknown>;
}

/** A fake-hardware node taken to `state` through the API, with `traits`. */
async function fakeNode(state: 'manageable' | 'active', traits: string[]): Promise<string> {
  const created = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware' });
  expect(created.status).toBe(201);
  const uuid = created.body.uuid as string;
  expect((await api.request('PUT', `/v1/nodes/${uuid}/traits`, { traits })).status).toBe(204);
  await api.provision(uuid, 'manage');
  await api.settle(uuid, ['manageable'], 30_000);
  if (state === 'manageable') return uuid;
  await api.provision(uuid, 'provide');
  await api.settle(uuid, ['available'], 30_000);
  await api.provision(uuid, 'active');
  expect(await api.settle(uuid, ['active', 'deploy failed'], 30_000)).toMatchObject({ provision_state: 'active' });
  return uuid;
}

async function events(uuid: string, type: string): Promise<string[]> {
  const history = (await api.get(`/v1/nodes/${uuid}/history?detail=true`)).body.history as { event: string; event_type: string }[];
  return history.filter((e) => e.event_type === type).map((e) => e.event);
}

describe('below 1.92 there are no runbooks', () => {
  it('GET /v1 links them from 1.92 only; the resource is 404 to GET and 405 otherwise', async () => {
    expect((await api.get('/v1', at('1.91'))).body.runbooks).toBeUndefined();
    expect((await api.get('/v1', at('1.92'))).body.runbooks).toEqual([
      { href: `${stack.url}/v1/runbooks/`, rel: 'self' },
      { href: `${stack.url}/runbooks/`, rel: 'bookmark' },
    ]);
    expectFault(await api.get('/v1/runbooks', at('1.91')), 404, /The API version does not allow runbooks/);
    const post = await api.request('POST', '/v1/runbooks', { name: 'CUSTOM_X', steps: STEPS }, at('1.91'));
    expect(post.status).toBe(405);
  });
});

describe('runbook CRUD (1.92)', () => {
  let uuid: string;

  beforeAll(async () => {
    const created = await api.request('POST', '/v1/runbooks', { name: 'CUSTOM_CRUD', steps: STEPS, extra: { a: 1 } });
    expect(created.status).toBe(201);
    uuid = created.body.uuid as string;
    expect(created.headers.get('location')).toBe(`${stack.url}/v1/runbooks/${uuid}`);
    expect(created.body).toMatchObject({
      name: 'CUSTOM_CRUD',
      steps: STEPS,
      extra: { a: 1 },
      public: false,
      owner: null,
      disable_ramdisk: false,
      updated_at: null,
    });
    expect(created.body.traits).toBeUndefined();
    expect(created.body.description).toBeUndefined();
  });

  it('shows a runbook by UUID and by name, with fields', async () => {
    expect((await api.get(`/v1/runbooks/${uuid}`)).body).toMatchObject({ uuid, name: 'CUSTOM_CRUD' });
    expect((await api.get('/v1/runbooks/CUSTOM_CRUD?fields=steps')).body).toEqual({ steps: STEPS, links: expect.any(Array) });
    expectFault(await api.get('/v1/runbooks/CUSTOM_CRUD?fields=traits'), 400, 'Field(s) "traits" are not valid');
    expectFault(await api.get('/v1/runbooks/CUSTOM_NOPE'), 404, 'Runbook CUSTOM_NOPE could not be found.');
    // Ironic validates the ident before `fields` (its args.validate order).
    const refused = await api.get('/v1/runbooks/bad%20name?fields=name&fields=uuid');
    expectFault(refused, 400, 'Expected UUID or name for runbook_ident: bad name');
  });

  it('refuses a duplicate name (409), a name that is no trait, bad and duplicate steps (400)', async () => {
    expectFault(
      await api.request('POST', '/v1/runbooks', { name: 'CUSTOM_CRUD', steps: STEPS }),
      409,
      'A runbook with name CUSTOM_CRUD already exists.',
    );
    expectFault(
      await api.request('POST', '/v1/runbooks', { name: 'not-a-trait', steps: STEPS }),
      400,
      /^Schema error for runbook: 'not-a-trait' is not valid under any of the given schemas/,
    );
    expectFault(
      await api.request('POST', '/v1/runbooks', { name: 'CUSTOM_BAD', steps: [{ interface: 'boot', step: 'x', order: 0 }] }),
      400,
      /^Schema error for runbook: 'boot' is not one of /,
    );
    expectFault(
      await api.request('POST', '/v1/runbooks', { name: 'CUSTOM_BAD', steps: [STEPS[0], { ...STEPS[0], order: 3 }] }),
      400,
      /Duplicate deploy steps\. .* Duplicates: interface: power, step: power_on\.$/,
    );
    expect((await api.get('/v1/runbooks/CUSTOM_BAD')).status).toBe(404);
  });

  it('lists with default fields, detail, paging, sorting and the project filter', async () => {
    await createRunbook({ name: 'CUSTOM_LIST_B', steps: STEPS, public: true });
    await createRunbook({ name: 'CUSTOM_LIST_A', steps: STEPS });
    const list = (await api.get('/v1/runbooks')).body.runbooks as Record<string, unknown>[];
    expect(list.map((r) => r.name)).toEqual(expect.arrayContaining(['CUSTOM_CRUD', 'CUSTOM_LIST_A', 'CUSTOM_LIST_B']));
    expect(Object.keys(list[0] as object).sort()).toEqual(['links', 'name', 'uuid']);
    const detail = (await api.get('/v1/runbooks?detail=true')).body.runbooks as Record<string, unknown>[];
    expect(detail[0]).toHaveProperty('steps');
    const first = await api.get('/v1/runbooks?limit=1&sort_key=name&sort_dir=desc');
    expect((first.body.runbooks as { name: string }[]).map((r) => r.name)).toEqual(['CUSTOM_LIST_B']);
    const lastUuid = (first.body.runbooks as { uuid: string }[])[0]?.uuid;
    expect(first.body.next).toBe(`${stack.url}/v1/runbooks?sort_key=name&sort_dir=desc&fields=uuid,name&limit=1&marker=${lastUuid}`);
    const second = await api.get(`/v1/runbooks?limit=1&sort_key=name&sort_dir=desc&marker=${lastUuid}`);
    expect((second.body.runbooks as { name: string }[]).map((r) => r.name)).toEqual(['CUSTOM_LIST_A']);
    const publicOnly = (await api.get('/v1/runbooks?project=true')).body.runbooks as { name: string }[];
    expect(publicOnly.map((r) => r.name)).toEqual(['CUSTOM_LIST_B']);
    expectFault(await api.get('/v1/runbooks?sort_key=steps'), 400, 'The sort_key value steps is an invalid field for sorting');
    expect((await api.get('/v1/runbooks?project=maybe')).status).toBe(400);
  });

  it('patches fields and steps; a public runbook has no owner', async () => {
    const patched = await api.request('PATCH', `/v1/runbooks/${uuid}`, [
      { op: 'replace', path: '/name', value: 'CUSTOM_CRUD2' },
      { op: 'add', path: '/extra/b', value: 2 },
      { op: 'replace', path: '/steps/1/args', value: { password: 'secret', keep: 1 } },
      { op: 'add', path: '/owner', value: 'project-a' },
    ]);
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'CUSTOM_CRUD2', extra: { a: 1, b: 2 }, owner: 'project-a' });
    // Secrets in step arguments are masked.
    expect((patched.body.steps as { args: unknown }[])[1]?.args).toEqual({ password: '******', keep: 1 });
    expect(patched.body.updated_at).not.toBeNull();
    const toPublic = await api.request('PATCH', `/v1/runbooks/${uuid}`, [{ op: 'replace', path: '/public', value: true }]);
    expect(toPublic.body).toMatchObject({ public: true, owner: null });
    expectFault(
      await api.request('PATCH', `/v1/runbooks/${uuid}`, [{ op: 'replace', path: '/owner', value: 'project-b' }]),
      400,
      /There cannot be an owner for a public runbook$/,
    );
    expectFault(
      await api.request('PATCH', `/v1/runbooks/${uuid}`, [{ op: 'replace', path: '/description', value: 'x' }]),
      400,
      'Cannot patch /description. Only the following can be updated: disable_ramdisk, extra, name, owner, public, steps',
    );
    expectFault(
      await api.request('PATCH', `/v1/runbooks/${uuid}`, [{ op: 'replace', path: '/steps/0/interface', value: 'boot' }]),
      400,
      /'boot' is not one of /,
    );
  });

  it('deletes a runbook by name; then it is gone', async () => {
    await createRunbook({ name: 'CUSTOM_GONE', steps: STEPS });
    expect((await api.request('DELETE', '/v1/runbooks/CUSTOM_GONE')).status).toBe(204);
    expectFault(await api.get('/v1/runbooks/CUSTOM_GONE'), 404, 'Runbook CUSTOM_GONE could not be found.');
    expectFault(await api.request('DELETE', '/v1/runbooks/CUSTOM_GONE'), 404, 'Runbook CUSTOM_GONE could not be found.');
  });
});

describe('runbook traits and descriptions (1.112)', () => {
  let uuid: string;
  const traitsOf = async (ident: string) => (await api.get(`/v1/runbooks/${ident}/traits`, at('1.112'))).body.traits as string[];

  beforeAll(async () => {
    const created = await createRunbook({ name: 'firmware-update', description: 'Flash firmware', steps: STEPS }, '1.112');
    uuid = created.uuid as string;
    expect(created).toMatchObject({ description: 'Flash firmware', traits: [] });
  });

  it('refuses traits in a create, and the sub-resource below 1.112', async () => {
    expectFault(
      await api.request('POST', '/v1/runbooks', { name: 'x', steps: STEPS, traits: ['CUSTOM_A'] }, at('1.112')),
      400,
      "Schema error for runbook: Additional properties are not allowed ('traits' was unexpected)",
    );
    expectFault(await api.get(`/v1/runbooks/${uuid}/traits`, at('1.111')), 404, /The API version does not allow runbook traits/);
  });

  it('replaces the set, adds and removes one trait, and lists them', async () => {
    expect((await api.request('PUT', `/v1/runbooks/${uuid}/traits`, { traits: ['CUSTOM_B', 'CUSTOM_A'] }, at('1.112'))).status).toBe(204);
    expect(await traitsOf(uuid)).toEqual(['CUSTOM_A', 'CUSTOM_B']);
    const one = await api.request('PUT', '/v1/runbooks/firmware-update/traits/CUSTOM_C', undefined, at('1.112'));
    expect(one.status).toBe(204);
    expect(one.headers.get('location')).toBe(`${stack.url}/v1/runbooks/firmware-update/traits/CUSTOM_C`);
    expect((await api.request('DELETE', `/v1/runbooks/${uuid}/traits/CUSTOM_A`, undefined, at('1.112'))).status).toBe(204);
    expect((await api.request('DELETE', `/v1/runbooks/${uuid}/traits/CUSTOM_ZZ`, undefined, at('1.112'))).status).toBe(204);
    expect(await traitsOf('firmware-update')).toEqual(['CUSTOM_B', 'CUSTOM_C']);
    expect((await api.get(`/v1/runbooks/${uuid}`, at('1.112'))).body.traits).toEqual(['CUSTOM_B', 'CUSTOM_C']);
    expectFault(
      await api.request('PUT', `/v1/runbooks/${uuid}/traits/lower`, undefined, at('1.112')),
      400,
      /^Schema error for trait: 'lower' is not valid under any of the given schemas/,
    );
    expectFault(
      await api.request('PUT', `/v1/runbooks/${uuid}/traits`, {}, at('1.112')),
      400,
      /^A single runbook trait may be added via PUT/,
    );
  });

  it('finds a runbook whose name ends in ".json" by that name (".json" is part of a name from 1.91)', async () => {
    await createRunbook({ name: 'report.json', steps: STEPS }, '1.112');
    expect((await api.get('/v1/runbooks/report.json', at('1.112'))).body).toMatchObject({ name: 'report.json' });
    expect((await api.request('DELETE', '/v1/runbooks/report.json', undefined, at('1.112'))).status).toBe(204);
  });

  it('patches the description from 1.112; an older version still patches the free-form name', async () => {
    const described = await api.request(
      'PATCH',
      `/v1/runbooks/${uuid}`,
      [{ op: 'replace', path: '/description', value: 'v2' }],
      at('1.112'),
    );
    expect(described.body).toMatchObject({ description: 'v2' });
    const renamed = await api.request('PATCH', `/v1/runbooks/${uuid}`, [{ op: 'replace', path: '/extra', value: { k: 1 } }], at('1.92'));
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'firmware-update', extra: { k: 1 } });
  });
});

describe('provisioning by runbook on fake-hardware', () => {
  it('runs a manual clean from a runbook whose name the node carries as a trait (1.92)', async () => {
    await createRunbook({ name: 'CUSTOM_CLEAN_RB', steps: STEPS });
    const node = await fakeNode('manageable', ['CUSTOM_CLEAN_RB']);
    const stranger = await fakeNode('manageable', ['CUSTOM_OTHER']);
    const put = (uuid: string, body: Record<string, unknown>, version = '1.92') =>
      api.request('PUT', `/v1/nodes/${uuid}/states/provision`, body, at(version));

    expect((await put(node, { target: 'clean', runbook: 'CUSTOM_CLEAN_RB' }, '1.91')).status).toBe(406);
    expectFault(
      await put(stranger, { target: 'clean', runbook: 'CUSTOM_CLEAN_RB' }),
      400,
      `This runbook has not been approved for use on this node ${stranger}. Please ask an administrator to add it to your node traits.`,
    );
    expectFault(
      await put(node, { target: 'clean', runbook: 'CUSTOM_CLEAN_RB', clean_steps: [{ interface: 'power', step: 'power_off' }] }),
      400,
      'Please provide either "clean_steps" or a runbook, but not both.',
    );
    expectFault(await put(node, { target: 'clean', runbook: 'CUSTOM_MISSING' }), 404, 'Runbook CUSTOM_MISSING could not be found.');

    expect((await put(node, { target: 'clean', runbook: 'CUSTOM_CLEAN_RB' })).status).toBe(202);
    const done = await api.settle(node, ['manageable', 'clean failed'], 30_000);
    expect(done).toMatchObject({ provision_state: 'manageable', last_error: null, power_state: 'power off' });
    expect(await events(node, 'cleaning')).toEqual([
      'Clean step power.power_on (priority 0) started',
      'Clean step power.power_off (priority 0) started',
    ]);
  }, 90_000);

  it('services an active node from a runbook whose traits include one of the node’s (1.112)', async () => {
    const runbook = await createRunbook({ name: 'service-rb', steps: [SERVICE_STEP] }, '1.112');
    const node = await fakeNode('active', ['CUSTOM_RACK7']);
    const put = (body: Record<string, unknown>) => api.request('PUT', `/v1/nodes/${node}/states/provision`, body, at('1.112'));

    expectFault(
      await put({ target: 'service', runbook: 'service-rb' }),
      400,
      `Runbook ${runbook.uuid as string} has no traits configured. Please ask an administrator to add traits to the runbook.`,
    );
    expect((await api.request('PUT', '/v1/runbooks/service-rb/traits/CUSTOM_RACK7', undefined, at('1.112'))).status).toBe(204);
    expectFault(
      await put({ target: 'rebuild', runbook: 'service-rb' }),
      400,
      `"runbooks" is only valid when setting target provision state to any of ['clean', 'service']`,
    );
    expect((await put({ target: 'service', runbook: runbook.uuid })).status).toBe(202);
    const done = await api.settle(node, ['active', 'service failed'], 30_000);
    expect(done).toMatchObject({ provision_state: 'active', last_error: null });
    expect(await events(node, 'servicing')).toEqual(['Service step vendor.log_passthrough (priority 0) started']);
  }, 90_000);
});
