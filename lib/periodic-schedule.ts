/** The conductor's periodic tasks as the settings schedule them (`functions/conductor/schedules.ts` has the tasks). */
import { PERIODIC_TASKS, type PeriodicTask } from '../functions/conductor/schedules';
import type { IronlessSettings } from './settings';

/** The setting that gives the interval of each task that has none of its own (Ironic's interval options). */
const INTERVAL_SETTINGS = {
  sync_power_states: 'syncPowerStateIntervalSeconds',
  fail_timed_out_waits: 'checkProvisionStateIntervalSeconds',
  manage_node_history: 'nodeHistoryCleanupIntervalSeconds',
} as const satisfies Partial<Record<PeriodicTask, keyof IronlessSettings>>;

/**
 * How often each periodic task runs with these settings, in seconds; a task turned off (interval
 * 0) is left out. The CDK stack makes an EventBridge schedule of each, the local stack a timer.
 */
export function periodicSchedule(s: IronlessSettings): Partial<Record<PeriodicTask, number>> {
  const schedule: Partial<Record<PeriodicTask, number>> = {};
  for (const [task, def] of Object.entries(PERIODIC_TASKS) as [PeriodicTask, { readonly everySeconds?: number }][]) {
    const seconds = def.everySeconds ?? s[INTERVAL_SETTINGS[task as keyof typeof INTERVAL_SETTINGS]];
    if (seconds === undefined) throw new Error(`Periodic task ${task} has neither an interval of its own nor a setting for it`);
    if (seconds > 0) schedule[task] = seconds;
  }
  return schedule;
}

/**
 * Refuse an interval EventBridge cannot schedule, naming the setting: 0 (off) or whole minutes,
 * at most a year.
 */
export function validatePeriodicIntervals(s: IronlessSettings): void {
  for (const name of Object.values(INTERVAL_SETTINGS)) {
    const seconds = s[name];
    if (!Number.isInteger(seconds) || seconds < 0 || seconds % 60 !== 0 || seconds > 365 * 86_400) {
      throw new Error(
        `${name} (${seconds}) must be 0 (off) or a whole number of minutes in seconds (60, 120, …), at most a year: EventBridge schedules periodic tasks by the minute`,
      );
    }
  }
}
