/**
 * Waiting for a BMC to apply a setting at the next boot, as Ironic master's `_wait_for_boot_mode`
 * and `_wait_for_secure_boot` both do: some BMCs (Dell's) accept a new boot mode or secure boot
 * state and apply it through a BIOS configuration job, so it shows up only after a reboot. Read it
 * again; if it is not there, reboot the node, poll until `[redfish]boot_mode_config_timeout` (0:
 * no wait) for it to show, then put the node back in the power state it had.
 *
 * NOTE: master polls every 15 s for up to 900 s; a conductor invocation lasts minutes at most, so
 * the wait also ends before the invocation's deadline (`../guard.ts`), with master's timeout error.
 */
import { RedfishError } from '#common/errors';
import { POWER_OFF, POWER_ON } from '#common/states';
import type { PowerInterface, Task } from '../base';
import { guardOf } from '../guard';
import { DEFAULT_BOOT_MODE_CONFIG_INTERVAL_MS, DEFAULT_BOOT_MODE_CONFIG_TIMEOUT_SECONDS, type RedfishConfig } from './config';

/** Time left, when a wait ends at the invocation's deadline, for what must follow it (a power change, a PATCH). */
export const DEADLINE_RESERVE_MS = 10_000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Milliseconds until the conductor invocation's deadline, less the reserve (Infinity when unguarded). */
export function msBeforeDeadline(task: Task): number {
  return (guardOf(task.node)?.remainingMs() ?? Number.POSITIVE_INFINITY) - DEADLINE_RESERVE_MS;
}

/** What is waited for. Values are strings as the messages show them ("Legacy", "True"). */
export interface AppliedSetting {
  /** Its name in the messages: "boot mode", "secure boot state". */
  readonly what: string;
  /** The value asked for. */
  readonly wanted: string;
  /** Read it from the BMC again; the value it reports now (or the last one known, when a read failed). */
  read(): Promise<string | undefined>;
}

export interface WaitDeps {
  readonly power: PowerInterface;
  readonly config: RedfishConfig;
}

/**
 * Make sure the BMC reports `setting.wanted`, rebooting the node and waiting for it when it does
 * not yet. Throws master's "Timeout reached while waiting for …" RedfishError when it never does.
 */
export async function waitForSettingApplied(task: Task, setting: AppliedSetting, deps: WaitDeps): Promise<void> {
  const uuid = task.node.uuid;
  const { what, wanted } = setting;
  let current = await setting.read();
  if (current === wanted) {
    task.log.debug(`Node ${uuid} already reports the requested ${what} ${wanted}.`, { node: uuid });
    return;
  }
  task.log.info(`Rebooting node ${uuid} to change ${what} from ${current} to ${wanted}`, { node: uuid });
  const oldPowerState = await deps.power.getPowerState(task);
  await deps.power.reboot(task);

  const timeoutSeconds = deps.config.bootModeConfigTimeoutSeconds ?? DEFAULT_BOOT_MODE_CONFIG_TIMEOUT_SECONDS;
  if (timeoutSeconds > 0) {
    const interval = deps.config.bootModeConfigIntervalMs ?? DEFAULT_BOOT_MODE_CONFIG_INTERVAL_MS;
    const threshold = Date.now() + Math.min(timeoutSeconds * 1000, msBeforeDeadline(task));
    current = await setting.read();
    while (Date.now() < threshold && current !== wanted) {
      task.log.debug(`Still waiting for ${what} of node ${uuid} to become ${wanted}, current is ${current}`, { node: uuid });
      await sleep(Math.min(interval, threshold - Date.now()));
      current = await setting.read();
    }
    if (current !== wanted) {
      const message = `Timeout reached while waiting for ${what} of node ${uuid} to become ${wanted}, current is ${current}`;
      task.log.error(message, { node: uuid });
      throw new RedfishError(message);
    }
  }
  // Back to the power state it had (master's node_power_action, which does nothing when it is already there).
  if (oldPowerState !== POWER_ON && oldPowerState !== POWER_OFF) return;
  if ((await deps.power.getPowerState(task)) !== oldPowerState) await deps.power.setPowerState(task, oldPowerState);
}
