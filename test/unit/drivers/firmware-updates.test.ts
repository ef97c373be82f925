/**
 * Following a redfish firmware update across polls, as Ironic master's `redfish/firmware.py`,
 * against a mocked BMC and a clock the tests move: a BIOS image is rebooted for as soon as its
 * Task starts (or completes, or disappears), once, and right after its post when it follows
 * another image; a NIC Task left in Starting is rebooted for after
 * `firmware_update_nic_starting_wait`, once, and one seen Running owes a reboot at the end, which
 * the next post forgets; these reboots wait `firmware_update_reboot_delay` per power state; a BMC
 * image is waited for, then its version read (however its Task ended) until it changes or
 * `firmware_update_reboot_delay` has passed (a BMC away owes a reboot); the BMC's resources must answer in a row before the
 * updates go on; the overall timeout fails the step with master's message.
 */
import { jest } from '@jest/globals';
import { Logger } from '@aws-lambda-powertools/logger';
import { RedfishError } from '../../../functions/common/errors';
import type { StepProgress, Task } from '../../../functions/drivers/base';
import { type RedfishClient, RedfishRequestError, type Resource } from '../../../functions/drivers/redfish/client';
import { DEFAULT_FIRMWARE_UPDATE_CONFIG, type FirmwareUpdateConfig, loadRedfishConfig } from '../../../functions/drivers/redfish/config';
import { type PendingUpdate, checkFirmwareUpdates, submitFirst } from '../../../functions/drivers/redfish/firmware-updates';
import { RedfishSystem } from '../../../functions/drivers/redfish/system';
import { makeNode } from '../helpers/builders';

const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
const SYSTEM = '/redfish/v1/Systems/1';
const MANAGER = '/redfish/v1/Managers/1';
const CHASSIS = '/redfish/v1/Chassis/1';
const TASK = '/redfish/v1/TaskService/Tasks/7';
const TARGET = '/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate';
/** Resources always stable at once, unless a test checks them. */
const QUICK: FirmwareUpdateConfig = { ...DEFAULT_FIRMWARE_UPDATE_CONFIG, requiredSuccesses: 1 };

let clock = Date.parse('2026-11-27T10:00:00Z');
beforeEach(() => {
  clock = Date.parse('2026-11-27T10:00:00Z');
  jest.spyOn(Date, 'now').mockImplementation(() => clock);
});
afterEach(() => jest.restoreAllMocks());
const pass = (seconds: number) => void (clock += seconds * 1000);

const away = (path: string) => new RedfishRequestError('connect ECONNREFUSED', 'connection', 'GET', path, true);

/** A BMC: its Task's state (or 404), whether it answers, its BMC version, and the requests made. */
function bmc(config: FirmwareUpdateConfig = QUICK) {
  const state = { task: { TaskState: 'Running', TaskStatus: 'OK' } as Resource | 'gone', bmcVersion: '1.0', away: false, managerFails: 0 };
  const posts: string[] = [];
  const client = {
    root: '/redfish/v1/',
    get: jest.fn(async (path: string): Promise<Resource> => {
      if (state.away) throw away(path);
      switch (path) {
        case '/redfish/v1/':
          return { Systems: { '@odata.id': '/redfish/v1/Systems' }, UpdateService: { '@odata.id': '/redfish/v1/UpdateService' } };
        case '/redfish/v1/Systems':
          return { Members: [{ '@odata.id': SYSTEM }] };
        case SYSTEM:
          return { Links: { ManagedBy: [{ '@odata.id': MANAGER }], Chassis: [{ '@odata.id': CHASSIS }] } };
        case MANAGER:
          if (state.managerFails > 0) {
            state.managerFails -= 1;
            throw new RedfishRequestError(`HTTP GET ${path} returned code 503.`, 'http', 'GET', path, true, 503);
          }
          return { FirmwareVersion: state.bmcVersion };
        case CHASSIS:
          return {};
        case '/redfish/v1/UpdateService':
          return { Actions: { '#UpdateService.SimpleUpdate': { target: TARGET } } };
        case TASK:
          if (state.task === 'gone') throw new RedfishRequestError(`HTTP GET ${path} returned code 404.`, 'http', 'GET', path, false, 404);
          return state.task;
        default:
          throw new Error(`unexpected GET ${path}`);
      }
    }),
    post: jest.fn(async (_path: string, body: Resource) => {
      posts.push(String(body.ImageURI));
      return { '@odata.id': TASK, TaskState: 'New' };
    }),
  };
  const system = async () => {
    if (state.away) throw new RedfishError('Unable to connect to the BMC (injected).');
    return new RedfishSystem(client as unknown as RedfishClient, SYSTEM, await client.get(SYSTEM));
  };
  const ports = {
    system: jest.fn(system),
    reboot: jest.fn(async (_task: Task, _timeoutSeconds?: number) => undefined),
    cache: jest.fn(async () => undefined),
  };
  const task: Task = { node: makeNode({ driver: 'redfish' }), log };
  const start = async (...settings: { component: string; url: string; wait?: number }[]) => {
    const updates: PendingUpdate[] = settings.map((s) => ({ ...s }));
    await submitFirst(task, await system(), updates, config);
    task.node.driver_internal_info = { ...task.node.driver_internal_info, redfish_fw_update_start_time: new Date(clock).toISOString() };
  };
  const poll = (): Promise<StepProgress> => checkFirmwareUpdates(task, ports, config);
  const current = () => (task.node.driver_internal_info.redfish_fw_updates as PendingUpdate[] | undefined)?.[0];
  const setTask = (TaskState: string, TaskStatus = 'OK') => void (state.task = { TaskState, TaskStatus });
  return { state, posts, ports, task, start, poll, current, setTask };
}

const WAITING = { state: 'waiting' };
const DONE = { state: 'done' };

describe('a BIOS image', () => {
  it('reboots as soon as its Task starts, once, and goes on when it completes', async () => {
    const b = bmc();
    await b.start({ component: 'bios', url: 'http://i/bios-2.bin' });
    b.setTask('New');
    expect(await b.poll()).toEqual(WAITING);
    expect(b.ports.reboot).not.toHaveBeenCalled();
    b.setTask('Starting');
    expect(await b.poll()).toEqual(WAITING);
    expect(b.ports.reboot).toHaveBeenCalledTimes(1);
    expect(b.ports.reboot).toHaveBeenCalledWith(b.task, 300); // master's power_timeout
    expect(b.current()?.bios_reboot_triggered).toBe(true);
    b.setTask('Running');
    expect(await b.poll()).toEqual(WAITING);
    b.setTask('Completed');
    expect(await b.poll()).toEqual(DONE);
    expect(b.ports.reboot).toHaveBeenCalledTimes(1);
    expect(b.ports.cache).toHaveBeenCalledTimes(1);
    expect(b.task.node.driver_internal_info).not.toHaveProperty('redfish_fw_updates');
    expect(b.task.node.driver_internal_info).not.toHaveProperty('redfish_fw_update_start_time');
  });

  it.each([
    ['completed before any look', 'Completed'],
    ['disappeared before any look', 'gone'],
  ])('whose Task %s is rebooted for then, and goes on at the next poll', async (_what, end) => {
    const b = bmc();
    await b.start({ component: 'bios', url: 'http://i/bios-2.bin' }, { component: 'bmc', url: 'http://i/bmc-2.bin' });
    if (end === 'gone') b.state.task = 'gone';
    else b.setTask(end);
    expect(await b.poll()).toEqual(WAITING);
    expect(b.ports.reboot).toHaveBeenCalledTimes(1);
    expect(b.posts).toEqual(['http://i/bios-2.bin']);
    expect(await b.poll()).toEqual(WAITING);
    expect(b.posts).toEqual(['http://i/bios-2.bin', 'http://i/bmc-2.bin']);
    expect(b.ports.reboot).toHaveBeenCalledTimes(1);
  });

  it("fails with Ironic's message when its Task ends in an exception", async () => {
    const b = bmc();
    await b.start({ component: 'bios', url: 'http://i/bios-2.bin' });
    b.state.task = { TaskState: 'Exception', TaskStatus: 'Critical', Messages: [{ MessageId: 'U.1.Failed', Message: 'Bad image.' }] };
    expect(await b.poll()).toEqual({
      state: 'failed',
      message: `Firmware update failed for node ${b.task.node.uuid}, firmware http://i/bios-2.bin. Error: Bad image.`,
    });
    expect(b.task.node.driver_internal_info).not.toHaveProperty('redfish_fw_updates');
  });
});

it('gives the reboots that start or apply an image firmware_update_reboot_delay for each power state, as it was when posted', async () => {
  const b = bmc({ ...QUICK, rebootDelay: 45 });
  await b.start({ component: 'nic:NIC.1', url: 'http://i/nic-2.bin' }, { component: 'bios', url: 'http://i/bios-2.bin' });
  expect(b.current()).toMatchObject({ component: 'nic:NIC.1', power_timeout: 45 });
  b.setTask('Completed');
  expect(await b.poll()).toEqual(WAITING); // the BIOS image posted, and rebooted for
  expect(b.current()).toMatchObject({ component: 'bios', power_timeout: 45 });
  expect(b.ports.reboot.mock.calls).toEqual([[b.task, 45]]);
  // An update recorded without one (posted by an older release) reboots with the power state timeout.
  const current = b.current() as PendingUpdate;
  delete current.power_timeout;
  b.task.node.driver_internal_info = { ...b.task.node.driver_internal_info, redfish_fw_updates: [current] };
  b.setTask('Running');
  expect(await b.poll()).toEqual(WAITING);
  expect(b.ports.reboot.mock.calls).toEqual([
    [b.task, 45],
    [b.task, undefined],
  ]);
});

describe('a NIC image', () => {
  it('whose Task stays in Starting is rebooted for after firmware_update_nic_starting_wait, once, owing no reboot at the end', async () => {
    const b = bmc();
    await b.start({ component: 'nic:NIC.1', url: 'http://i/nic-2.bin' });
    b.setTask('Starting');
    expect(await b.poll()).toEqual(WAITING);
    expect(b.current()?.nic_starting_timestamp).toBeDefined();
    pass(29);
    expect(await b.poll()).toEqual(WAITING);
    expect(b.ports.reboot).not.toHaveBeenCalled();
    pass(1);
    expect(await b.poll()).toEqual(WAITING);
    expect(b.ports.reboot).toHaveBeenCalledTimes(1);
    expect(b.ports.reboot).toHaveBeenCalledWith(b.task, 300);
    pass(60);
    expect(await b.poll()).toEqual(WAITING);
    expect(b.ports.reboot).toHaveBeenCalledTimes(1);
    b.setTask('Completed');
    expect(await b.poll()).toEqual(DONE);
    expect(b.ports.reboot).toHaveBeenCalledTimes(1);
  });

  it('whose Task runs owes a reboot once it is the last update done', async () => {
    const b = bmc();
    await b.start({ component: 'nic:NIC.1', url: 'http://i/nic-2.bin' });
    b.setTask('Running');
    expect(await b.poll()).toEqual(WAITING);
    expect(b.current()?.nic_needs_post_completion_reboot).toBe(true);
    expect(b.ports.reboot).not.toHaveBeenCalled();
    b.setTask('Completed');
    expect(await b.poll()).toEqual(DONE); // the owed reboot, then done
    expect(b.ports.reboot).toHaveBeenCalledTimes(1);
    expect(b.ports.reboot.mock.calls[0]?.[1]).toBeUndefined(); // as master's: the power state timeout
    expect(b.task.node.driver_internal_info).not.toHaveProperty('firmware_reboot_requested');
  });

  it('whose owed reboot is forgotten when the next update is posted, as master; a BIOS image posted next is rebooted for at once', async () => {
    const b = bmc();
    await b.start({ component: 'nic:NIC.1', url: 'http://i/nic-2.bin' }, { component: 'bios', url: 'http://i/bios-2.bin' });
    b.setTask('Running');
    expect(await b.poll()).toEqual(WAITING);
    b.setTask('Completed');
    const persist = jest.fn(async () => undefined);
    (b.task as { persist?: () => Promise<void> }).persist = persist;
    expect(await b.poll()).toEqual(WAITING); // the BIOS image posted, and rebooted for
    expect(b.posts).toEqual(['http://i/nic-2.bin', 'http://i/bios-2.bin']);
    expect(b.task.node.driver_internal_info).not.toHaveProperty('firmware_reboot_requested');
    expect(b.ports.reboot).toHaveBeenCalledTimes(1);
    expect(b.ports.reboot).toHaveBeenCalledWith(b.task, 300);
    // The node (with the BIOS image's Task) was written before the reboot.
    expect(persist.mock.invocationCallOrder[0]).toBeLessThan(b.ports.reboot.mock.invocationCallOrder[0] as number);
    expect(b.current()).toMatchObject({ component: 'bios', task_monitor: TASK });
    expect(b.current()).not.toHaveProperty('bios_reboot_triggered');
    b.setTask('Running');
    expect(await b.poll()).toEqual(WAITING); // the BIOS Task started: rebooted for again
    expect(b.ports.reboot).toHaveBeenCalledTimes(2);
    b.setTask('Completed');
    expect(await b.poll()).toEqual(DONE); // no reboot owed any more
    expect(b.ports.reboot).toHaveBeenCalledTimes(2);
  });

  it.each([
    ['a NIC', 'nic:NIC.2'],
    ['a BMC', 'bmc'],
  ])('after which %s image is posted without a reboot', async (_what, component) => {
    const b = bmc();
    await b.start({ component: 'nic:NIC.1', url: 'http://i/nic-2.bin' }, { component, url: 'http://i/next-2.bin' });
    b.setTask('Completed');
    expect(await b.poll()).toEqual(WAITING);
    expect(b.posts).toEqual(['http://i/nic-2.bin', 'http://i/next-2.bin']);
    expect(b.ports.reboot).not.toHaveBeenCalled();
  });
});

describe('a BMC image', () => {
  it('is waited for, then goes on without a reboot when its version changed and it is the last', async () => {
    const b = bmc();
    await b.start({ component: 'bmc', url: 'http://i/bmc-2.bin' });
    expect(b.task.node.driver_internal_info.bmc_fw_version_before_update).toBe('1.0');
    expect(b.current()).toMatchObject({ wait: 300 });
    b.setTask('Completed');
    pass(299);
    const asked = b.ports.system.mock.calls.length;
    expect(await b.poll()).toEqual(WAITING);
    expect(b.ports.system.mock.calls.length).toBe(asked); // nothing asked during the wait
    pass(1);
    b.state.bmcVersion = '2.0';
    expect(await b.poll()).toEqual(DONE);
    expect(b.ports.reboot).not.toHaveBeenCalled();
    expect(b.task.node.driver_internal_info).not.toHaveProperty('bmc_fw_version_before_update');
  });

  it('keeps following a Task still at work after the wait, then reboots before the next update when its version changed', async () => {
    const b = bmc();
    await b.start({ component: 'bmc', url: 'http://i/bmc-2.bin', wait: 10 }, { component: 'nic:NIC.1', url: 'http://i/nic-2.bin' });
    pass(10);
    expect(await b.poll()).toEqual(WAITING); // still Running
    b.setTask('Completed');
    b.state.bmcVersion = '2.0';
    expect(await b.poll()).toEqual(WAITING);
    expect(b.ports.reboot).toHaveBeenCalledTimes(1);
    expect(b.ports.reboot.mock.calls[0]?.[1]).toBeUndefined(); // as master's: the power state timeout
    expect(b.current()?.bmc_update_completed).toBe(true);
    expect(b.posts).toEqual(['http://i/bmc-2.bin']);
    expect(await b.poll()).toEqual(WAITING);
    expect(b.posts).toEqual(['http://i/bmc-2.bin', 'http://i/nic-2.bin']);
  });

  it.each([
    ['changed', '2.0'],
    ['unchanged', '1.0'],
  ])('whose Task is found failed once its wait is over only has its version read, as master (%s: it goes on)', async (_what, version) => {
    const b = bmc();
    await b.start({ component: 'bmc', url: 'http://i/bmc-2.bin' });
    b.state.task = { TaskState: 'Exception', TaskStatus: 'Critical', Messages: [{ MessageId: 'U.1.Failed', Message: 'Bad image.' }] };
    b.state.bmcVersion = version;
    pass(300);
    expect(await b.poll()).toEqual(DONE);
    expect(b.ports.reboot).not.toHaveBeenCalled();
    expect(b.task.node.driver_internal_info).not.toHaveProperty('redfish_fw_updates');
  });

  it("whose Task still runs when its wait is over, then fails, fails the step with Ironic's message", async () => {
    const b = bmc();
    await b.start({ component: 'bmc', url: 'http://i/bmc-2.bin' });
    pass(300);
    expect(await b.poll()).toEqual(WAITING); // still Running: followed from now on
    expect(b.current()).not.toHaveProperty('wait_start_time');
    b.state.task = { TaskState: 'Exception', TaskStatus: 'Critical', Messages: [{ MessageId: 'U.1.Failed', Message: 'Bad image.' }] };
    expect(await b.poll()).toEqual({
      state: 'failed',
      message: `Firmware update failed for node ${b.task.node.uuid}, firmware http://i/bmc-2.bin. Error: Bad image.`,
    });
    expect(b.task.node.driver_internal_info).not.toHaveProperty('redfish_fw_updates');
  });

  it('reads the version every firmware_update_bmc_version_check_interval and goes on unrebooted when it never changed', async () => {
    const b = bmc({ ...QUICK, rebootDelay: 100 });
    await b.start({ component: 'bmc', url: 'http://i/bmc-2.bin', wait: 20 });
    b.setTask('Completed');
    pass(20);
    expect(await b.poll()).toEqual(WAITING); // version unchanged: check again in 30 s
    expect(b.current()).toMatchObject({ bmc_version_checking: true, wait: 30 });
    pass(30);
    expect(await b.poll()).toEqual(WAITING);
    pass(30);
    expect(await b.poll()).toEqual(WAITING); // 80 s
    pass(30);
    expect(await b.poll()).toEqual(DONE); // 110 s: past the reboot delay
    expect(b.ports.reboot).not.toHaveBeenCalled();
  });

  it('owes a reboot when its version cannot be read at the reboot delay; a BMC away is asked again at the next poll', async () => {
    const b = bmc();
    await b.start({ component: 'bmc', url: 'http://i/bmc-2.bin' });
    b.state.away = true;
    pass(300);
    // Not the step's verdict: poll_waiting_steps logs it and looks again next time.
    await expect(b.poll()).rejects.toThrow(RedfishError);
    expect(b.current()).toMatchObject({ wait: 300 });
    b.state.away = false;
    b.state.task = 'gone';
    b.state.managerFails = 1; // the manager cannot tell its version (restarting)
    expect(await b.poll()).toEqual(DONE);
    expect(b.ports.reboot).toHaveBeenCalledTimes(1);
  });
});

describe('going on after an update', () => {
  it('waits until the BMC’s resources answer firmware_update_required_successes times in a row, one check per interval', async () => {
    const b = bmc({ ...DEFAULT_FIRMWARE_UPDATE_CONFIG });
    await b.start({ component: 'nic:NIC.1', url: 'http://i/nic-2.bin' });
    b.setTask('Starting');
    await b.poll();
    b.setTask('Completed');
    b.state.managerFails = 1;
    expect(await b.poll()).toEqual(WAITING); // reboot owed and done; the manager fails: 0 in a row
    expect(b.ports.reboot).toHaveBeenCalledTimes(1);
    expect(await b.poll()).toEqual(WAITING); // too soon for another check
    expect(b.current()?.resource_validation?.successes).toBe(0);
    for (const expected of [1, 2]) {
      pass(30);
      expect(await b.poll()).toEqual(WAITING);
      expect(b.current()?.resource_validation?.successes).toBe(expected);
    }
    pass(30);
    expect(await b.poll()).toEqual(DONE);
    expect(b.ports.reboot).toHaveBeenCalledTimes(1);
  });

  it("fails with master's message when the resources are not stable within the validation timeout", async () => {
    const b = bmc({ ...DEFAULT_FIRMWARE_UPDATE_CONFIG, validationInterval: 0, resourceValidationTimeout: 60 });
    await b.start({ component: 'bios', url: 'http://i/bios-2.bin' });
    b.setTask('Running');
    await b.poll();
    b.setTask('Completed');
    b.state.managerFails = 1000;
    expect(await b.poll()).toEqual(WAITING);
    pass(60);
    expect(await b.poll()).toEqual({
      state: 'failed',
      message: `BMC resources failed to stabilize within 60 seconds for node ${b.task.node.uuid}, last error: HTTP GET ${MANAGER} returned code 503.`,
    });
    expect(b.task.node.driver_internal_info).not.toHaveProperty('redfish_fw_updates');
  });

  it("fails the whole update after firmware_update_overall_timeout with master's message, clearing its bookkeeping", async () => {
    const b = bmc();
    await b.start({ component: 'bios', url: 'http://i/bios-2.bin' });
    pass(7199);
    expect(await b.poll()).toEqual(WAITING);
    pass(1);
    expect(await b.poll()).toEqual({
      state: 'failed',
      message: `Firmware update on node ${b.task.node.uuid} has exceeded the overall timeout of 7200 seconds. Elapsed time: 7200 seconds.`,
    });
    for (const key of ['redfish_fw_updates', 'redfish_fw_update_start_time', 'firmware_reboot_requested']) {
      expect(b.task.node.driver_internal_info).not.toHaveProperty(key);
    }
  });
});

it('reads the [redfish]firmware_update_* options from the environment, Ironic’s defaults otherwise', () => {
  expect(loadRedfishConfig({}).firmwareUpdate).toEqual(DEFAULT_FIRMWARE_UPDATE_CONFIG);
  expect(
    loadRedfishConfig({
      FIRMWARE_UPDATE_OVERALL_TIMEOUT: '0',
      FIRMWARE_UPDATE_NIC_STARTING_WAIT: '5',
      FIRMWARE_UPDATE_REQUIRED_SUCCESSES: '0',
    }).firmwareUpdate,
  ).toEqual({ ...DEFAULT_FIRMWARE_UPDATE_CONFIG, overallTimeout: 0, nicStartingWait: 5, requiredSuccesses: 0 });
  expect(() => loadRedfishConfig({ FIRMWARE_UPDATE_REBOOT_DELAY: '-1' })).toThrow(
    'Environment variable FIRMWARE_UPDATE_REBOOT_DELAY must be an integer >= 0, got "-1"',
  );
});
