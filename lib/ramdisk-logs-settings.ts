/**
 * The ramdisk logs settings (Ironic's `[agent]deploy_logs_*`), apart from `settings.ts` as trait
 * based networking's are: what they mean, their defaults, their check, and the variable that
 * carries the collect mode to the functions (the bucket's name is added by each stack).
 */
import { ENV, LOGS_COLLECT_VALUES, type LogsCollect } from '../functions/common/config';
import { withoutDefaults } from './function-environment';

export interface RamdiskLogsSettings {
  /**
   * Ironic `[agent]deploy_logs_collect`: when the ramdisk's logs are kept in the stack's ramdisk
   * logs bucket — `on_failure` (a deploy, cleaning or servicing that fails while the agent runs,
   * and a failed in-band inspection), `always` (also when they succeed), or `never`.
   * @default 'on_failure'
   */
  readonly deployLogsCollect?: LogsCollect;
  /**
   * Ironic `[agent]deploy_logs_swift_days_to_expire`: days the ramdisk logs bucket keeps an archive
   * (its lifecycle rule); 0 keeps them until deleted. @default 30
   */
  readonly deployLogsDaysToExpire?: number;
}

export const DEFAULT_DEPLOY_LOGS_DAYS_TO_EXPIRE = 30;

/**
 * The functions' variables for these settings (the collect mode, left out at its default), after
 * checking them: both stacks build the environment from validated settings, so a bad value fails
 * the synth or the local stack's start, naming it.
 */
export function ramdiskLogsEnvironment(s: RamdiskLogsSettings): Record<string, string> {
  const collect = s.deployLogsCollect ?? 'on_failure';
  if (!LOGS_COLLECT_VALUES.includes(collect)) {
    throw new Error(`deployLogsCollect "${String(collect)}" must be one of ${LOGS_COLLECT_VALUES.join(', ')}`);
  }
  const days = s.deployLogsDaysToExpire ?? DEFAULT_DEPLOY_LOGS_DAYS_TO_EXPIRE;
  if (!Number.isInteger(days) || days < 0) {
    throw new Error(`deployLogsDaysToExpire (${days}) must be a whole number of days, 0 to keep the logs until deleted`);
  }
  return withoutDefaults({ [ENV.logsCollect]: collect });
}
