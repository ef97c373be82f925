/**
 * BIOS settings on the local stack, with nothing faked but the hardware: a redfish node of the
 * fleet (bios interface `redfish`, the type's default) has its settings cached when it is
 * verified, shown by `/v1/nodes/{node}/bios` per microversion (the registry's fields from 1.74),
 * changed by a manual clean's `apply_configuration` (pending values PATCHed, applied by the
 * firmware at the reboot, then a wait in `clean wait` until the periodic `poll_waiting_steps`
 * checks them) and `factory_reset`; a firmware that ignores the pending values fails the clean
 * with Ironic's last_error. The settings go with their node. An abort in `clean wait` flags the
 * step (clean steps are not abortable) and ends the clean once the step has. The BIOS apply runs
 * as a deploy's user deploy step: its reboot boots the ramdisk, whose heartbeat (nothing polls)
 * makes the step's second call and the deploy goes on from `wait call-back`, or fails at once
 * when the firmware did not take a value.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type FleetStack, startFleetStack } from './helpers/fleet';
import { ApiClient, faultOf } from './helpers/stack';
import { cleanPolling, runPeriodic } from './helpers/polled-steps';

let fleet: FleetStack;
let api: ApiClient;
let db: DynamoDBDocumentClient;

beforeAll(async () => {
  fleet = await startFleetStack({ count: 3, prefix: 'bios', image: Buffer.from('a whole-disk image\n') });
  api = new ApiClient(fleet.stack.url, '1.74');
  db = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: fleet.stack.endpoints.dynamodb,
      region: 'us-east-1',
      credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
    }),
  );
}, 120_000);

afterAll(async () => {
  db?.destroy();
  await fleet?.stop();
});

const settingsOf = async (uuid: string) =>
  Object.fromEntries(
    ((await api.get(`/v1/nodes/${uuid}/bios`)).body.bios as { name: string; value: string }[]).map((s) => [s.name, s.value]),
  );

/** A manual clean of BIOS steps: each waits in `clean wait` after its reboot until `poll_waiting_steps` sees it through. */
async function clean(uuid: string, steps: Record<string, unknown>[]) {
  const { node, seen } = await cleanPolling(fleet.stack, api, uuid, steps);
  waited.push(seen);
  return node;
}
const waited: (Record<string, unknown> | undefined)[] = [];

/**
 * A deploy with the BIOS apply as a user deploy step before deploy.deploy, with nothing running
 * `poll_waiting_steps`: the node as first seen waiting in `wait call-back` at that step, when it
 * was seen there (ms since the epoch), and the node where the deploy ends.
 */
async function deployUnpolled(uuid: string, settings: Record<string, unknown>[]) {
  await api.provision(uuid, 'active', {
    deploy_steps: [{ interface: 'bios', step: 'apply_configuration', args: { settings }, priority: 150 }],
  });
  const deadline = Date.now() + 150_000;
  let seen: Record<string, unknown> | undefined;
  let seenAt = 0;
  for (;;) {
    const node = (await api.get(`/v1/nodes/${uuid}`)).body as Record<string, unknown>;
    if (node.provision_state === 'active' || node.provision_state === 'deploy failed') return { node, seen, seenAt };
    if (
      seen === undefined &&
      node.provision_state === 'wait call-back' &&
      (node.deploy_step as { interface?: string })?.interface === 'bios'
    ) {
      seen = node;
      seenAt = Date.now();
    }
    if (Date.now() > deadline)
      throw new Error(`node ${uuid} still ${String(node.provision_state)} (last_error: ${String(node.last_error)})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** After a failed clean: out of maintenance (a clean failure puts the node there), manageable again. */
async function recover(uuid: string) {
  expect((await api.request('DELETE', `/v1/nodes/${uuid}/maintenance`)).status).toBe(202);
  await api.provision(uuid, 'manage');
  await api.settle(uuid, ['manageable'], 60_000);
}

it('caches the BIOS at verification, shows it per version, applies settings and factory-resets them through the BMC', async () => {
  const uuid = (await api.get('/v1/nodes/bios-0')).body.uuid as string;
  expect((await api.get(`/v1/nodes/${uuid}`)).body.bios_interface).toBe('redfish');
  expect((await api.get(`/v1/nodes/${uuid}/bios`)).body).toEqual({ bios: [] });
  await api.provision(uuid, 'manage');
  await api.settle(uuid, ['manageable'], 60_000);

  // 1.40: name and value, with the timestamps and links.
  const old = await new ApiClient(fleet.stack.url, '1.40').get(`/v1/nodes/bios-0/bios`);
  expect(old.status).toBe(200);
  const turbo = (old.body.bios as Record<string, unknown>[]).find((s) => s.name === 'ProcTurboMode');
  expect(turbo).toEqual({
    name: 'ProcTurboMode',
    value: 'Enabled',
    created_at: expect.stringMatching(/\+00:00$/),
    updated_at: null,
    links: [
      { href: `${fleet.stack.url}/v1/nodes/bios-0/bios/ProcTurboMode`, rel: 'self' },
      { href: `${fleet.stack.url}/nodes/bios-0/bios/ProcTurboMode`, rel: 'bookmark' },
    ],
  });
  expect(await settingsOf(uuid)).toMatchObject({ BootDelaySeconds: '5', NumLock: 'True', SystemSerial: expect.any(String) });
  const refused = await new ApiClient(fleet.stack.url, '1.73').get(`/v1/nodes/${uuid}/bios?detail=True`);
  expect([refused.status, faultOf(refused).faultstring]).toEqual([400, 'Invalid query parameter ?detail=True received.']);
  expect((await new ApiClient(fleet.stack.url, '1.39').get(`/v1/nodes/${uuid}/bios`)).status).toBe(404);

  // 1.74: the registry's fields, in detail and for one setting; `fields` picks.
  const delay = (await api.get(`/v1/nodes/${uuid}/bios/BootDelaySeconds`)).body.BootDelaySeconds;
  expect(delay).toMatchObject({
    name: 'BootDelaySeconds',
    value: '5',
    attribute_type: 'Integer',
    allowable_values: [],
    lower_bound: 0,
    upper_bound: 60,
    max_length: null,
    min_length: null,
    read_only: false,
    reset_required: false,
    unique: null,
  });
  const detail = (await api.get(`/v1/nodes/${uuid}/bios?detail=True`)).body.bios as Record<string, unknown>[];
  expect(detail.find((s) => s.name === 'SystemSerial')).toMatchObject({
    attribute_type: 'String',
    read_only: true,
    unique: true,
    max_length: 16,
  });
  expect(detail.find((s) => s.name === 'ProcTurboMode')).toMatchObject({ allowable_values: ['Enabled', 'Disabled'], reset_required: true });
  const picked = (await api.get(`/v1/nodes/${uuid}/bios?fields=name,read_only`)).body.bios as Record<string, unknown>[];
  expect(Object.keys(picked[0] ?? {}).sort()).toEqual(['created_at', 'links', 'name', 'read_only', 'updated_at']);
  const missing = await api.get(`/v1/nodes/${uuid}/bios/Nope`);
  expect([missing.status, faultOf(missing).faultstring]).toEqual([404, `Node ${uuid} doesn't have a BIOS setting 'Nope'`]);

  // apply_configuration: pending values, applied by the firmware at the reboot the step makes.
  const machine = fleet.stack.fleet!.machine('bios-0');
  const resets = machine.resets.length;
  const applied = await clean(uuid, [
    {
      interface: 'bios',
      step: 'apply_configuration',
      args: {
        settings: [
          { name: 'ProcTurboMode', value: 'Disabled' },
          { name: 'BootDelaySeconds', value: 10 },
        ],
      },
    },
  ]);
  expect(applied).toMatchObject({ provision_state: 'manageable', last_error: null });
  // After its reboot the step waited in `clean wait` with Ironic's bookkeeping, which is gone after.
  expect(waited.at(-1)).toMatchObject({
    provision_state: 'clean wait',
    clean_step: { interface: 'bios', step: 'apply_configuration' },
    driver_internal_info: expect.objectContaining({
      redfish_bios_state: { reboot_requested: true, requested_bios_attrs: { ProcTurboMode: 'Disabled', BootDelaySeconds: 10 } },
    }),
  });
  expect(Object.keys(applied.driver_internal_info as object)).not.toContain('redfish_bios_state');
  expect(machine.resets.length).toBeGreaterThan(resets);
  expect(await settingsOf(uuid)).toMatchObject({ ProcTurboMode: 'Disabled', BootDelaySeconds: '10' });
  expect((await api.get(`/v1/nodes/${uuid}/bios/ProcTurboMode`)).body.ProcTurboMode.updated_at).toEqual(expect.any(String));

  // A firmware that drops the pending values: the step fails naming them.
  fleet.stack.fleet!.machine('bios-0').setFaults({ biosIgnoresSettings: true });
  const ignored = await clean(uuid, [
    { interface: 'bios', step: 'apply_configuration', args: { settings: [{ name: 'NumLock', value: false }] } },
  ]);
  expect(waited.at(-1)?.provision_state).toBe('clean wait');
  expect(ignored.provision_state).toBe('clean failed');
  expect(ignored.last_error).toBe("Redfish BIOS apply_configuration step failed. Attributes {'NumLock': False} are not updated.");
  expect(Object.keys(ignored.driver_internal_info as object)).not.toContain('redfish_bios_state');
  machine.clearFaults();
  expect((await settingsOf(uuid)).NumLock).toBe('True');
  await recover(uuid);

  // A value the registry does not allow: the BMC refuses the PATCH.
  const bad = await clean(uuid, [
    { interface: 'bios', step: 'apply_configuration', args: { settings: [{ name: 'ProcTurboMode', value: 'Maybe' }] } },
  ]);
  expect(bad.last_error).toContain(`Redfish BIOS apply configuration failed for node ${uuid}. Error:`);
  await recover(uuid);

  // factory_reset: the defaults again, after a wait in `clean wait`.
  expect(await clean(uuid, [{ interface: 'bios', step: 'factory_reset' }])).toMatchObject({
    provision_state: 'manageable',
    last_error: null,
  });
  expect(waited.at(-1)).toMatchObject({
    provision_state: 'clean wait',
    driver_internal_info: expect.objectContaining({ redfish_bios_state: { reboot_requested: true } }),
  });
  expect(await settingsOf(uuid)).toMatchObject({ ProcTurboMode: 'Enabled', BootDelaySeconds: '5' });

  // The settings go with their node.
  const stored = () =>
    db.send(
      new QueryCommand({
        TableName: fleet.stack.tables.bios_settings,
        KeyConditionExpression: 'node_uuid = :n',
        ExpressionAttributeValues: { ':n': uuid },
        ConsistentRead: true,
      }),
    );
  expect((await stored()).Items?.length).toBe(8);
  expect((await api.request('DELETE', `/v1/nodes/${uuid}`)).status).toBe(204);
  expect((await stored()).Items).toEqual([]);
}, 600_000);

it('aborts a clean after its BIOS step, and runs the BIOS apply as a user deploy step waiting in wait call-back', async () => {
  const uuid = (await api.get('/v1/nodes/bios-1')).body.uuid as string;
  if ((await api.get(`/v1/nodes/${uuid}`)).body.provision_state !== 'manageable') {
    await api.provision(uuid, 'manage');
    await api.settle(uuid, ['manageable'], 60_000);
  }

  // Abort in clean wait: the step may not be stopped, so it is flagged and the clean ends after it.
  // Without the ramdisk (1.70) only the poll, which this test runs, ends the wait: the abort finds the node there.
  await api.provision(uuid, 'clean', {
    clean_steps: [{ interface: 'bios', step: 'apply_configuration', args: { settings: [{ name: 'ProcTurboMode', value: 'Disabled' }] } }],
    disable_ramdisk: true,
  });
  const deadline = Date.now() + 120_000;
  for (;;) {
    const node = (await api.get(`/v1/nodes/${uuid}`)).body as Record<string, unknown>;
    if (node.provision_state === 'clean wait' && (node.clean_step as { interface?: string } | null)?.interface === 'bios') break;
    if (node.provision_state === 'clean failed') throw new Error(`clean failed: ${String(node.last_error)}`);
    if (Date.now() > deadline) throw new Error(`node ${uuid} never waited at its BIOS step (${String(node.provision_state)})`);
    await new Promise((r) => setTimeout(r, 250));
  }
  await api.provision(uuid, 'abort');
  const flagged = (await api.get(`/v1/nodes/${uuid}`)).body as Record<string, unknown>;
  expect(flagged).toMatchObject({ clean_step: { interface: 'bios', step: 'apply_configuration', abort_after: true } });
  let aborted: Record<string, unknown>;
  for (;;) {
    aborted = (await api.get(`/v1/nodes/${uuid}`)).body as Record<string, unknown>;
    if (aborted.provision_state !== 'clean wait') break;
    if (Date.now() > deadline) throw new Error(`node ${uuid} still in clean wait after the abort`);
    await runPeriodic(fleet.stack, 'poll_waiting_steps');
    await new Promise((r) => setTimeout(r, 250));
  }
  aborted = await api.settle(uuid, ['clean failed', 'manageable'], 60_000);
  expect(aborted).toMatchObject({
    provision_state: 'clean failed',
    last_error: 'By request, the clean operation was aborted during or after the completion of step "bios.apply_configuration"',
  });
  expect(aborted.clean_step).toEqual({});
  expect((await settingsOf(uuid)).ProcTurboMode).toBe('Disabled');
  await recover(uuid);

  // A user deploy step (API 1.69) before deploy.deploy: its reboot boots the ramdisk (Ironic's
  // reboot_to_finish_step), whose heartbeat makes the step's second call; nothing polls here.
  const set = await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/instance_info', value: fleet.image }]);
  expect(set.status).toBe(200);
  await api.provision(uuid, 'provide');
  await api.settle(uuid, ['available'], 120_000);
  const { node, seen } = await deployUnpolled(uuid, [{ name: 'NumLock', value: false }]);
  expect(node).toMatchObject({ provision_state: 'active', last_error: null });
  expect(seen).toMatchObject({
    target_provision_state: 'active',
    deploy_step: { interface: 'bios', step: 'apply_configuration' },
    driver_internal_info: expect.objectContaining({
      redfish_bios_state: { reboot_requested: true, requested_bios_attrs: { NumLock: false } },
    }),
  });
  expect((await settingsOf(uuid)).NumLock).toBe('False');
  expect(Object.keys(node.driver_internal_info as object)).not.toContain('redfish_bios_state');
}, 600_000);

it("fails a deploy step whose BIOS value the firmware never takes at the ramdisk's heartbeat, not at the callback timeout", async () => {
  const uuid = (await api.get('/v1/nodes/bios-2')).body.uuid as string;
  await api.provision(uuid, 'manage');
  await api.settle(uuid, ['manageable'], 60_000);
  expect((await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/instance_info', value: fleet.image }])).status).toBe(200);
  await api.provision(uuid, 'provide');
  await api.settle(uuid, ['available'], 120_000);

  const machine = fleet.stack.fleet!.machine('bios-2');
  const resets = machine.resets.length;
  machine.setFaults({ biosIgnoresSettings: true });
  const { node, seen, seenAt } = await deployUnpolled(uuid, [{ name: 'NumLock', value: false }]);
  machine.clearFaults();
  expect(seen).toMatchObject({ provision_state: 'wait call-back', deploy_step: { interface: 'bios', step: 'apply_configuration' } });
  expect(node).toMatchObject({
    provision_state: 'deploy failed',
    last_error: "Redfish BIOS apply_configuration step failed. Attributes {'NumLock': False} are not updated.",
  });
  // The step's reboot booted the ramdisk, whose heartbeat failed the step: well inside the
  // callback timeout (300 s here), with nothing polling.
  expect(Date.now() - seenAt).toBeLessThan(120_000);
  expect(machine.resets.length).toBeGreaterThan(resets);
  expect(Object.keys(node.driver_internal_info as object)).not.toContain('redfish_bios_state');
  expect((await settingsOf(uuid)).NumLock).toBe('True');
}, 600_000);
