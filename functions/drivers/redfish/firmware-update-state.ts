/**
 * The bookkeeping of a redfish firmware update, kept on the node as Ironic master keeps it (its
 * keys, so an operator reading `driver_internal_info` finds what Ironic shows), and what the
 * modules that follow the update share: the ports to the BMC, the clock, and the failure message.
 */
import { RedfishError } from '#common/errors';
import { FW_UPDATE_KEYS, FW_UPDATES_KEY } from '#common/firmware-bookkeeping';
import type { StepProgress, Task } from '../base';
import type { FirmwareUpdate } from '../firmware';
import type { FirmwareUpdateConfig } from './config';
import { type RedfishSystem, isRedfishFailure } from './system';

export {
  BMC_VERSION_BEFORE_KEY,
  FW_REBOOT_REQUESTED_KEY,
  FW_UPDATE_KEYS,
  FW_UPDATE_START_KEY,
  FW_UPDATES_KEY,
} from '#common/firmware-bookkeeping';

/** Where the check of the BMC's resources stands (Ironless: master checks in one blocking loop). */
export interface ResourceValidation {
  readonly start_time: string;
  successes: number;
  last_check_time?: string;
  last_error?: string;
}

/** One update as kept on the node: the setting, its Task once posted, and master's per-component marks. */
export interface PendingUpdate extends Omit<FirmwareUpdate, 'wait'> {
  /** The setting's wait, then master's waits: a BMC's before its check, between version reads. */
  wait?: number;
  task_monitor?: string;
  /**
   * Master's key: how long each power state change of the reboots that start or apply this
   * image may take (`firmware_update_reboot_delay` when it was posted; 0 or none: the power
   * state timeout).
   */
  power_timeout?: number;
  wait_start_time?: string;
  bios_reboot_triggered?: boolean;
  nic_starting_timestamp?: string;
  nic_reboot_triggered?: boolean;
  nic_needs_post_completion_reboot?: boolean;
  bmc_check_start_time?: string;
  bmc_version_checking?: boolean;
  bmc_update_completed?: boolean;
  resource_validation?: ResourceValidation;
}

/** What following the updates needs from the interface: the BMC, a reboot, and a refresh of the cache. */
export interface UpdatePorts {
  readonly system: (task: Task) => Promise<RedfishSystem>;
  readonly reboot: (task: Task, timeoutSeconds?: number) => Promise<void>;
  readonly cache: (task: Task, system: RedfishSystem) => Promise<void>;
}

/** One poll's view: the node's task, the ports, the options, and the updates (the first running). */
export interface Follow {
  readonly task: Task;
  readonly ports: UpdatePorts;
  readonly config: FirmwareUpdateConfig;
  readonly updates: PendingUpdate[];
}

export const WAITING: StepProgress = { state: 'waiting' };

/** The clock (a function, so tests move it). */
export const nowMs = (): number => Date.now();
export const nowIso = (): string => new Date(nowMs()).toISOString();
/** Whole seconds since an ISO time kept on the node. */
export const secondsSince = (iso: string): number => (nowMs() - Date.parse(iso)) / 1000;

/** The pending updates on the node; empty when there are none. */
export function pendingUpdates(task: Task): PendingUpdate[] {
  const stored = task.node.driver_internal_info[FW_UPDATES_KEY];
  return Array.isArray(stored) ? (stored as PendingUpdate[]).map((u) => ({ ...u })) : [];
}

export function storeUpdates(task: Task, updates: readonly PendingUpdate[]): void {
  task.node.driver_internal_info = { ...task.node.driver_internal_info, [FW_UPDATES_KEY]: updates };
}

export function setInfo(task: Task, key: string, value: unknown): void {
  const info = { ...task.node.driver_internal_info };
  if (value === undefined) delete info[key];
  else info[key] = value;
  task.node.driver_internal_info = info;
}

/** Remove the bookkeeping and master's temporary marks (Ironic's _clear_updates). */
export function clearUpdates(task: Task): void {
  const info = { ...task.node.driver_internal_info };
  for (const key of FW_UPDATE_KEYS) delete info[key];
  task.node.driver_internal_info = info;
}

export const failureMessage = (task: Task, update: FirmwareUpdate, error: string): string =>
  `Firmware update failed for node ${task.node.uuid}, firmware ${update.url}. Error: ${error}`;

/** A BMC that does not answer (away while it restarts), as opposed to a fault of ours. */
export const isBmcAway = (err: unknown): boolean => err instanceof RedfishError || isRedfishFailure(err);

/** The BMC's firmware version, or null while it cannot be read (master's _get_current_bmc_version). */
export async function readBmcVersion(f: Follow): Promise<string | null> {
  try {
    const system = await f.ports.system(f.task);
    const [manager] = await system.managers();
    const version = manager?.FirmwareVersion;
    return typeof version === 'string' && version !== '' ? version : null;
  } catch (err) {
    if (!isBmcAway(err)) throw err;
    f.task.log.debug('BMC temporarily unresponsive', { node: f.task.node.uuid, error: String(err) });
    return null;
  }
}

/** Keep the updates on the node and write it before a reboot (which takes a while, and may fail). */
export async function storeAndReboot(f: Follow, timeoutSeconds?: number): Promise<void> {
  storeUpdates(f.task, f.updates);
  await f.task.persist?.();
  await f.ports.reboot(f.task, timeoutSeconds);
}
