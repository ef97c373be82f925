/**
 * Ironic's `[conductor]` options of the power-state sync other than its interval (which
 * `periodic-schedule.ts` schedules): whether a differing power state is forced back onto the
 * hardware, how many runs in a row may fail before the node goes into maintenance, and how many
 * nodes of a page are synced at once. Apart from `settings.ts` as the inspector's are; the
 * IronlessSettings include them, and their variables are among `settingsVariables`.
 */
import { ENV } from '../functions/common/config';

export interface PowerSyncSettings {
  /**
   * Ironic `[conductor]force_power_state_during_sync`: when the BMC reports another power state
   * than the one recorded, power the hardware back to the recorded state (true) or record the
   * state reported (false). Nodes with `disable_power_off` are never forced.
   */
  readonly forcePowerStateDuringSync: boolean;
  /**
   * Ironic `[conductor]power_state_sync_max_retries`: runs in a row that may fail to read the BMC,
   * or find the hardware still differing after it was forced, before the node goes into
   * maintenance with fault "power failure".
   */
  readonly powerStateSyncMaxRetries: number;
  /**
   * Ironic `[conductor]sync_power_state_workers`: nodes of a page synced at once. Each page of the
   * sync is its own invocation, so this is per page, not per conductor; as BMC round trips are
   * waits, more at once also means shorter (cheaper) invocations.
   */
  readonly syncPowerStateWorkers: number;
}

/** Ironic's defaults. */
export const POWER_SYNC_SETTINGS_DEFAULTS: PowerSyncSettings = {
  forcePowerStateDuringSync: true,
  powerStateSyncMaxRetries: 3,
  syncPowerStateWorkers: 8,
};

/** Refuse values the conductor could not read, naming the setting. */
export function validatePowerSyncSettings(s: PowerSyncSettings): void {
  if (!Number.isInteger(s.powerStateSyncMaxRetries) || s.powerStateSyncMaxRetries < 0) {
    throw new Error(`powerStateSyncMaxRetries (${s.powerStateSyncMaxRetries}) must be a whole number, 0 or more`);
  }
  if (!Number.isInteger(s.syncPowerStateWorkers) || s.syncPowerStateWorkers < 1) {
    throw new Error(`syncPowerStateWorkers (${s.syncPowerStateWorkers}) must be a whole number, 1 or more`);
  }
}

/** The variables that carry them (defaults included; `settingsEnvironment` leaves those out). */
export function powerSyncVariables(s: PowerSyncSettings): Record<string, string> {
  return {
    [ENV.forcePowerStateDuringSync]: String(s.forcePowerStateDuringSync),
    [ENV.powerStateSyncMaxRetries]: String(s.powerStateSyncMaxRetries),
    [ENV.syncPowerStateWorkers]: String(s.syncPowerStateWorkers),
  };
}
