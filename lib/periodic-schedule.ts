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
