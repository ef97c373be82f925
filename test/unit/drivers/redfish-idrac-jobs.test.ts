/**
 * A BIOS update Task gone before its reboot, as Ironic master handles it: for a Dell node the
 * iDRAC's job queue (the first manager's `Links.Oem.Dell.Jobs`, read with `$expand`) is asked
 * whether the Task's job (`JID_…`) is unfinished; found, the node is rebooted to apply the staged
 * image; not found, the update fails with master's message and its bookkeeping goes; the question
 * not askable (another vendor, no job queue, the queue failing or not expanded), the image is
 * assumed staged and rebooted for, as before.
 */
import { jest } from '@jest/globals';
import { Logger } from '@aws-lambda-powertools/logger';
import type { StepProgress, Task } from '../../../functions/drivers/base';
import { ActionRefused } from '../../../functions/drivers/guard';
import { type RedfishClient, RedfishRequestError, type Resource } from '../../../functions/drivers/redfish/client';
import { DEFAULT_FIRMWARE_UPDATE_CONFIG } from '../../../functions/drivers/redfish/config';
import { type PendingUpdate, checkFirmwareUpdates } from '../../../functions/drivers/redfish/firmware-updates';
import { isDellNode, jobIdOf, scheduledBiosJob } from '../../../functions/drivers/redfish/idrac-jobs';
import { RedfishSystem } from '../../../functions/drivers/redfish/system';
import { makeNode } from '../helpers/builders';

const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
const SYSTEM = '/redfish/v1/Systems/System.Embedded.1';
const MANAGER = '/redfish/v1/Managers/iDRAC.Embedded.1';
const QUEUE = `${MANAGER}/Oem/Dell/Jobs`;
const JID = 'JID_878460711202';
const TASK = `/redfish/v1/TaskService/Tasks/${JID}`;
const URL = 'http://images/bios-2.0.bin';

type Queue = Resource | 'unlinked' | 'fails';

/** An iDRAC whose BIOS Task is gone, with a job queue as given; the GETs it answered. */
function idrac(queue: Queue, vendor: unknown = 'Dell Inc.') {
  const gets: string[] = [];
  const client = {
    root: '/redfish/v1/',
    get: jest.fn(async (path: string): Promise<Resource> => {
      gets.push(path);
      if (path === SYSTEM) return { Links: { ManagedBy: [{ '@odata.id': MANAGER }] } };
      if (path === MANAGER) return queue === 'unlinked' ? { Links: {} } : { Links: { Oem: { Dell: { Jobs: { '@odata.id': QUEUE } } } } };
      if (path.startsWith(QUEUE) && queue !== 'unlinked') {
        if (queue === 'fails') throw new RedfishRequestError(`HTTP GET ${path} returned code 500.`, 'http', 'GET', path, true, 500);
        return queue;
      }
      throw new RedfishRequestError(`HTTP GET ${path} returned code 404.`, 'http', 'GET', path, false, 404);
    }),
  };
  const system = async () => new RedfishSystem(client as unknown as RedfishClient, SYSTEM, await client.get(SYSTEM));
  const ports = {
    system: jest.fn(system),
    reboot: jest.fn(async (_task: Task, _timeoutSeconds?: number) => undefined),
    cache: jest.fn(async () => undefined),
  };
  const updates: PendingUpdate[] = [{ component: 'bios', url: URL, task_monitor: TASK }];
  const task: Task = {
    node: makeNode({
      driver: 'redfish',
      properties: vendor === undefined ? {} : { vendor },
      driver_internal_info: { redfish_fw_updates: updates, redfish_fw_update_start_time: new Date().toISOString() },
    }),
    log,
  };
  const poll = (): Promise<StepProgress> => checkFirmwareUpdates(task, ports, DEFAULT_FIRMWARE_UPDATE_CONFIG);
  return { gets, ports, task, poll, system };
}

const jobs = (...members: [string, string][]): Resource => ({
  Members: members.map(([Id, JobState]) => ({ '@odata.id': `${QUEUE}/${Id}`, Id, JobState })),
});

describe('the Dell job check', () => {
  it("is for nodes whose vendor has the word Dell, and takes the job id from the Task monitor's last segment", () => {
    const node = (vendor: unknown) => ({ node: makeNode({ properties: vendor === undefined ? {} : { vendor } }), log }) as Task;
    expect([isDellNode(node('Dell Inc.')), isDellNode(node('Dell')), isDellNode(node('DELL')), isDellNode(node('Dellcorp'))]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect([isDellNode(node(undefined)), isDellNode(node(42))]).toEqual([false, false]);
    expect([jobIdOf(TASK), jobIdOf(`${TASK}/`), jobIdOf(''), jobIdOf(undefined)]).toEqual([JID, JID, '', '']);
  });

  it('asks the expanded job queue and counts Scheduled, Running and Paused jobs as unfinished', async () => {
    for (const [state, expected] of [
      ['Scheduled', true],
      ['Running', true],
      ['Paused', true],
      ['Failed', false],
      ['Completed', false],
      ['Downloading', false],
    ] as const) {
      const b = idrac(jobs(['JID_1', 'Scheduled'], [JID, state]));
      expect([state, await scheduledBiosJob(b.task, TASK, b.system)]).toEqual([state, expected]);
      expect(b.gets).toContain(`${QUEUE}?$expand=.($levels=1)`);
    }
    // Another unfinished job is not this update's.
    const other = idrac(jobs(['JID_1', 'Scheduled']));
    expect(await scheduledBiosJob(other.task, TASK, other.system)).toBe(false);
  });

  it('cannot be asked of another vendor, without a Task id, without a job queue, or when the queue fails or is not expanded', async () => {
    const hp = idrac(jobs([JID, 'Scheduled']), 'HPE');
    expect(await scheduledBiosJob(hp.task, TASK, hp.system)).toBeUndefined();
    expect(hp.gets).toEqual([]);
    const noMonitor = idrac(jobs([JID, 'Scheduled']));
    expect(await scheduledBiosJob(noMonitor.task, undefined, noMonitor.system)).toBeUndefined();
    for (const queue of ['unlinked', 'fails', { Members: [{ '@odata.id': `${QUEUE}/${JID}` }] }, {}] as Queue[]) {
      const b = idrac(queue);
      expect(await scheduledBiosJob(b.task, TASK, b.system)).toBeUndefined();
    }
    const unreachable = idrac(jobs([JID, 'Scheduled']));
    expect(await scheduledBiosJob(unreachable.task, TASK, async () => Promise.reject(new Error('BMC away')))).toBeUndefined();
  });

  it("lets the guard's refusals through", async () => {
    const b = idrac(jobs([JID, 'Scheduled']));
    const refusal = new ActionRefused('deadline', 'out of time');
    await expect(scheduledBiosJob(b.task, TASK, async () => Promise.reject(refusal))).rejects.toBe(refusal);
  });
});

describe('a BIOS Task gone before its reboot', () => {
  it('is rebooted for when its job is scheduled', async () => {
    const b = idrac(jobs([JID, 'Scheduled']));
    expect(await b.poll()).toEqual({ state: 'waiting' });
    expect(b.ports.reboot).toHaveBeenCalledTimes(1);
    expect((b.task.node.driver_internal_info.redfish_fw_updates as PendingUpdate[])[0]?.bios_reboot_triggered).toBe(true);
  });

  it("fails the update with master's message when no job waits, its bookkeeping gone, no reboot", async () => {
    const b = idrac(jobs([JID, 'Failed']));
    expect(await b.poll()).toEqual({
      state: 'failed',
      message: `Firmware update failed for node ${b.task.node.uuid}, firmware ${URL}. The BMC task disappeared and no scheduled job was found, indicating the firmware download or staging failed.`,
    });
    expect(b.ports.reboot).not.toHaveBeenCalled();
    expect(b.task.node.driver_internal_info).not.toHaveProperty('redfish_fw_updates');
    expect(b.task.node.driver_internal_info).not.toHaveProperty('redfish_fw_update_start_time');
  });

  it('is assumed staged and rebooted for when the job queue cannot be asked (no queue, or not a Dell)', async () => {
    for (const b of [idrac('unlinked'), idrac(jobs([JID, 'Failed']), 'Supermicro')]) {
      expect(await b.poll()).toEqual({ state: 'waiting' });
      expect(b.ports.reboot).toHaveBeenCalledTimes(1);
    }
  });
});
