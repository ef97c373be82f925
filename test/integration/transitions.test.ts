/**
 * Every provision verb of the API against nodes in every one of the 32 states, checked against the
 * state machine table: allowed verbs are accepted (202) and the node is at once in the verb's first
 * state with its target; others get Ironic's 400 and leave the node untouched. Nodes are put in
 * each state directly in DynamoDB, as no driver reaches some states (the wait states) by itself.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as st from '../../functions/common/states';
import type { LocalStack } from '../../local/stack';
import { ApiClient, faultOf, startStack } from './helpers/stack';

let stack: LocalStack;
let api: ApiClient;
let db: DynamoDBDocumentClient;

beforeAll(async () => {
  stack = await startStack();
  api = new ApiClient(stack.url, '1.87');
  db = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: stack.endpoints.dynamodb,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );
}, 60_000);

afterAll(async () => {
  db?.destroy();
  await stack?.stop();
});

/** A node put in `state` directly (with the target that state has). */
async function nodeIn(state: string): Promise<string> {
  const created = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware' });
  const uuid = created.body.uuid as string;
  const target = st.targetOf(state);
  await db.send(
    new UpdateCommand({
      TableName: stack.tables.nodes,
      Key: { uuid },
      UpdateExpression:
        target === null
          ? 'SET provision_state = :s, #p = :s REMOVE target_provision_state'
          : 'SET provision_state = :s, #p = :s, target_provision_state = :t',
      ExpressionAttributeNames: { '#p': '_pstate' },
      ExpressionAttributeValues: target === null ? { ':s': state } : { ':s': state, ':t': target },
    }),
  );
  return uuid;
}

const VERBS: [target: string, extra: Record<string, unknown>][] = [
  ['active', {}],
  ['deploy', {}],
  ['rebuild', {}],
  ['deleted', {}],
  ['undeploy', {}],
  ['manage', {}],
  ['provide', {}],
  ['inspect', {}],
  ['abort', {}],
  ['clean', { clean_steps: [{ interface: 'deploy', step: 'erase_devices' }] }],
  ['adopt', {}],
  ['rescue', { rescue_password: 'secret' }],
  ['unrescue', {}],
  ['unhold', {}],
  ['service', { service_steps: [{ interface: 'vendor', step: 'log_passthrough', args: {} }] }],
];

describe.each(st.ALL_STATES.map((s) => [s]))('from %s', (state) => {
  it('accepts exactly the verbs the table allows, moving to the verb’s first state', async () => {
    // With the conductor's queue mapping disabled, what the API did is what the node shows.
    stack.setEventSourcesEnabled(false);
    try {
      for (const [target, extra] of VERBS) {
        const uuid = await nodeIn(state);
        const event = (st.VERBS[target] ?? target) as st.ProvisionEvent;
        // Servicing aborted while it waits goes on from service failed to active (Ironic 2025.2).
        const serviceAbort = event === 'abort' && (state === st.SERVICEWAIT || state === st.SERVICEHOLD);
        // A manual clean is aimed at manageable, not at cleaning's usual available.
        const expected = serviceAbort
          ? st.transition(st.SERVICEFAIL, 'abort')
          : st.transition(state, event, event === 'clean' ? st.MANAGEABLE : null);
        // Abort from wait call-back is API 1.110's (below it a 406, node-fields-1xx.test.ts).
        const headers: Record<string, string> =
          event === 'abort' && state === st.DEPLOYWAIT ? { 'X-OpenStack-Ironic-API-Version': '1.110' } : {};
        const reply = await api.request('PUT', `/v1/nodes/${uuid}/states/provision`, { target, ...extra }, headers);
        const after = (await api.get(`/v1/nodes/${uuid}`)).body;
        if (expected === undefined) {
          expect({ target, status: reply.status }).toEqual({ target, status: 400 });
          expect(faultOf(reply).faultstring).toBe(
            `The requested action "${target}" can not be performed on node "${uuid}" while it is in state "${state}".`,
          );
          expect({ target, state: after.provision_state, reservation: after.reservation }).toEqual({ target, state, reservation: null });
        } else {
          expect({ target, status: reply.status, text: reply.text }).toEqual({ target, status: 202, text: '' });
          const pureChange = event === 'manage' && state !== st.ENROLL;
          expect({
            target,
            state: after.provision_state,
            target_state: after.target_provision_state,
            locked: after.reservation !== null,
          }).toEqual({
            target,
            state: expected.provisionState,
            target_state: expected.targetProvisionState,
            locked: !pureChange,
          });
        }
      }
    } finally {
      stack.setEventSourcesEnabled(true);
    }
  }, 60_000);
});

it('refuses verbs newer than the requested version with 406', async () => {
  const uuid = await nodeIn(st.CLEANHOLD);
  const reply = await new ApiClient(stack.url, '1.84').request('PUT', `/v1/nodes/${uuid}/states/provision`, { target: 'unhold' });
  expect(reply.status).toBe(406);
  const manage = await new ApiClient(stack.url, '1.3').request('PUT', `/v1/nodes/${uuid}/states/provision`, { target: 'manage' });
  expect(manage.status).toBe(406);
});

it('aborting a clean wait fails the cleaning with Ironic’s message and stops the waiting execution', async () => {
  const uuid = await nodeIn(st.CLEANWAIT);
  await api.provision(uuid, 'abort');
  const failed = await api.waitFor(uuid, st.CLEANFAIL);
  expect(failed.last_error).toBe('By request, the clean operation was aborted');
  for (let i = 0; i < 100 && (await api.get(`/v1/nodes/${uuid}`)).body.reservation !== null; i++)
    await new Promise((r) => setTimeout(r, 50));
  expect((await api.get(`/v1/nodes/${uuid}`)).body.reservation).toBeNull();
});

it('abort during a step that may not be stopped only flags the step, for the conductor to abort after it', async () => {
  stack.setEventSourcesEnabled(false);
  try {
    for (const [state, field] of [
      [st.CLEANWAIT, 'clean_step'],
      [st.SERVICEWAIT, 'service_step'],
      [st.DEPLOYWAIT, 'deploy_step'],
    ] as const) {
      const uuid = await nodeIn(state);
      const step = { interface: 'deploy', step: 'erase_devices', priority: 10, args: {}, abortable: false };
      await db.send(
        new UpdateCommand({
          TableName: stack.tables.nodes,
          Key: { uuid },
          UpdateExpression: `SET ${field} = :s`,
          ExpressionAttributeValues: { ':s': step },
        }),
      );
      const headers: Record<string, string> = state === st.DEPLOYWAIT ? { 'X-OpenStack-Ironic-API-Version': '1.110' } : {};
      for (let i = 0; i < 2; i++) {
        const reply = await api.request('PUT', `/v1/nodes/${uuid}/states/provision`, { target: 'abort' }, headers);
        expect({ state, status: reply.status }).toEqual({ state, status: 202 });
      }
      const after = (await api.get(`/v1/nodes/${uuid}`)).body;
      expect({ state: after.provision_state, step: after[field], reservation: after.reservation, last_error: after.last_error }).toEqual({
        state,
        step: { ...step, abort_after: true },
        reservation: null,
        last_error: null,
      });
    }
  } finally {
    stack.setEventSourcesEnabled(true);
  }
});

it('abort from service failed is refused while the node is in maintenance', async () => {
  const uuid = await nodeIn(st.SERVICEFAIL);
  expect((await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'replace', path: '/maintenance', value: true }])).status).toBe(200);
  const reply = await api.request('PUT', `/v1/nodes/${uuid}/states/provision`, { target: 'abort' });
  expect(reply.status).toBe(409);
  expect(faultOf(reply).faultstring).toBe(
    `Can not abort service on node "${uuid}" while it is in maintenance mode. Please remove the node from maintenance prior to issuing the request to abort the service operation.`,
  );
  expect((await api.get(`/v1/nodes/${uuid}`)).body).toMatchObject({ provision_state: st.SERVICEFAIL, reservation: null });
});

describe('flows a fake-hardware node finishes', () => {
  it.each([
    [st.MANAGEABLE, 'inspect', st.MANAGEABLE],
    [st.MANAGEABLE, 'adopt', st.ACTIVE],
    [st.ACTIVE, 'rescue', st.RESCUE],
    [st.RESCUE, 'unrescue', st.ACTIVE],
    [st.ACTIVE, 'rebuild', st.ACTIVE],
    [st.AVAILABLE, 'manage', st.MANAGEABLE],
  ])(
    '%s --%s--> … → %s',
    async (from, target, end) => {
      const uuid = await nodeIn(from);
      await api.provision(uuid, target, target === 'rescue' ? { rescue_password: 'pw' } : {});
      const node = await api.waitFor(uuid, end);
      expect(node.last_error).toBeNull();
      expect(node.target_provision_state).toBeNull();
      for (let i = 0; i < 100 && (await api.get(`/v1/nodes/${uuid}`)).body.reservation !== null; i++)
        await new Promise((r) => setTimeout(r, 50));
      expect((await api.get(`/v1/nodes/${uuid}`)).body.reservation).toBeNull();
    },
    30_000,
  );

  it('manual cleaning with a step the driver lacks ends in clean failed, saying which', async () => {
    const uuid = await nodeIn(st.MANAGEABLE);
    await api.provision(uuid, 'clean', { clean_steps: [{ interface: 'deploy', step: 'erase_devices' }] });
    const node = await api.waitFor(uuid, st.CLEANFAIL);
    expect(node).toMatchObject({
      target_provision_state: st.MANAGEABLE,
      last_error: `Cannot clean node ${uuid}: node does not support this clean step: {'interface': 'deploy', 'step': 'erase_devices'}`,
    });
  }, 30_000);

  it('clean without steps, or with malformed steps, is refused before anything changes', async () => {
    const uuid = await nodeIn(st.MANAGEABLE);
    const none = await api.request('PUT', `/v1/nodes/${uuid}/states/provision`, { target: 'clean' });
    expect(faultOf(none).faultstring).toBe('"clean_steps" is required when setting target provision state to clean');
    const bad = await api.request('PUT', `/v1/nodes/${uuid}/states/provision`, {
      target: 'clean',
      clean_steps: [{ interface: 'nope', step: 'x' }],
    });
    expect(bad.status).toBe(400);
    expect(faultOf(bad).faultstring).toMatch(/^Invalid clean_steps: 'nope' is not one of/);
    expect((await api.get(`/v1/nodes/${uuid}`)).body.provision_state).toBe(st.MANAGEABLE);
  });

  it('a manual clean with disable_ramdisk runs no step that needs the ramdisk, and says so', async () => {
    const uuid = await nodeIn(st.MANAGEABLE);
    await api.provision(uuid, 'clean', { clean_steps: [{ interface: 'bios', step: 'factory_reset' }], disable_ramdisk: true });
    const node = await api.waitFor(uuid, st.CLEANFAIL);
    expect(node).toMatchObject({
      target_provision_state: st.MANAGEABLE,
      maintenance: false,
      last_error: `Cannot clean node ${uuid}: clean step {'interface': 'bios', 'step': 'factory_reset'} requires booting a ramdisk`,
    });
    // manage from clean failed is a state change only: the error stays, as Ironic keeps it.
    await api.provision(uuid, 'manage');
    expect(await api.waitFor(uuid, st.MANAGEABLE)).toMatchObject({ target_provision_state: null, last_error: node.last_error });
  }, 30_000);
});

describe("refusals Ironic's conductor makes inside its synchronous call, made by the API before anything changes", () => {
  const refused = async (uuid: string, body: Record<string, unknown>, status: number, message: string, version?: string) => {
    const before = (await api.get(`/v1/nodes/${uuid}`)).body;
    const headers: Record<string, string> = version === undefined ? {} : { 'X-OpenStack-Ironic-API-Version': version };
    const reply = await api.request('PUT', `/v1/nodes/${uuid}/states/provision`, body, headers);
    expect({ status: reply.status, message: faultOf(reply).faultstring }).toEqual({ status, message });
    const after = (await api.get(`/v1/nodes/${uuid}`)).body;
    expect([after.provision_state, after.target_provision_state, after.reservation, after.updated_at]).toEqual([
      before.provision_state,
      before.target_provision_state,
      null,
      before.updated_at,
    ]);
  };
  const inMaintenance = async (state: string) => {
    const uuid = await nodeIn(state);
    expect((await api.request('PUT', `/v1/nodes/${uuid}/maintenance`, { reason: 'repair' })).status).toBe(202);
    return uuid;
  };

  it.each([
    [st.MANAGEABLE, { target: 'clean', clean_steps: [{ interface: 'bios', step: 'factory_reset' }] }, 'cleaning'],
    [st.ACTIVE, { target: 'rescue', rescue_password: 'pw' }, 'rescuing'],
    [st.RESCUE, { target: 'unrescue' }, 'unrescuing'],
    [st.ACTIVE, { target: 'service', service_steps: [{ interface: 'vendor', step: 'log_passthrough' }] }, 'service'],
  ])('in maintenance, from %s: %j is a 400 naming the operation', async (state, body, op) => {
    const uuid = await inMaintenance(state);
    await refused(uuid, body, 400, `The ${op} operation can't be performed on node ${uuid} because it's in maintenance mode.`);
  });

  it.each([['deleted'], ['rebuild']])('a protected node is not %s: 403 NodeProtected', async (target) => {
    const uuid = await nodeIn(st.ACTIVE);
    expect((await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'replace', path: '/protected', value: true }])).status).toBe(200);
    await refused(uuid, { target }, 403, `Node ${uuid} is protected and cannot be undeployed, rebuilt or deleted`);
  });

  it('a retired node is not provided', async () => {
    const uuid = await nodeIn(st.MANAGEABLE);
    await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'replace', path: '/retired', value: true }]);
    await refused(uuid, { target: 'provide' }, 400, `The providing operation can't be performed on node ${uuid} because it is retired.`);
  });

  it('disable_ramdisk is for manual cleaning from API 1.70 and servicing from 1.108, no other verb', async () => {
    const uuid = await nodeIn(st.MANAGEABLE);
    const clean = { target: 'clean', clean_steps: [{ interface: 'bios', step: 'factory_reset' }], disable_ramdisk: true };
    await refused(uuid, clean, 406, 'disable_ramdisk is not acceptable in this API version', '1.69');
    const other = 'disable_ramdisk is supported only with manual cleaning or servicing';
    await refused(uuid, { target: 'provide', disable_ramdisk: false }, 400, other);
    const active = await nodeIn(st.ACTIVE);
    const service = { target: 'service', service_steps: [{ interface: 'vendor', step: 'log_passthrough' }], disable_ramdisk: true };
    await refused(active, service, 406, 'disable_ramdisk is not acceptable in this API version', '1.107');
    await refused(active, { target: 'rebuild', disable_ramdisk: true }, 400, other, '1.108');
  });
});
