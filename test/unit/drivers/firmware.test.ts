/**
 * The firmware interfaces: the `update` step's settings checked as Ironic's schema checks them,
 * fake-hardware's `fake` firmware (Ironic's FakeFirmware), and the redfish one against a mocked
 * BMC client: the cache reads BiosVersion and the manager's FirmwareVersion; `update` posts the
 * first SimpleUpdate (naming the system when the BMC has several), records `redfish_fw_updates`
 * and waits; the step's `poll` (what the periodic task calls) follows the Task: reboots for the BIOS
 * once its Task started and for NICs at the end, not for a BMC whose version changed, waits a
 * `wait`, posts the next, caches the new versions (the per-component cases: firmware-updates.test.ts); a failed Task fails with Ironic's message; bad settings are refused before the BMC is
 * asked anything.
 */
import { jest } from '@jest/globals';
import { Logger } from '@aws-lambda-powertools/logger';
import { InvalidParameterValue, RedfishError, UnsupportedDriverExtension } from '../../../functions/common/errors';
import type { BootInterface, PowerInterface, StepDefinition, Task } from '../../../functions/drivers/base';
import { fakeFirmware, parseFirmwareUpdates } from '../../../functions/drivers/firmware';
import { type RedfishClient, RedfishRequestError, type Resource } from '../../../functions/drivers/redfish/client';
import { DEFAULT_FIRMWARE_UPDATE_CONFIG, DEFAULT_REDFISH_CONFIG, type RedfishConfig } from '../../../functions/drivers/redfish/config';
import { createRedfishFirmware } from '../../../functions/drivers/redfish/firmware';
import { RedfishSystem } from '../../../functions/drivers/redfish/system';
import { PERMISSIVE_FETCH_POLICY } from '../../../functions/drivers/hosts';
import { makeNode } from '../helpers/builders';
import { MemoryFirmwareComponentStore } from '../helpers/memory-stores';

const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
// The resources' stability check is firmware-updates.test.ts's: skipped here.
const config: RedfishConfig = {
  ...DEFAULT_REDFISH_CONFIG,
  powerPollIntervalMs: 1,
  policy: PERMISSIVE_FETCH_POLICY,
  firmwareUpdate: { ...DEFAULT_FIRMWARE_UPDATE_CONFIG, requiredSuccesses: 0 },
};
/** Move the clock past a BMC image's wait (firmware_update_reboot_delay). */
const afterRebootDelay = () => {
  const later = Date.now() + 301_000;
  jest.spyOn(Date, 'now').mockImplementation(() => later);
};
afterEach(() => jest.restoreAllMocks());
const SYSTEM = '/redfish/v1/Systems/1';
const MANAGER = '/redfish/v1/Managers/1';
const TASK = '/redfish/v1/TaskService/Tasks/7';
const TARGET = '/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate';

describe('parseFirmwareUpdates', () => {
  it('takes bios, bmc and nic: components with a URL and an optional wait', () => {
    expect(
      parseFirmwareUpdates([
        { component: 'bios', url: 'http://i/b.bin' },
        { component: 'nic:NIC.1', url: 'http://i/n.bin', wait: 5 },
      ]),
    ).toEqual([
      { component: 'bios', url: 'http://i/b.bin' },
      { component: 'nic:NIC.1', url: 'http://i/n.bin', wait: 5 },
    ]);
  });

  it.each([
    [{ component: 'bios' }, "[{'component': 'bios'}]. Errors: 'url' is a required property"],
    [{ component: 'cpld', url: 'u' }, "Errors: 'cpld' is not valid under any of the given schemas"],
    [{ component: 'bmc', url: '' }, "Errors: '' is too short"],
    [{ component: 'bmc', url: 'u', wait: 0 }, 'Errors: 0 is less than the minimum of 1'],
    [{ component: 'bmc', url: 'u', checksum: 'x' }, "Errors: Additional properties are not allowed ('checksum' was unexpected)"],
  ])('refuses %j with Ironic’s message', (item, message) => {
    expect(() => parseFirmwareUpdates([item])).toThrow(InvalidParameterValue);
    expect(() => parseFirmwareUpdates([item])).toThrow(message);
  });

  it('refuses an empty list and what is no list', () => {
    expect(() => parseFirmwareUpdates([])).toThrow('Invalid firmware update []. Errors: [] is too short');
    expect(() => parseFirmwareUpdates('bios')).toThrow("Invalid firmware update 'bios'. Errors: 'bios' is not of type 'array'");
  });
});

describe("fake-hardware's firmware", () => {
  it('offers an update clean step that records nothing, and a cache that reads nothing', async () => {
    const store = new MemoryFirmwareComponentStore();
    const node = makeNode();
    const task: Task = { node, log, firmwareComponents: { record: async (r) => void (await store.sync(node.uuid, r)) } };
    const update = fakeFirmware.cleanSteps?.find((s) => s.step === 'update') as StepDefinition;
    expect(update).toMatchObject({ priority: 0, argsinfo: { settings: { required: true } } });
    expect(await update.execute(task, { settings: [{ component: 'bios', url: 'http://x/b.bin' }] })).toEqual({ wait: false });
    await fakeFirmware.cacheFirmwareComponents(task);
    expect(await store.list(node.uuid)).toEqual([]);
  });
});

/** A BMC behind a mocked client: its documents, a Task that runs for `runningPolls` reads, and the requests made. */
function bmc(options: { systems?: number; taskEnd?: Resource; runningPolls?: number; biosVersion?: string | null } = {}) {
  const versions = { bios: options.biosVersion === undefined ? '1.0' : options.biosVersion, bmc: '1.0' };
  const posts: { path: string; body: Resource }[] = [];
  let polls = 0;
  let pending: { component: 'bios' | 'bmc'; version: string } | undefined;
  const docs = (path: string): Resource => {
    switch (path) {
      case '/redfish/v1/':
        return { Systems: { '@odata.id': '/redfish/v1/Systems' }, UpdateService: { '@odata.id': '/redfish/v1/UpdateService' } };
      case '/redfish/v1/Systems':
        return { Members: Array.from({ length: options.systems ?? 1 }, (_, i) => ({ '@odata.id': `/redfish/v1/Systems/${i + 1}` })) };
      case SYSTEM:
        return { ...(versions.bios === null ? {} : { BiosVersion: versions.bios }), Links: { ManagedBy: [{ '@odata.id': MANAGER }] } };
      case MANAGER:
        return { FirmwareVersion: versions.bmc };
      case '/redfish/v1/UpdateService':
        return { Actions: { '#UpdateService.SimpleUpdate': { target: TARGET } } };
      case TASK: {
        polls += 1;
        if (polls <= (options.runningPolls ?? 1)) return { TaskState: 'Running', TaskStatus: 'OK' };
        polls = 0;
        const end = options.taskEnd ?? { TaskState: 'Completed', TaskStatus: 'OK' };
        if (end.TaskState === 'Completed' && pending) versions[pending.component] = pending.version;
        return end;
      }
      default:
        throw new Error(`unexpected GET ${path}`);
    }
  };
  const client = {
    root: '/redfish/v1/',
    get: jest.fn(async (path: string) => docs(path)),
    post: jest.fn(async (path: string, body: Resource) => {
      posts.push({ path, body });
      const match = /\/(bios|bmc)-([\d.]+)\.bin$/.exec(String(body.ImageURI));
      pending = match ? { component: match[1] as 'bios' | 'bmc', version: match[2] as string } : undefined;
      return { '@odata.id': TASK, TaskState: 'Running' };
    }),
  };
  const power = { reboot: jest.fn(async () => undefined) } as unknown as PowerInterface;
  const boot = { prepareRamdisk: jest.fn(async () => undefined) } as unknown as BootInterface;
  const firmware = createRedfishFirmware(config, power, boot, {
    getSystem: async () => new RedfishSystem(client as unknown as RedfishClient, SYSTEM, docs(SYSTEM)),
  });
  const store = new MemoryFirmwareComponentStore();
  const node = makeNode({ driver: 'redfish' });
  const task: Task = { node, log, firmwareComponents: { record: async (r) => void (await store.sync(node.uuid, r)) } };
  const update = firmware.cleanSteps?.find((s) => s.step === 'update') as StepDefinition;
  const stored = async () =>
    (await store.list(node.uuid)).map((c) => [c.component, c.initial_version, c.current_version, c.last_version_flashed]);
  return { client, posts, power, firmware, task, update, stored };
}

describe('redfish firmware', () => {
  it('caches the BIOS and BMC versions the BMC reports', async () => {
    const { firmware, task, stored } = bmc();
    await firmware.cacheFirmwareComponents(task);
    expect(await stored()).toEqual([
      ['bios', '1.0', '1.0', null],
      ['bmc', '1.0', '1.0', null],
    ]);
  });

  it("starts the first update, records Ironic's bookkeeping and waits", async () => {
    const { task, update, posts } = bmc({ systems: 2 });
    const outcome = await update.execute(task, {
      settings: [
        { component: 'bios', url: 'http://images/bios-2.0.bin' },
        { component: 'bmc', url: 'http://images/bmc-3.0.bin', wait: 30 },
      ],
    });
    expect(outcome).toEqual({ wait: true });
    // Two systems on the BMC: the update names the node's; only the first is posted.
    expect(posts).toEqual([{ path: TARGET, body: { ImageURI: 'http://images/bios-2.0.bin', Targets: [SYSTEM] } }]);
    expect(task.node.driver_internal_info.redfish_fw_updates).toEqual([
      { component: 'bios', url: 'http://images/bios-2.0.bin', task_monitor: TASK, power_timeout: 300 },
      { component: 'bmc', url: 'http://images/bmc-3.0.bin', wait: 30 },
    ]);
    expect(Date.parse(String(task.node.driver_internal_info.redfish_fw_update_start_time))).not.toBeNaN();
  });

  it('follows the Task across checks: reboots once the BIOS Task started, posts the next, watches the BMC version, caches at the end', async () => {
    const { firmware, task, update, posts, power, stored } = bmc({ runningPolls: 1 });
    await firmware.cacheFirmwareComponents(task);
    await update.execute(task, {
      settings: [
        { component: 'bios', url: 'http://images/bios-2.0.bin' },
        { component: 'bmc', url: 'http://images/bmc-3.0.bin' },
      ],
    });
    const check = () => update.poll!(task);
    expect(await check()).toEqual({ state: 'waiting' }); // the BIOS Task runs: reboot at once
    expect(power.reboot).toHaveBeenCalledTimes(1);
    // Each power state change of it may take firmware_update_reboot_delay (master's power_timeout).
    expect(power.reboot).toHaveBeenCalledWith(task, 300);
    expect(await check()).toEqual({ state: 'waiting' }); // completed: the BMC image posted
    expect(power.reboot).toHaveBeenCalledTimes(1);
    expect(posts.map((p) => p.body.ImageURI)).toEqual(['http://images/bios-2.0.bin', 'http://images/bmc-3.0.bin']);
    expect(task.node.driver_internal_info.redfish_fw_updates).toEqual([
      {
        component: 'bmc',
        url: 'http://images/bmc-3.0.bin',
        task_monitor: TASK,
        power_timeout: 300,
        wait: 300,
        wait_start_time: expect.any(String),
        bmc_check_start_time: expect.any(String),
      },
    ]);
    expect(task.node.driver_internal_info.bmc_fw_version_before_update).toBe('1.0');
    expect(await check()).toEqual({ state: 'waiting' }); // the BMC image's wait
    afterRebootDelay();
    expect(await check()).toEqual({ state: 'waiting' }); // its Task still runs
    expect(await check()).toEqual({ state: 'done' }); // completed, and the BMC's version changed
    // A BMC restarts by itself: no second reboot.
    expect(power.reboot).toHaveBeenCalledTimes(1);
    for (const key of ['redfish_fw_updates', 'redfish_fw_update_start_time', 'firmware_reboot_requested', 'bmc_fw_version_before_update']) {
      expect(task.node.driver_internal_info).not.toHaveProperty(key);
    }
    expect(await stored()).toEqual([
      ['bios', '1.0', '2.0', '2.0'],
      ['bmc', '1.0', '3.0', '3.0'],
    ]);
  });

  it('forgets the reboot a NIC image owes when the next update is posted, as master', async () => {
    const { task, update, power } = bmc({ runningPolls: 0 });
    await update.execute(task, {
      settings: [
        { component: 'nic:NIC.1', url: 'http://images/nic-2.0.bin' },
        { component: 'bmc', url: 'http://images/bmc-3.0.bin' },
      ],
    });
    expect(await update.poll!(task)).toEqual({ state: 'waiting' }); // the NIC Task done: the BMC image posted
    expect(power.reboot).not.toHaveBeenCalled();
    expect(task.node.driver_internal_info).not.toHaveProperty('firmware_reboot_requested');
    afterRebootDelay();
    expect(await update.poll!(task)).toEqual({ state: 'done' });
    expect(power.reboot).not.toHaveBeenCalled();
  });

  it("waits an update's wait across checks, from wait_start_time", async () => {
    const { task, update } = bmc({ runningPolls: 0 });
    await update.execute(task, { settings: [{ component: 'nic:NIC.1', url: 'http://images/nic-3.0.bin', wait: 60 }] });
    expect(await update.poll!(task)).toEqual({ state: 'waiting' });
    const [pending] = task.node.driver_internal_info.redfish_fw_updates as Record<string, unknown>[];
    expect(Date.parse(String(pending?.wait_start_time))).not.toBeNaN();
    expect(await update.poll!(task)).toEqual({ state: 'waiting' });
    task.node.driver_internal_info = {
      ...task.node.driver_internal_info,
      redfish_fw_updates: [{ ...pending, wait_start_time: new Date(Date.now() - 61_000).toISOString() }],
    };
    expect(await update.poll!(task)).toEqual({ state: 'done' });
  });

  it("fails with Ironic's message and the Task's messages when the Task ends in an exception, caching nothing new", async () => {
    const { update, task, power, stored, firmware } = bmc({
      taskEnd: {
        TaskState: 'Exception',
        TaskStatus: 'Critical',
        Messages: [
          { MessageId: 'Update.1.0.ApplyFailed', Message: 'Bad image.' },
          { MessageId: 'Update.1.0.Other', Message: 'Unknown' },
        ],
      },
    });
    await firmware.cacheFirmwareComponents(task);
    await update.execute(task, { settings: [{ component: 'bios', url: 'http://images/bios-2.0.bin' }] });
    expect(await update.poll!(task)).toEqual({ state: 'waiting' });
    expect(power.reboot).toHaveBeenCalledTimes(1); // the BIOS Task had started
    expect(await update.poll!(task)).toEqual({
      state: 'failed',
      message: `Firmware update failed for node ${task.node.uuid}, firmware http://images/bios-2.0.bin. Error: Bad image.,  Update.1.0.Other`,
    });
    expect(task.node.driver_internal_info).not.toHaveProperty('redfish_fw_updates');
    expect(await stored()).toEqual([
      ['bios', '1.0', '1.0', null],
      ['bmc', '1.0', '1.0', null],
    ]);
  });

  it('assumes success when the BMC has dropped the Task, and waits while the BMC cannot be reached', async () => {
    const { update, task, client, power } = bmc();
    await update.execute(task, { settings: [{ component: 'nic:NIC.1', url: 'http://images/nic-3.0.bin' }] });
    const fallback = client.get.getMockImplementation()!;
    client.get.mockImplementation(async (path: string) => {
      if (path === TASK) throw new RedfishRequestError('connect ECONNREFUSED', 'connection', 'GET', path, true);
      return fallback(path);
    });
    expect(await update.poll!(task)).toEqual({ state: 'waiting' });
    client.get.mockImplementation(async (path: string) => {
      if (path === TASK) throw new RedfishRequestError(`HTTP GET ${path} returned code 404.`, 'http', 'GET', path, false, 404);
      return fallback(path);
    });
    expect(await update.poll!(task)).toEqual({ state: 'done' });
    expect(power.reboot).not.toHaveBeenCalled(); // as master: a NIC Task gone owes no reboot
  });

  it("refuses at the step, with Ironic's message, an update the BMC will not take", async () => {
    const { update, task, client } = bmc();
    client.post.mockImplementation(async (path: string) => {
      throw new RedfishRequestError(`HTTP POST ${path} returned code 400. Bad ImageURI`, 'http', 'POST', path, false, 400);
    });
    const err = await update.execute(task, { settings: [{ component: 'bmc', url: 'http://images/bmc-3.0.bin' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedfishError);
    expect((err as Error).message).toContain(
      `Firmware update failed for node ${task.node.uuid}, firmware http://images/bmc-3.0.bin. Error: HTTP POST`,
    );
    expect(task.node.driver_internal_info).not.toHaveProperty('redfish_fw_updates');
  });

  it('refuses bad settings before asking the BMC anything', async () => {
    const { update, task, client } = bmc();
    await expect(update.execute(task, { settings: [{ component: 'bios' }] })).rejects.toThrow(InvalidParameterValue);
    expect(client.get).not.toHaveBeenCalled();
    expect(client.post).not.toHaveBeenCalled();
  });

  it('has no supported components when the BMC reports no versions', async () => {
    const { firmware, task, client } = bmc({ biosVersion: null });
    client.get.mockImplementation(async (path: string) => (path === MANAGER ? {} : { Links: { ManagedBy: [{ '@odata.id': MANAGER }] } }));
    await expect(firmware.cacheFirmwareComponents(task)).rejects.toThrow(UnsupportedDriverExtension);
  });

  it('is a clean, deploy and service step of priority 0; servicing needs no ramdisk', () => {
    const { firmware } = bmc();
    for (const steps of [firmware.cleanSteps, firmware.deploySteps, firmware.serviceSteps]) {
      expect(steps?.map((s) => [s.step, s.priority])).toEqual([['update', 0]]);
    }
    expect(firmware.serviceSteps?.[0]?.requiresRamdisk).toBe(false);
    // Asynchronous: run by the steps machine's RunStepAsync, which waits for the periodic check.
    expect(firmware.cleanSteps?.[0]?.async).toBe(true);
  });
});
