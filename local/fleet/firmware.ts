/**
 * The firmware of the virtual machines, as their Redfish BMCs show it: each system's
 * `BiosVersion`, its manager's `FirmwareVersion` and its NICs' (the `FirmwarePackageVersion` of
 * its chassis' NetworkAdapters, all NICs of a machine at one version), the `UpdateService` with
 * its `FirmwareInventory` (a BIOS, a BMC and a NIC item per machine) and the `SimpleUpdate`
 * action, and the `TaskService` whose Tasks follow each update.
 *
 * SimpleUpdate takes an `ImageURI` whose file name says what it holds: `bios-<version>.<ext>`,
 * `bmc-<version>.<ext>` or `nic-<version>.<ext>` (e.g. `http://images/bmc-1.2.0.bin`); anything
 * else is refused with 400.
 * `Targets` names the machine (its system or manager); it may be left out when the fleet has one
 * machine. The action answers 202 with a Task (and its URI in `Location`) that runs for
 * `UPDATE_DURATION_MS`, then completes: a BMC image is then running, a BIOS or NIC image is staged
 * and runs from the machine's next power on (as real BIOS updates, which need the host reset); a
 * BIOS or NIC image whose Task saw the machine reset while it ran is applied when it completes (the
 * host booted into the update). With the machine's `firmwareUpdateFails` fault the Task ends in
 * Exception with a Critical message and no version changes. The faults Ironic master's handling of
 * each component needs: `nicUpdateStartsOnReset` (a NIC Task stays in Starting until the machine
 * is reset, then runs), `bmcVersionUnchanged` (a BMC Task completes, the version stays) and
 * `bmcRestartMs` (the BMC, having applied its image, refuses every connection for that long).
 * With `idracJobQueue` a BIOS image is staged as a Dell iDRAC does, through its job queue
 * (`idrac-jobs.ts`).
 */
import { addJob, jobsOf, runScheduledJobs } from './idrac-jobs';
import type { VirtualMachine } from './machine';
import { ROOT, type RedfishReply, type RedfishRequest, redfishError } from './redfish-common';

/** How long an update's Task runs before it completes (simulated flashing). */
export const UPDATE_DURATION_MS = 500;
/** The versions every machine starts with. */
export const INITIAL_FIRMWARE = { bios: '1.0.0', bmc: '1.0.0', nic: '1.0.0' } as const;

type Component = 'bios' | 'bmc' | 'nic';
type Doc = Record<string, unknown>;

/** One machine's firmware: what runs, and BIOS and NIC images waiting for the next power on. */
export class MachineFirmware {
  bios: string = INITIAL_FIRMWARE.bios;
  bmc: string = INITIAL_FIRMWARE.bmc;
  nic: string = INITIAL_FIRMWARE.nic;
  stagedBios: string | undefined;
  stagedNic: string | undefined;
  /** The machine's Tasks not ended yet. */
  readonly unfinished = new Set<UpdateTask>();
  /** Until when (ms) the BMC restarts after its own update. */
  restartingUntil = 0;

  constructor(machine: VirtualMachine) {
    machine.on('powerOn', () => {
      if (this.stagedBios !== undefined) this.bios = this.stagedBios;
      if (this.stagedNic !== undefined) this.nic = this.stagedNic;
      this.stagedBios = undefined;
      this.stagedNic = undefined;
      runScheduledJobs(machine);
      for (const task of this.unfinished) {
        if (task.state === 'Starting') {
          task.state = 'Running';
          task.startedAt = Date.now();
          task.message = `Flashing ${task.component.toUpperCase()} firmware ${task.version}.`;
        }
        task.resetWhileRunning = true;
      }
    });
  }
}

/** Whether the machine's BMC is restarting after its own firmware update (it answers nothing). */
export function bmcRestarting(machine: VirtualMachine): boolean {
  return (machineFirmware.get(machine)?.restartingUntil ?? 0) > Date.now();
}

const machineFirmware = new WeakMap<VirtualMachine, MachineFirmware>();

/** The machine's firmware, at its initial versions the first time anything asks. */
export function firmwareOf(machine: VirtualMachine): MachineFirmware {
  let firmware = machineFirmware.get(machine);
  if (firmware === undefined) {
    firmware = new MachineFirmware(machine);
    machineFirmware.set(machine, firmware);
  }
  return firmware;
}

interface UpdateTask {
  readonly id: string;
  readonly machine: VirtualMachine;
  readonly component: Component;
  readonly version: string;
  readonly image: string;
  startedAt: number;
  state: 'New' | 'Starting' | 'Running' | 'Completed' | 'Exception';
  message: string;
  endedAt?: number;
  /** The machine was reset while the Task was at work: a BIOS or NIC image applies as it completes. */
  resetWhileRunning?: boolean;
  /** Staged through a Dell job queue (`idracJobQueue`): the Task is purged once the image is downloaded. */
  idrac?: 'staged' | 'downloadFails';
  /** The BMC purged the Task: it answers 404. */
  purged?: boolean;
}

/** The Tasks of one fleet (keyed by its machines), so fleets in one process keep theirs apart. */
const fleetTasks = new WeakMap<ReadonlyMap<string, VirtualMachine>, Map<string, UpdateTask>>();
let nextTaskId = 1;
const MAX_TASKS = 1000;

function tasksOf(machines: ReadonlyMap<string, VirtualMachine>): Map<string, UpdateTask> {
  let tasks = fleetTasks.get(machines);
  if (tasks === undefined) {
    tasks = new Map();
    fleetTasks.set(machines, tasks);
  }
  return tasks;
}

/** Finish a Task whose time has come: flash (or stage) the image, unless the machine's fault fails it. */
function settle(task: UpdateTask, now = Date.now()): void {
  if (task.idrac !== undefined) return settleIdrac(task, now);
  if (task.state !== 'Running' || now - task.startedAt < UPDATE_DURATION_MS) return;
  task.endedAt = now;
  const firmware = firmwareOf(task.machine);
  firmware.unfinished.delete(task);
  const faults = task.machine.faults;
  if (faults.firmwareUpdateFails) {
    task.state = 'Exception';
    task.message = `The ${task.component.toUpperCase()} firmware image ${task.image} failed verification and was not applied (injected fault).`;
    return;
  }
  if (task.component === 'bmc') {
    if (faults.bmcVersionUnchanged) {
      task.message = `BMC firmware ${task.version} was accepted; the BMC still runs ${firmware.bmc} (injected fault).`;
    } else {
      firmware.bmc = task.version;
      task.message = `BMC firmware ${task.version} is running.`;
    }
    if (faults.bmcRestartMs) firmware.restartingUntil = now + faults.bmcRestartMs;
  } else if (task.resetWhileRunning === true) {
    firmware[task.component] = task.version;
    task.message = `${task.component.toUpperCase()} firmware ${task.version} was applied at the system reset.`;
  } else {
    if (task.component === 'nic') firmware.stagedNic = task.version;
    else firmware.stagedBios = task.version;
    task.message = `${task.component.toUpperCase()} firmware ${task.version} is staged and will be applied at the next system reset.`;
  }
  task.state = 'Completed';
}

/** An iDRAC's BIOS Task, its image downloaded: purged, its job Scheduled (the image staged) or Failed. */
function settleIdrac(task: UpdateTask, now: number): void {
  if (task.state !== 'New' || now - task.startedAt < UPDATE_DURATION_MS) return;
  const job = jobsOf(task.machine).find((j) => j.id === task.id);
  firmwareOf(task.machine).unfinished.delete(task);
  task.endedAt = now;
  task.purged = true;
  if (task.idrac === 'downloadFails') {
    task.state = 'Exception';
    if (job !== undefined)
      Object.assign(job, {
        state: 'Failed',
        completedAt: now,
        message: `Unable to transfer the image file ${task.image} (injected fault).`,
      });
    return;
  }
  task.state = 'Completed';
  firmwareOf(task.machine).stagedBios = task.version;
  if (job !== undefined) Object.assign(job, { state: 'Scheduled', message: 'Task successfully scheduled.' });
}

/** Settle the fleet's Tasks for a machine, before anything shows its versions. */
export function settleFirmware(machines: ReadonlyMap<string, VirtualMachine>, machine?: VirtualMachine): void {
  const tasks = tasksOf(machines);
  for (const task of tasks.values()) {
    if (machine !== undefined && task.machine !== machine) continue;
    settle(task);
    if (task.purged === true) tasks.delete(task.id);
  }
}

const ref = (path: string) => ({ '@odata.id': path });
const notFound = (req: RedfishRequest) =>
  redfishError(404, 'Base.1.8.ResourceMissingAtURI', `The resource at the URI ${req.path} was not found.`);
const notAllowed = (req: RedfishRequest) =>
  redfishError(405, 'Base.1.8.OperationNotAllowed', `${req.method} is not allowed on ${req.path}.`);

const RELATED: Record<Component, (id: string) => string> = {
  bios: (id) => `${ROOT}/Systems/${id}`,
  bmc: (id) => `${ROOT}/Managers/${id}`,
  nic: (id) => `${ROOT}/Chassis/${id}/NetworkAdapters`,
};

function inventoryItem(machine: VirtualMachine, component: Component): Doc {
  const firmware = firmwareOf(machine);
  const id = `${machine.id}-${component.toUpperCase()}`;
  return {
    '@odata.type': '#SoftwareInventory.v1_3_0.SoftwareInventory',
    '@odata.id': `${ROOT}/UpdateService/FirmwareInventory/${id}`,
    Id: id,
    Name: `${component === 'nic' ? 'NICs' : component.toUpperCase()} of ${machine.id}`,
    Version: firmware[component],
    Updateable: true,
    Status: { State: 'Enabled', Health: 'OK' },
    RelatedItem: [ref(RELATED[component](machine.id))],
  };
}

function taskDoc(task: UpdateTask): Doc {
  return {
    '@odata.type': '#Task.v1_4_3.Task',
    '@odata.id': `${ROOT}/TaskService/Tasks/${task.id}`,
    Id: task.id,
    Name: `Firmware update of ${task.machine.id}`,
    TaskState: task.state,
    TaskStatus: task.state === 'Exception' ? 'Critical' : 'OK',
    PercentComplete:
      task.state === 'Starting' || task.state === 'New'
        ? 0
        : task.state === 'Running'
          ? Math.min(99, Math.floor(((Date.now() - task.startedAt) / UPDATE_DURATION_MS) * 100))
          : 100,
    StartTime: new Date(task.startedAt).toISOString(),
    ...(task.endedAt === undefined ? {} : { EndTime: new Date(task.endedAt).toISOString() }),
    Messages: [
      {
        MessageId: task.state === 'Exception' ? 'Update.1.0.ApplyFailed' : 'Update.1.0.UpdateInProgress',
        Message: task.message,
        Severity: task.state === 'Exception' ? 'Critical' : 'OK',
      },
    ],
  };
}

/** The machine a SimpleUpdate is for: its `Targets`, or the only machine. */
function targetMachine(machines: ReadonlyMap<string, VirtualMachine>, targets: unknown): VirtualMachine | RedfishReply {
  if (targets === undefined) {
    if (machines.size === 1) return [...machines.values()][0] as VirtualMachine;
    return redfishError(
      400,
      'Base.1.8.ActionParameterMissing',
      'The action SimpleUpdate requires the parameter Targets: this BMC manages several systems.',
    );
  }
  const first = Array.isArray(targets) ? targets[0] : undefined;
  const match = typeof first === 'string' ? /^\/redfish\/v1\/(?:Systems|Managers)\/([^/]+)$/.exec(first.replace(/\/+$/, '')) : null;
  const machine = match ? machines.get(decodeURIComponent(match[1] as string)) : undefined;
  if (machine === undefined) {
    return redfishError(
      400,
      'Base.1.8.ActionParameterValueFormatError',
      `The value ${JSON.stringify(targets)} for the parameter Targets names no system of this BMC.`,
    );
  }
  return machine;
}

/** What an image holds, from its file name (`bios-2.0.0.bin`). */
function imageOf(uri: string): { component: Component; version: string } | undefined {
  let name: string;
  try {
    name = new URL(uri).pathname.split('/').pop() ?? '';
  } catch {
    return undefined;
  }
  const match = /^(bios|bmc|nic)[-_]v?(\d[\w.+-]*?)\.[A-Za-z0-9]+$/i.exec(name);
  return match ? { component: (match[1] as string).toLowerCase() as Component, version: match[2] as string } : undefined;
}

function simpleUpdate(machines: ReadonlyMap<string, VirtualMachine>, req: RedfishRequest): RedfishReply {
  const body = (req.body ?? {}) as Doc;
  if (typeof body.ImageURI !== 'string' || body.ImageURI === '') {
    return redfishError(
      400,
      'Base.1.8.ActionParameterMissing',
      'The action SimpleUpdate requires the parameter ImageURI to be present in the request body.',
    );
  }
  const image = imageOf(body.ImageURI);
  if (image === undefined) {
    return redfishError(
      400,
      'Base.1.8.ActionParameterValueFormatError',
      `The value ${body.ImageURI} for the parameter ImageURI is not a firmware image of this BMC: name it bios-<version>.bin, bmc-<version>.bin or nic-<version>.bin.`,
    );
  }
  const machine = targetMachine(machines, body.Targets);
  if (!('id' in machine)) return machine;
  const waitsForReset = image.component === 'nic' && machine.faults.nicUpdateStartsOnReset === true;
  const idrac = image.component === 'bios' ? machine.faults.idracJobQueue : undefined;
  const task: UpdateTask = {
    id: idrac === undefined ? String(nextTaskId++) : `JID_${String(nextTaskId++).padStart(12, '0')}`,
    machine,
    ...image,
    image: body.ImageURI,
    startedAt: Date.now(),
    state: idrac !== undefined ? 'New' : waitsForReset ? 'Starting' : 'Running',
    message:
      idrac !== undefined
        ? `Downloading the BIOS firmware ${image.version}.`
        : waitsForReset
          ? `The NIC firmware ${image.version} starts at the next system reset.`
          : `Flashing ${image.component.toUpperCase()} firmware ${image.version}.`,
    ...(idrac === undefined ? {} : { idrac }),
  };
  if (idrac !== undefined) {
    addJob(machine, {
      id: task.id,
      name: 'Firmware Update: BIOS',
      state: 'Downloading',
      message: 'Downloading the image.',
      startedAt: task.startedAt,
    });
  }
  firmwareOf(machine).unfinished.add(task);
  const tasks = tasksOf(machines);
  tasks.set(task.id, task);
  // Keep the latest Tasks only, as a BMC does (the oldest go first).
  for (const old of tasks.keys()) if (tasks.size > MAX_TASKS) tasks.delete(old);
  const doc = taskDoc(task);
  return { status: 202, body: doc, headers: { Location: doc['@odata.id'] as string } };
}

/** `/redfish/v1/UpdateService[/…]`; `rest` is the path after `UpdateService`. */
export function updateServiceResource(
  machines: ReadonlyMap<string, VirtualMachine>,
  req: RedfishRequest,
  rest: readonly string[],
): RedfishReply {
  const path = `${ROOT}/UpdateService`;
  const [sub, item, ...more] = rest;
  if (sub === undefined) {
    if (req.method !== 'GET') return notAllowed(req);
    return {
      status: 200,
      body: {
        '@odata.type': '#UpdateService.v1_8_0.UpdateService',
        '@odata.id': path,
        Id: 'UpdateService',
        Name: 'Update Service',
        ServiceEnabled: true,
        FirmwareInventory: ref(`${path}/FirmwareInventory`),
        Actions: { '#UpdateService.SimpleUpdate': { target: `${path}/Actions/UpdateService.SimpleUpdate` } },
      },
    };
  }
  if (sub === 'Actions' && item === 'UpdateService.SimpleUpdate' && more.length === 0) {
    return req.method === 'POST' ? simpleUpdate(machines, req) : notAllowed(req);
  }
  if (sub !== 'FirmwareInventory' || more.length > 0) return notFound(req);
  if (req.method !== 'GET') return notAllowed(req);
  settleFirmware(machines);
  const items = [...machines.values()].flatMap((m) => [inventoryItem(m, 'bios'), inventoryItem(m, 'bmc'), inventoryItem(m, 'nic')]);
  if (item === undefined) {
    return {
      status: 200,
      body: {
        '@odata.type': '#SoftwareInventoryCollection.SoftwareInventoryCollection',
        '@odata.id': `${path}/FirmwareInventory`,
        Name: 'Firmware Inventory Collection',
        'Members@odata.count': items.length,
        Members: items.map((i) => ref(i['@odata.id'] as string)),
      },
    };
  }
  const found = items.find((i) => i.Id === item);
  return found ? { status: 200, body: found } : notFound(req);
}

/** `/redfish/v1/TaskService[/Tasks[/<id>]]`. */
export function taskServiceResource(
  machines: ReadonlyMap<string, VirtualMachine>,
  req: RedfishRequest,
  rest: readonly string[],
): RedfishReply {
  if (req.method !== 'GET') return notAllowed(req);
  const path = `${ROOT}/TaskService`;
  const [sub, id, ...more] = rest;
  const tasks = tasksOf(machines);
  if (sub === undefined) {
    return {
      status: 200,
      body: { '@odata.type': '#TaskService.v1_1_4.TaskService', '@odata.id': path, Id: 'TaskService', Tasks: ref(`${path}/Tasks`) },
    };
  }
  if (sub !== 'Tasks' || more.length > 0) return notFound(req);
  if (id === undefined) {
    settleFirmware(machines);
    return {
      status: 200,
      body: {
        '@odata.type': '#TaskCollection.TaskCollection',
        '@odata.id': `${path}/Tasks`,
        Name: 'Task Collection',
        'Members@odata.count': tasks.size,
        Members: [...tasks.keys()].map((t) => ref(`${path}/Tasks/${t}`)),
      },
    };
  }
  const task = tasks.get(id);
  if (task === undefined) return notFound(req);
  // The Tasks live on the restarting BMC: away with it.
  if (bmcRestarting(task.machine)) return redfishError(503, 'Base.1.8.ServiceTemporarilyUnavailable', 'The BMC is restarting.');
  settle(task);
  if (task.purged === true) {
    tasks.delete(id);
    return notFound(req);
  }
  return { status: 200, body: taskDoc(task) };
}
