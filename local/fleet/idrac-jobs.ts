/**
 * A Dell iDRAC's Lifecycle Controller job queue, for machines with the `idracJobQueue` fault: their
 * manager links it as `Links.Oem.Dell.Jobs` (`/redfish/v1/Managers/<id>/Oem/Dell/Jobs`), and a BIOS
 * update is staged the iDRAC way (`firmware.ts`): its Task, named `JID_<n>` as the job, stays `New`
 * while the image downloads, then the BMC purges it (404). The job it leaves is `Scheduled` until
 * the machine's next power on applies the image (`Completed`) or, with `downloadFails`, `Failed`
 * with nothing staged. The collection lists links, or whole jobs when asked with `$expand` (as
 * sushy-oem-idrac asks, `?$expand=.($levels=1)`).
 */
import type { VirtualMachine } from './machine';
import { ROOT, type RedfishReply, type RedfishRequest, notFound, redfishError, ref } from './redfish-common';

export type DellJobState = 'Downloading' | 'Scheduled' | 'Completed' | 'Failed';

export interface DellJob {
  readonly id: string;
  readonly name: string;
  state: DellJobState;
  message: string;
  readonly startedAt: number;
  completedAt?: number;
}

/** Each machine's jobs, oldest first. */
const machineJobs = new WeakMap<VirtualMachine, DellJob[]>();
/** The latest jobs a queue keeps (an iDRAC keeps a bounded queue). */
const MAX_JOBS = 100;

export function jobsOf(machine: VirtualMachine): DellJob[] {
  let jobs = machineJobs.get(machine);
  if (jobs === undefined) {
    jobs = [];
    machineJobs.set(machine, jobs);
  }
  return jobs;
}

/** Queue a job (the Task of a BIOS update being downloaded). */
export function addJob(machine: VirtualMachine, job: DellJob): void {
  const jobs = jobsOf(machine);
  jobs.push(job);
  if (jobs.length > MAX_JOBS) jobs.splice(0, jobs.length - MAX_JOBS);
}

/** The machine powered on: scheduled jobs run (the staged image is applied by `firmware.ts`). */
export function runScheduledJobs(machine: VirtualMachine, now = Date.now()): void {
  for (const job of jobsOf(machine)) {
    if (job.state !== 'Scheduled') continue;
    job.state = 'Completed';
    job.completedAt = now;
    job.message = 'Job completed successfully.';
  }
}

/** The manager's link to its job queue, when the machine has one. */
export function jobQueueLink(machine: VirtualMachine): Record<string, unknown> {
  if (machine.faults.idracJobQueue === undefined) return {};
  return { Oem: { Dell: { Jobs: ref(`${ROOT}/Managers/${machine.id}/Oem/Dell/Jobs`) } } };
}

function jobDoc(machine: VirtualMachine, job: DellJob): Record<string, unknown> {
  return {
    '@odata.type': '#DellJob.v1_5_0.DellJob',
    '@odata.id': `${ROOT}/Managers/${machine.id}/Oem/Dell/Jobs/${job.id}`,
    Id: job.id,
    Name: job.name,
    JobType: 'FirmwareUpdate',
    JobState: job.state,
    Message: job.message,
    PercentComplete: job.state === 'Completed' ? 100 : 0,
    StartTime: new Date(job.startedAt).toISOString(),
    CompletionTime: job.completedAt === undefined ? null : new Date(job.completedAt).toISOString(),
  };
}

/** `/redfish/v1/Managers/<id>/Oem/Dell/Jobs[/<job>]`; `rest` is what follows `Jobs`. */
export function jobQueueResource(machine: VirtualMachine, req: RedfishRequest, rest: readonly string[]): RedfishReply {
  if (machine.faults.idracJobQueue === undefined || rest.length > 1) return notFound(req.path);
  if (req.method !== 'GET') return redfishError(405, 'Base.1.8.OperationNotAllowed', `${req.method} is not allowed on ${req.path}.`);
  const jobs = jobsOf(machine);
  const [id] = rest;
  if (id !== undefined) {
    const job = jobs.find((j) => j.id === id);
    return job === undefined ? notFound(req.path) : { status: 200, body: jobDoc(machine, job) };
  }
  const expand = new URLSearchParams(req.query ?? '').has('$expand');
  return {
    status: 200,
    body: {
      '@odata.type': '#DellJobCollection.DellJobCollection',
      '@odata.id': `${ROOT}/Managers/${machine.id}/Oem/Dell/Jobs`,
      Id: 'JobQueue',
      Name: 'JobQueue',
      'Members@odata.count': jobs.length,
      Members: jobs.map((job) => (expand ? jobDoc(machine, job) : ref(`${ROOT}/Managers/${machine.id}/Oem/Dell/Jobs/${job.id}`))),
    },
  };
}
