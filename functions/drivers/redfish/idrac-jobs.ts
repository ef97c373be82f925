/**
 * Asking a Dell iDRAC's Lifecycle Controller job queue whether a BIOS image was staged, as Ironic
 * master's `_check_bmc_scheduled_firmware_update` does through `drac.firmware.check_scheduled_idrac_job`
 * (and sushy-oem-idrac's `DellJobCollection.get_unfinished_jobs`).
 *
 * An iDRAC purges a BIOS update's Task once the image is downloaded; what is left is a job of the
 * same id (`JID_…`, the Task's last path segment) that waits for the host's reboot. When the
 * download failed, the Task is gone as well but no such job waits. So, for a node whose
 * `properties.vendor` has the word `Dell`, the first manager's Dell job queue (its
 * `Links.Oem.Dell.Jobs`, read expanded) is searched for the job among the unfinished ones
 * (`Scheduled`, `Running`, `Paused`).
 *
 * The answer is true (staged: reboot to apply it), false (not staged: the update failed) or
 * undefined when the question cannot be asked (another vendor, no Task id, no job queue, the BMC
 * not answering it): the caller then assumes the image was staged, as master does.
 */
import type { Task } from '../base';
import { rethrowRefusal } from '../guard';
import type { Resource } from './client';
import type { RedfishSystem } from './system';

/** sushy-oem-idrac's INCOMPLETE_JOB_STATES. */
const UNFINISHED_JOB_STATES = new Set(['Scheduled', 'Running', 'Paused']);
/** The expansion sushy-oem-idrac asks the job collection for, so each member comes with its state. */
const JOB_EXPAND = '?$expand=.($levels=1)';

/** Whether the node's vendor is Dell: `Dell` as one of the words of `properties.vendor` (master's test). */
export function isDellNode(task: Task): boolean {
  const vendor = task.node.properties.vendor;
  return typeof vendor === 'string' && vendor.split(/\s+/).includes('Dell');
}

/** The job id a Task monitor names: its last path segment. */
export function jobIdOf(taskMonitor: string | undefined): string {
  if (taskMonitor === undefined || taskMonitor === '') return '';
  return taskMonitor.replace(/\/+$/, '').split('/').pop() ?? '';
}

const linkOf = (value: unknown): string | undefined => {
  const id = (value as { '@odata.id'?: unknown } | undefined)?.['@odata.id'];
  return typeof id === 'string' && id !== '' ? id : undefined;
};

/** The manager's Dell job queue (`Links.Oem.Dell.Jobs`), if it links one. */
function jobQueueOf(manager: Resource): string | undefined {
  const links = manager.Links as { Oem?: { Dell?: { Jobs?: unknown } } } | undefined;
  return linkOf(links?.Oem?.Dell?.Jobs);
}

/**
 * Whether the BMC has the job of this update scheduled: true, false, or undefined when it cannot
 * be asked (see the module's comment). Never throws for the BMC's failures.
 */
export async function scheduledBiosJob(
  task: Task,
  taskMonitor: string | undefined,
  system: () => Promise<RedfishSystem>,
): Promise<boolean | undefined> {
  if (!isDellNode(task)) return undefined;
  const node = task.node.uuid;
  const jid = jobIdOf(taskMonitor);
  if (jid === '') return undefined;
  let managers: Resource[];
  let sys: RedfishSystem;
  try {
    sys = await system();
    managers = await sys.managers();
  } catch (err) {
    rethrowRefusal(err);
    task.log.warn('Cannot get the system for the Dell job check; assuming the firmware staging succeeded', {
      node,
      error: (err as Error).message,
    });
    return undefined;
  }
  const [manager] = managers;
  if (manager === undefined) return undefined;
  const queue = jobQueueOf(manager);
  if (queue === undefined) {
    task.log.warn('The iDRAC links no Dell job queue; assuming the firmware staging succeeded', { node });
    return undefined;
  }
  let unfinished: string[];
  try {
    const collection = await sys.client.get(`${queue}${JOB_EXPAND}`);
    if (!Array.isArray(collection.Members)) throw new Error(`the job queue ${queue} has no Members`);
    const jobs = collection.Members as Resource[];
    if (jobs.some((job) => typeof job.JobState !== 'string')) throw new Error(`the jobs of ${queue} came without their JobState`);
    unfinished = jobs.filter((job) => UNFINISHED_JOB_STATES.has(job.JobState as string)).map((job) => String(job.Id));
  } catch (err) {
    rethrowRefusal(err);
    task.log.warn('Failed to query the Dell iDRAC job queue; assuming the firmware staging succeeded', {
      node,
      error: (err as Error).message,
    });
    return undefined;
  }
  if (unfinished.includes(jid)) {
    task.log.info('Dell iDRAC: the firmware job is scheduled; the staging succeeded', { node, job: jid });
    return true;
  }
  task.log.warn('Dell iDRAC: the firmware job is not among the unfinished jobs; the download or staging likely failed', {
    node,
    job: jid,
  });
  return false;
}
