/**
 * Firmware components on the local stack, with nothing faked but the hardware: redfish nodes of a
 * two-machine fleet (`no-firmware` by default, as Ironic's default configuration; set to
 * `redfish`) have their BIOS, BMC and NIC versions (`nic:<adapter serial>`, from the chassis'
 * NetworkAdapters) cached when they are verified, shown by `/v1/nodes/{node}/firmware` from 1.86; a
 * manual clean's `update` step flashes through the BMC's UpdateService (SimpleUpdate naming the
 * node's system) and waits in `clean wait` while the periodic task `poll_waiting_steps` follows
 * the BMC's Task as Ironic master does (the BIOS rebooted for as its Task starts, the BMC's version
 * watched through its restart, a NIC Task left in Starting rebooted for, the BMC's resources checked
 * before going on), then ends in `manageable` with the new versions shown; a failing Task fails the clean from `clean wait` with Ironic's message as
 * last_error and changes nothing (but a BMC Task found failed once its wait is over only has its version read, as master's); bad requests are refused before anything changes. The
 * components go with their node. A deployed node's firmware is updated by servicing, which waits
 * in `service wait` (no ramdisk: the instance is rebooted for the BIOS) and ends `active`.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type FleetStack, startFleetStack } from './helpers/fleet';
import { ApiClient, faultOf } from './helpers/stack';
import { cleanPolling, provisionPolling } from './helpers/polled-steps';

let fleet: FleetStack;
let api: ApiClient;
let db: DynamoDBDocumentClient;

beforeAll(async () => {
  fleet = await startFleetStack({
    count: 2,
    prefix: 'fw',
    image: Buffer.from('a whole-disk image\n'),
    // Ironic's [redfish]firmware_update_* waits, in seconds rather than minutes (the resources are checked in rapid succession).
    // The reboot delay also bounds each power state change of the reboots for BIOS and NIC images
    // (master's power_timeout): 3 s, for virtual machines that change power in 200 ms.
    settings: {
      firmwareUpdateRebootDelaySeconds: 3,
      firmwareUpdateBmcVersionCheckIntervalSeconds: 0,
      firmwareUpdateNicStartingWaitSeconds: 1,
      firmwareUpdateValidationIntervalSeconds: 0,
    },
  });
  api = new ApiClient(fleet.stack.url, '1.86');
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

type Component = Record<string, unknown>;
const componentsOf = async (node: string) => (await api.get(`/v1/nodes/${node}/firmware`)).body.firmware as Component[];
const versionsOf = async (node: string) =>
  Object.fromEntries((await componentsOf(node)).map((c) => [c.component, [c.initial_version, c.current_version, c.last_version_flashed]]));
const imageUrl = (file: string) => `${fleet.stack.fleet!.url}/images/${file}`;
/** The `nic:` components of a machine: one per NIC, named by its adapter's serial number. */
const nicsOf = (machine: string) => {
  const m = fleet.stack.fleet!.machine(machine);
  return m.spec.nics.map((_, i) => `nic:NA${m.uuid.replace(/-/g, '').slice(0, 10).toUpperCase()}${i}`);
};

async function clean(uuid: string, steps: Record<string, unknown>[]) {
  await api.provision(uuid, 'clean', { clean_steps: steps });
  return api.settle(uuid, ['manageable', 'clean failed'], 150_000);
}

/** A manual clean whose firmware update waits in `clean wait`, `poll_waiting_steps` run until it ends. */
const cleanWithUpdate = (uuid: string, steps: Record<string, unknown>[], observe?: (node: Record<string, unknown>) => void) =>
  cleanPolling(fleet.stack, api, uuid, steps, observe);

async function recover(uuid: string) {
  expect((await api.request('DELETE', `/v1/nodes/${uuid}/maintenance`)).status).toBe(202);
  await api.provision(uuid, 'manage');
  await api.settle(uuid, ['manageable'], 60_000);
}

it('caches the versions at cleaning, flashes BIOS, BMC and NICs through the UpdateService and shows the new versions', async () => {
  const uuid = (await api.get('/v1/nodes/fw-0')).body.uuid as string;
  const other = (await api.get('/v1/nodes/fw-1')).body.uuid as string;
  expect((await api.get(`/v1/nodes/${uuid}`)).body.firmware_interface).toBe('no-firmware');
  // Verifying a node without firmware support caches nothing (and fails nothing).
  await api.provision(other, 'manage');
  await api.settle(other, ['manageable'], 60_000);
  expect(await componentsOf(other)).toEqual([]);
  const set = await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'replace', path: '/firmware_interface', value: 'redfish' }]);
  expect([set.status, set.body.firmware_interface]).toEqual([200, 'redfish']);
  expect(await componentsOf(uuid)).toEqual([]);
  await api.provision(uuid, 'manage');
  await api.settle(uuid, ['manageable'], 60_000);
  // Verification cached the versions, the NICs' from the chassis' NetworkAdapters.
  const nics = nicsOf('fw-0');
  expect(nics).toHaveLength(2);
  const initial = {
    bios: ['1.0.0', '1.0.0', null],
    bmc: ['1.0.0', '1.0.0', null],
    ...Object.fromEntries(nics.map((n) => [n, ['1.0.0', '1.0.0', null]])),
  };
  expect(await versionsOf(uuid)).toEqual(initial);
  // From 1.114 the components show the identity the BMC gives: the manager's Model for the BMC, none for the BIOS, the adapters' for NICs.
  const identity = await new ApiClient(fleet.stack.url, '1.114').get(`/v1/nodes/${uuid}/firmware`);
  expect((identity.body.firmware as Component[]).map((c) => [c.component, c.vendor, c.model, c.serial_number])).toEqual([
    ['bios', null, null, null],
    ['bmc', null, 'Ironless vBMC', null],
    ...nics.map((n) => [n, 'Red Hat, Inc.', 'Virtio network device', n.slice('nic:'.length)]),
  ]);
  expect(Object.keys((identity.body.firmware as Component[])[0] ?? {})).toEqual([
    'created_at',
    'updated_at',
    'component',
    'initial_version',
    'current_version',
    'last_version_flashed',
    'vendor',
    'model',
    'serial_number',
  ]);
  const pickedIdentity = await new ApiClient(fleet.stack.url, '1.114').get(`/v1/nodes/${uuid}/firmware?fields=component,model`);
  expect((pickedIdentity.body.firmware as Component[])[1]).toEqual({
    created_at: expect.any(String),
    updated_at: null,
    component: 'bmc',
    model: 'Ironless vBMC',
  });
  expect(Object.keys((await componentsOf(uuid))[0] ?? {})).not.toContain('vendor');

  // Errors first: nothing may change.
  const old = await new ApiClient(fleet.stack.url, '1.85').get(`/v1/nodes/${uuid}/firmware`);
  // As webob's HTTPNotFound that Ironic's api_version check raises: code, title and the description.
  expect([old.status, JSON.parse(String((old.body as { error_message: string }).error_message))]).toEqual([
    404,
    { code: 404, title: 'Not Found', description: 'The API version does not allow node firmware' },
  ]);
  const missing = await api.get('/v1/nodes/no-such-node/firmware');
  expect([missing.status, faultOf(missing).faultstring]).toEqual([404, 'Node no-such-node could not be found.']);
  const vendor = await api.get(`/v1/nodes/${uuid}/firmware?fields=component,vendor`);
  expect([vendor.status, faultOf(vendor).faultstring]).toEqual([
    400,
    'Fields vendor are not allowed in this API version. They require at least API version 1.114.',
  ]);
  const notDict = await api.request('PUT', `/v1/nodes/${uuid}/states/provision`, {
    target: 'clean',
    clean_steps: [{ interface: 'firmware', step: 'update', args: [{ component: 'bios', url: imageUrl('bios-2.0.0.bin') }] }],
  });
  expect([notDict.status, faultOf(notDict).faultstring]).toEqual([
    400,
    expect.stringMatching(/^Invalid clean_steps: \[\{'component': 'bios'/),
  ]);
  expect((await api.get(`/v1/nodes/${uuid}`)).body).toMatchObject({ provision_state: 'manageable', last_error: null });

  // An invalid setting fails the step before the BMC is asked.
  const machine = fleet.stack.fleet!.machine('fw-0');
  const invalid = await clean(uuid, [
    { interface: 'firmware', step: 'update', args: { settings: [{ component: 'cpld', url: imageUrl('cpld-2.bin') }] } },
  ]);
  expect(invalid.provision_state).toBe('clean failed');
  expect(invalid.last_error).toContain("Invalid firmware update [{'component': 'cpld',");
  expect(invalid.last_error).toContain("Errors: 'cpld' is not valid under any of the given schemas");
  expect(await versionsOf(uuid)).toEqual(initial);
  await recover(uuid);

  // The update: the step posts the first image and waits in `clean wait`; the periodic task follows
  // the BMC's Task, reboots as the BIOS Task starts, waits out the BMC's restart and reads its new
  // version, reboots for the NIC Task that waits in Starting, and the cache refreshes.
  const resets = machine.resets.length;
  machine.setFaults({ bmcRestartMs: 1500, nicUpdateStartsOnReset: true });
  const {
    node: updated,
    seen,
    runs,
  } = await cleanWithUpdate(uuid, [
    {
      interface: 'firmware',
      step: 'update',
      args: {
        settings: [
          { component: 'bios', url: imageUrl('bios-2.1.0.bin') },
          { component: 'bmc', url: imageUrl('bmc-1.5.0.bin') },
          { component: nics[0], url: imageUrl('nic-3.0.bin') },
        ],
      },
    },
  ]);
  expect(seen).toMatchObject({ provision_state: 'clean wait', target_provision_state: 'manageable' });
  const info = seen?.driver_internal_info as Record<string, unknown>;
  expect(info.redfish_fw_updates).toEqual([
    {
      component: 'bios',
      url: imageUrl('bios-2.1.0.bin'),
      task_monitor: expect.stringMatching(/^\/redfish\/v1\/TaskService\/Tasks\/\d+$/),
      power_timeout: 3,
    },
    { component: 'bmc', url: imageUrl('bmc-1.5.0.bin') },
    { component: nics[0], url: imageUrl('nic-3.0.bin') },
  ]);
  expect(info.redfish_fw_update_start_time).toEqual(expect.any(String));
  expect(runs.at(-1)).toEqual({ checked: 1, resumed: 1, failed: 0 });
  machine.clearFaults();
  expect(updated).toMatchObject({ provision_state: 'manageable', last_error: null });
  expect(Object.keys(updated.driver_internal_info as object)).not.toContain('redfish_fw_updates');
  // The staged BIOS and NIC images run only after the reboots the check made (cleaning ends powered off).
  expect(machine.resets.length).toBeGreaterThan(resets);
  // The virtual BMC flashes all of a machine's NICs with one image.
  expect(await versionsOf(uuid)).toEqual({
    bios: ['1.0.0', '2.1.0', '2.1.0'],
    bmc: ['1.0.0', '1.5.0', '1.5.0'],
    ...Object.fromEntries(nics.map((n) => [n, ['1.0.0', '3.0', '3.0']])),
  });
  const bios = (await componentsOf(uuid)).find((c) => c.component === 'bios');
  expect(Object.keys(bios ?? {}).sort()).toEqual(
    ['component', 'created_at', 'current_version', 'initial_version', 'last_version_flashed', 'updated_at'].sort(),
  );
  expect(bios?.updated_at).toEqual(expect.stringMatching(/\+00:00$/));
  // SimpleUpdate named fw-0's system: the other machine kept its firmware.
  expect(fleet.stack.fleet!.machine('fw-1').powerState).toBeDefined();
  const inventory = await fetch(`${fleet.stack.fleet!.url}/fleet/v1/machines/fw-1`).then(
    (r) => r.json() as Promise<Record<string, unknown>>,
  );
  expect(inventory.firmware).toEqual({ bios: '1.0.0', bmc: '1.0.0', nic: '1.0.0', staged_bios: null, staged_nic: null });
  expect(await componentsOf(other)).toEqual([]);

  // fields picks; detail=True alone shows only the timestamps, as Ironic's does.
  const picked = (await api.get(`/v1/nodes/fw-0/firmware?fields=component,current_version`)).body.firmware as Component[];
  expect(Object.keys(picked[0] ?? {}).sort()).toEqual(['component', 'created_at', 'current_version', 'updated_at']);
  const detail = (await api.get(`/v1/nodes/fw-0/firmware?detail=True`)).body.firmware as Component[];
  expect(Object.keys(detail[0] ?? {}).sort()).toEqual(['created_at', 'updated_at']);

  // A BIOS image whose update Task fails: the clean fails from `clean wait` with Ironic's message as last_error, the versions stay.
  machine.setFaults({ firmwareUpdateFails: true });
  const failing = await cleanWithUpdate(uuid, [
    { interface: 'firmware', step: 'update', args: { settings: [{ component: 'bios', url: imageUrl('bios-9.0.0.bin') }] } },
  ]);
  const failed = (await api.get(`/v1/nodes/${uuid}`)).body as Record<string, unknown>;
  expect(failing.seen?.provision_state).toBe('clean wait');
  expect(failed.provision_state).toBe('clean failed');
  expect(failed.last_error).toBe(
    `Firmware update failed for node ${uuid}, firmware ${imageUrl('bios-9.0.0.bin')}. Error: The BIOS firmware image ${imageUrl('bios-9.0.0.bin')} failed verification and was not applied (injected fault).`,
  );
  expect(Object.keys(failed.driver_internal_info as object)).not.toContain('redfish_fw_updates');
  expect((await versionsOf(uuid)).bios).toEqual(['1.0.0', '2.1.0', '2.1.0']);
  await recover(uuid);

  // A BMC image whose Task has failed by the end of its wait: as master, only the BMC's version is
  // read then; unchanged after firmware_update_reboot_delay, the updates go on without a reboot.
  const bmcFailing = await cleanWithUpdate(uuid, [
    { interface: 'firmware', step: 'update', args: { settings: [{ component: 'bmc', url: imageUrl('bmc-9.0.0.bin') }] } },
  ]);
  machine.clearFaults();
  expect(bmcFailing.seen?.provision_state).toBe('clean wait');
  expect(bmcFailing.node).toMatchObject({ provision_state: 'manageable', last_error: null });
  expect((await versionsOf(uuid)).bmc).toEqual(['1.0.0', '1.5.0', '1.5.0']);

  // A NIC image then a BIOS image, as master: the reboot the NIC's Task owes is forgotten when the
  // BIOS image is posted, and the BIOS image is rebooted for right after its post, then again as
  // its Task starts (the node as seen before each run of the periodic task, and the power-ons).
  let powerOns = 0;
  const countPowerOn = () => void (powerOns += 1);
  machine.on('powerOn', countPowerOn);
  const trace: { component: unknown; owed: unknown; powerOns: number }[] = [];
  const nicThenBios = await cleanWithUpdate(
    uuid,
    [
      {
        interface: 'firmware',
        step: 'update',
        args: {
          settings: [
            { component: nics[0], url: imageUrl('nic-4.0.bin') },
            { component: 'bios', url: imageUrl('bios-4.0.0.bin') },
          ],
        },
      },
    ],
    (node) => {
      const info = node.driver_internal_info as Record<string, unknown>;
      const [current] = (info.redfish_fw_updates ?? []) as Record<string, unknown>[];
      trace.push({ component: current?.component, owed: info.firmware_reboot_requested, powerOns });
    },
  );
  const poweredOnAtEnd = powerOns;
  machine.off('powerOn', countPowerOn);
  expect(nicThenBios.node).toMatchObject({ provision_state: 'manageable', last_error: null });
  const lastNic = trace.filter((t) => t.component === nics[0]).at(-1);
  const firstBios = trace.find((t) => t.component === 'bios');
  expect(lastNic).toBeDefined();
  expect(firstBios).toEqual({ component: 'bios', owed: undefined, powerOns: (lastNic?.powerOns ?? NaN) + 1 });
  // One more boot, for the BIOS Task's start; none for the NIC's (cleaning ends powered off).
  expect(poweredOnAtEnd).toBe((firstBios?.powerOns ?? NaN) + 1);
  expect(await versionsOf(uuid)).toMatchObject({ bios: ['1.0.0', '4.0.0', '4.0.0'], [nics[0] as string]: ['1.0.0', '4.0', '4.0'] });

  // The components go with their node.
  const stored = () =>
    db.send(
      new QueryCommand({
        TableName: fleet.stack.tables.firmware_components,
        KeyConditionExpression: 'node_uuid = :n',
        ExpressionAttributeValues: { ':n': uuid },
        ConsistentRead: true,
      }),
    );
  expect((await stored()).Items?.length).toBe(2 + nics.length);
  expect((await api.request('DELETE', `/v1/nodes/${uuid}`)).status).toBe(204);
  expect((await stored()).Items).toEqual([]);
}, 600_000);

it('updates the firmware of a deployed node by servicing: it waits in service wait and is active again after', async () => {
  const uuid = (await api.get('/v1/nodes/fw-1')).body.uuid as string;
  const set = await api.request('PATCH', `/v1/nodes/${uuid}`, [
    { op: 'replace', path: '/firmware_interface', value: 'redfish' },
    { op: 'add', path: '/instance_info', value: fleet.image },
  ]);
  expect(set.status).toBe(200);
  if ((await api.get(`/v1/nodes/${uuid}`)).body.provision_state === 'enroll') {
    await api.provision(uuid, 'manage');
    await api.settle(uuid, ['manageable'], 60_000);
  }
  await api.provision(uuid, 'provide');
  await api.settle(uuid, ['available'], 120_000);
  await api.provision(uuid, 'active');
  expect(await api.settle(uuid, ['active', 'deploy failed'], 180_000)).toMatchObject({ provision_state: 'active' });

  // Servicing (API 1.87) needs no ramdisk for it: the BIOS image is applied by a reboot of the instance.
  const { node, seen, runs } = await provisionPolling(fleet.stack, new ApiClient(fleet.stack.url, '1.87'), uuid, {
    target: 'service',
    body: {
      service_steps: [
        { interface: 'firmware', step: 'update', args: { settings: [{ component: 'bios', url: imageUrl('bios-3.0.0.bin') }] } },
      ],
    },
    wait: 'service wait',
    stepField: 'service_step',
    ends: ['active', 'service failed'],
  });
  expect(seen).toMatchObject({ provision_state: 'service wait', target_provision_state: 'active' });
  expect((seen?.driver_internal_info as Record<string, unknown>).redfish_fw_updates).toEqual([
    {
      component: 'bios',
      url: imageUrl('bios-3.0.0.bin'),
      task_monitor: expect.stringMatching(/^\/redfish\/v1\/TaskService\/Tasks\/\d+$/),
      power_timeout: 3,
    },
  ]);
  expect(runs.at(-1)).toEqual({ checked: 1, resumed: 1, failed: 0 });
  expect(node).toMatchObject({ provision_state: 'active', last_error: null, power_state: 'power on' });
  expect((await versionsOf(uuid)).bios).toEqual(['1.0.0', '3.0.0', '3.0.0']);
}, 600_000);

it("stages a Dell iDRAC's BIOS image through its job queue: a purged Task with no scheduled job fails the update, one with a job is rebooted for", async () => {
  const uuid = (await api.get('/v1/nodes/fw-1')).body.uuid as string;
  expect((await api.get(`/v1/nodes/${uuid}`)).body.provision_state).toBe('active');
  const machine = fleet.stack.fleet!.machine('fw-1');
  // Master asks the job queue of nodes whose vendor is Dell (as inspection records it).
  const vendor = await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/properties/vendor', value: 'Dell Inc.' }]);
  expect(vendor.status).toBe(200);
  const api87 = new ApiClient(fleet.stack.url, '1.87');
  const service = (image: string) =>
    provisionPolling(fleet.stack, api87, uuid, {
      target: 'service',
      body: {
        service_steps: [{ interface: 'firmware', step: 'update', args: { settings: [{ component: 'bios', url: imageUrl(image) }] } }],
      },
      wait: 'service wait',
      stepField: 'service_step',
      ends: ['active', 'service failed'],
    });
  const resets = machine.resets.length;

  // The download fails: the iDRAC purges the Task and its job ends Failed, so no job waits for a reboot.
  machine.setFaults({ idracJobQueue: 'downloadFails' });
  const failing = await service('bios-5.0.0.bin');
  expect((failing.seen?.driver_internal_info as Record<string, unknown>).redfish_fw_updates).toEqual([
    expect.objectContaining({ component: 'bios', task_monitor: expect.stringMatching(/\/TaskService\/Tasks\/JID_\d{12}$/) }),
  ]);
  expect(failing.node).toMatchObject({
    provision_state: 'service failed',
    last_error: `Firmware update failed for node ${uuid}, firmware ${imageUrl('bios-5.0.0.bin')}. The BMC task disappeared and no scheduled job was found, indicating the firmware download or staging failed.`,
  });
  expect(Object.keys(failing.node.driver_internal_info as object)).not.toContain('redfish_fw_updates');
  expect(machine.resets.length).toBe(resets);
  expect((await versionsOf(uuid)).bios).toEqual(['1.0.0', '3.0.0', '3.0.0']);
  expect((await api.request('DELETE', `/v1/nodes/${uuid}/maintenance`)).status).toBe(202);
  await api87.provision(uuid, 'abort');
  expect(await api.settle(uuid, ['active'], 60_000)).toMatchObject({ provision_state: 'active' });

  // Staged: the job is Scheduled, so the node is rebooted to apply the image, and the service ends.
  machine.setFaults({ idracJobQueue: 'staged' });
  const staged = await service('bios-5.0.0.bin');
  machine.clearFaults();
  expect(staged.node).toMatchObject({ provision_state: 'active', last_error: null, power_state: 'power on' });
  expect(machine.resets.length).toBeGreaterThan(resets);
  expect((await versionsOf(uuid)).bios).toEqual(['1.0.0', '5.0.0', '5.0.0']);
}, 600_000);

it("discards a failed node's firmware updates when it is put in maintenance (PUT or PATCH), as master's _query_update_failed", async () => {
  // A deploy that failed while its update waited (not in maintenance: a failed deploy does not set
  // it), put there directly in DynamoDB, as the wait states are (transitions.test.ts).
  const bookkeeping = {
    redfish_fw_updates: [{ component: 'bios', url: imageUrl('bios-6.0.0.bin'), task_monitor: '/redfish/v1/TaskService/Tasks/9' }],
    redfish_fw_update_start_time: '2026-11-28T10:00:00+00:00',
    firmware_reboot_requested: true,
    other: 'kept',
  };
  const failedDeploy = async () => {
    const uuid = (await api.request('POST', '/v1/nodes', { driver: 'fake-hardware' })).body.uuid as string;
    await db.send(
      new UpdateCommand({
        TableName: fleet.stack.tables.nodes,
        Key: { uuid },
        UpdateExpression: 'SET provision_state = :s, #p = :s, target_provision_state = :t, driver_internal_info = :i',
        ExpressionAttributeNames: { '#p': '_pstate' },
        ExpressionAttributeValues: { ':s': 'deploy failed', ':t': 'active', ':i': bookkeeping },
      }),
    );
    return uuid;
  };
  const infoOf = async (uuid: string) => (await api.get(`/v1/nodes/${uuid}`)).body.driver_internal_info as Record<string, unknown>;
  for (const [how, setMaintenance] of [
    ['PUT', (uuid: string) => api.request('PUT', `/v1/nodes/${uuid}/maintenance`, { reason: 'rack work' })],
    ['PATCH', (uuid: string) => api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'replace', path: '/maintenance', value: true }])],
  ] as const) {
    const uuid = await failedDeploy();
    expect(await infoOf(uuid)).toEqual(bookkeeping);
    // Another change leaves the bookkeeping (the operator may still retry the deploy).
    expect((await api.request('PATCH', `/v1/nodes/${uuid}`, [{ op: 'add', path: '/extra/rack', value: 'r1' }])).status).toBe(200);
    expect(await infoOf(uuid)).toEqual(bookkeeping);
    const reply = await setMaintenance(uuid);
    expect([how, reply.status]).toEqual([how, how === 'PUT' ? 202 : 200]);
    // In maintenance, the updates go, so leaving it does not carry on with them.
    expect([how, await infoOf(uuid)]).toEqual([how, { other: 'kept' }]);
    expect((await api.request('DELETE', `/v1/nodes/${uuid}`)).status).toBe(204);
  }
}, 60_000);
