/**
 * Inspection rules (API 1.96) on the local stack: their CRUD with Ironic's answers and errors, and
 * rules applied when a virtual node of the fleet is inspected — in band by its ramdisk (the
 * `agent` interface) and out of band over Redfish — adding a trait and setting properties from
 * the inventory, or failing the inspection.
 */
import type { LocalStack } from '../../local/stack';
import { ApiClient, faultOf, startStack } from './helpers/stack';

let stack: LocalStack;
let api: ApiClient;

beforeAll(async () => {
  stack = await startStack({ fleet: { count: 3, prefix: 'rule', inspection: true, inspectionRetryMs: 300 } });
  api = new ApiClient(stack.url, '1.96');
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const TRAIT_RULE = {
  description: 'x86 machines',
  priority: 50,
  conditions: [{ op: 'eq', args: { values: ['{inventory[cpu][architecture]}', 'x86_64'] } }],
  actions: [
    { op: 'add-trait', args: { name: 'CUSTOM_RULED_X86' } },
    { op: 'set-attribute', args: { path: '/properties/inspected_cpus', value: '{inventory[cpu][count]}' } },
  ],
};

const error = (reply: { status: number; body: unknown; text: string; headers: Headers }) => [reply.status, faultOf(reply).faultstring];

async function clearRules(): Promise<void> {
  expect((await api.request('DELETE', '/v1/inspection_rules')).status).toBe(204);
}

describe('the inspection_rules resource', () => {
  afterEach(clearRules);

  it('exists from 1.96: below it 404 for GET, 405 for the rest, and GET /v1 links it only then', async () => {
    const old = new ApiClient(stack.url, '1.95');
    const gone = await old.get('/v1/inspection_rules');
    expect([gone.status, faultOf(gone).description]).toEqual([404, 'The API version does not allow inspection rules']);
    expect((await old.request('POST', '/v1/inspection_rules', TRAIT_RULE)).status).toBe(405);
    expect((await old.get('/v1')).body.inspection_rules).toBeUndefined();
    expect((await api.get('/v1')).body.inspection_rules).toEqual([
      { href: `${stack.url}/v1/inspection_rules/`, rel: 'self' },
      { href: `${stack.url}/inspection_rules/`, rel: 'bookmark' },
    ]);
  });

  it('creates, shows, lists, updates and deletes a rule', async () => {
    const created = await api.request('POST', '/v1/inspection_rules', TRAIT_RULE);
    expect(created.status).toBe(201);
    const uuid = created.body.uuid as string;
    expect(created.headers.get('location')).toBe(`${stack.url}/v1/inspection_rules/${uuid}`);
    expect(created.body).toMatchObject({ ...TRAIT_RULE, phase: 'main', sensitive: false, updated_at: null });
    expect(created.body.links[0]).toEqual({ href: `${stack.url}/v1/inspection_rules/${uuid}`, rel: 'self' });

    expect((await api.get(`/v1/inspection_rules/${uuid}`)).body).toEqual(created.body);
    const listed = await api.get('/v1/inspection_rules');
    expect(listed.body.inspection_rules).toEqual([
      { uuid, priority: 50, phase: 'main', description: 'x86 machines', links: created.body.links },
    ]);
    const detailed = await api.get('/v1/inspection_rules?detail=true');
    expect(detailed.body.inspection_rules[0]).toEqual(created.body);
    expect((await api.get('/v1/inspection_rules?fields=uuid,actions')).body.inspection_rules[0]).toEqual({
      uuid,
      actions: TRAIT_RULE.actions,
      links: created.body.links,
    });
    expect((await api.get('/v1/inspection_rules?phase=other')).body.inspection_rules).toEqual([]);
    const low = await api.request('POST', '/v1/inspection_rules', { ...TRAIT_RULE, priority: 1 });
    const byPriority = await api.get('/v1/inspection_rules?sort_key=priority&sort_dir=asc&limit=1');
    expect(byPriority.body.inspection_rules.map((r: { uuid: string }) => r.uuid)).toEqual([low.body.uuid]);
    expect(byPriority.body.next).toBe(
      `${stack.url}/v1/inspection_rules?sort_key=priority&sort_dir=asc&fields=uuid,priority,phase,description&limit=1&marker=${low.body.uuid as string}`,
    );
    expect((await api.request('DELETE', `/v1/inspection_rules/${low.body.uuid as string}`)).status).toBe(204);

    const patched = await api.request('PATCH', `/v1/inspection_rules/${uuid}`, [
      { op: 'replace', path: '/description', value: 'renamed' },
      { op: 'replace', path: '/priority', value: 7 },
    ]);
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ description: 'renamed', priority: 7 });
    expect(patched.body.updated_at).not.toBeNull();

    expect((await api.request('DELETE', `/v1/inspection_rules/${uuid}`)).status).toBe(204);
    expect(error(await api.get(`/v1/inspection_rules/${uuid}`))).toEqual([404, `Rule ${uuid} could not be found.`]);
  });

  it('hides a sensitive rule’s conditions and actions, and will not make it non-sensitive', async () => {
    const created = await api.request('POST', '/v1/inspection_rules', { ...TRAIT_RULE, sensitive: true });
    expect(created.body).toMatchObject({ sensitive: true, conditions: null, actions: null });
    const uuid = created.body.uuid as string;
    expect((await api.get('/v1/inspection_rules?detail=true')).body.inspection_rules[0]).toMatchObject({ conditions: null, actions: null });
    const unset = await api.request('PATCH', `/v1/inspection_rules/${uuid}`, [{ op: 'replace', path: '/sensitive', value: false }]);
    expect(unset.status).toBe(400);
    expect(faultOf(unset).faultstring).toContain('Inspection rules cannot have the sensitive flag unset.');
    const removed = await api.request('PATCH', `/v1/inspection_rules/${uuid}`, [{ op: 'remove', path: '/sensitive' }]);
    expect([removed.status, removed.body.sensitive, removed.body.actions]).toEqual([200, true, null]);
  });

  it('refuses bad rules with Ironic’s messages, writing nothing', async () => {
    const post = (body: unknown) => api.request('POST', '/v1/inspection_rules', body);
    const unknownAction = await post({ actions: [{ op: 'explode', args: {} }] });
    expect(unknownAction.status).toBe(400);
    expect(faultOf(unknownAction).faultstring).toMatch(/^Schema error: 'explode' is not one of \['fail', 'log', 'set-attribute'/);
    const unknownOperator = await post({ conditions: [{ op: 'ge', args: { values: [] } }], actions: TRAIT_RULE.actions });
    expect(faultOf(unknownOperator).faultstring).toMatch(/^Schema error: 'ge' is not one of \['eq', 'lt', 'gt'/);
    expect(error(await post({ actions: [{ op: 'add-trait', args: {} }] }))).toEqual([400, 'missing required argument(s): name']);
    expect(error(await post({ actions: [{ op: 'add-trait', args: { name: 'X', extra: 1 } }] }))).toEqual([
      400,
      'unexpected argument(s): extra',
    ]);
    expect(error(await post({ ...TRAIT_RULE, priority: 10000 }))).toEqual([
      400,
      'Priority must be between 0 and 9999 for user-defined rules.',
    ]);
    expect(error(await post({ ...TRAIT_RULE, phase: 'later' }))).toEqual([400, 'Invalid phase: later. Valid phases are: main']);
    expect(error(await post({ conditions: [] }))).toEqual([400, "Schema error: 'actions' is a required property"]);
    expect(error(await api.get('/v1/inspection_rules/not-a-uuid'))).toEqual([400, "Schema error: 'not-a-uuid' is not a 'uuid'"]);
    expect(error(await api.get('/v1/inspection_rules?sort_key=actions'))).toEqual([
      400,
      "Schema error: 'actions' should not be valid under {'type': 'string', 'enum': ['actions', 'conditions']}",
    ]);
    expect((await api.get('/v1/inspection_rules')).body.inspection_rules).toEqual([]);

    const uuid = '0b0f3c52-8f7e-4d4a-9d4e-3a7c2b1f0e11';
    expect((await post({ ...TRAIT_RULE, uuid })).status).toBe(201);
    expect(error(await post({ ...TRAIT_RULE, uuid }))).toEqual([409, `A rule with UUID ${uuid} already exists.`]);
  });
});

describe('rules applied by inspection', () => {
  afterEach(clearRules);

  async function manageable(name: string, inspectInterface: string): Promise<string> {
    const patched = await api.request('PATCH', `/v1/nodes/${name}`, [
      { op: 'replace', path: '/inspect_interface', value: inspectInterface },
    ]);
    expect(patched.status).toBe(200);
    await api.provision(name, 'manage');
    await api.settle(name, ['manageable'], 60_000);
    return patched.body.uuid as string;
  }

  it('in band: the rule adds a trait and sets a property from the ramdisk’s inventory', async () => {
    expect((await api.request('POST', '/v1/inspection_rules', TRAIT_RULE)).status).toBe(201);
    const never = {
      actions: [{ op: 'add-trait', args: { name: 'CUSTOM_NEVER' } }],
      conditions: [{ op: 'is-true', args: { value: false } }],
    };
    expect((await api.request('POST', '/v1/inspection_rules', never)).status).toBe(201);
    const uuid = await manageable('rule-0', 'agent');
    await api.provision(uuid, 'inspect');
    const node = await api.settle(uuid, ['manageable', 'inspect failed'], 90_000);
    expect([node.provision_state, node.last_error]).toEqual(['manageable', null]);
    expect(node.properties).toMatchObject({ cpu_arch: 'x86_64', inspected_cpus: '8' });
    expect((await api.get(`/v1/nodes/${uuid}/traits`)).body.traits).toEqual(['CUSTOM_RULED_X86']);
  });

  it('out of band over Redfish: rules see the inventory the BMC reports', async () => {
    expect((await api.request('POST', '/v1/inspection_rules', TRAIT_RULE)).status).toBe(201);
    const uuid = await manageable('rule-1', 'redfish');
    await api.provision(uuid, 'inspect');
    const node = await api.settle(uuid, ['manageable', 'inspect failed'], 60_000);
    expect([node.provision_state, node.last_error]).toEqual(['manageable', null]);
    expect((await api.get(`/v1/nodes/${uuid}/traits`)).body.traits).toEqual(['CUSTOM_RULED_X86']);
    // The inventory's CPU count is the BMC's thread count (redfish inspection sets no cpus property, as Ironic master's).
    const threads = stack.fleet!.machine('rule-1').spec.processors.reduce((n, p) => n + p.threads, 0);
    expect(node.properties).toMatchObject({ inspected_cpus: String(threads) });
  });

  it('a fail action fails the inspection with its message', async () => {
    const fail = { actions: [{ op: 'fail', args: { msg: 'no machines from this vendor' } }] };
    expect((await api.request('POST', '/v1/inspection_rules', fail)).status).toBe(201);
    const uuid = await manageable('rule-2', 'redfish');
    await api.provision(uuid, 'inspect');
    const node = await api.settle(uuid, ['manageable', 'inspect failed'], 60_000);
    expect([node.provision_state, node.last_error]).toEqual([
      'inspect failed',
      'Failed to inspect hardware. Reason: no machines from this vendor',
    ]);
  });
});
