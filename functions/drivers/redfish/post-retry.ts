/**
 * Ironic master's retry of a boot device PATCH refused while the system is in POST (Power-On
 * Self-Test): HPE iLO answers 400 `UnableToModifyDuringSystemPOST` to boot override changes for a
 * while after a reboot or a firmware update. Such a refusal is tried again,
 * `[redfish]post_boot_retry_attempts` times in all, waiting as tenacity's
 * `wait_exponential(multiplier=1, min=delay, max=6×delay)` does (`[redfish]post_boot_retry_delay`);
 * the last refusal is thrown as it came. Any other failure is thrown at once.
 *
 * NOTE: the waits also stop before the conductor invocation's deadline (`../guard.ts`): a wait that
 * would end past it is not started, and the refusal is thrown then, as after the last attempt.
 */
import type { Task } from '../base';
import { RedfishRequestError } from './client';
import { DEFAULT_POST_BOOT_RETRY_ATTEMPTS, DEFAULT_POST_BOOT_RETRY_DELAY_SECONDS, type RedfishConfig } from './config';
import { msBeforeDeadline, sleep } from './wait-applied';

/** The Redfish MessageId (after its registry prefix, e.g. `iLO.2.14.`) of the BMC's refusal during POST. */
export const DURING_POST_MESSAGE_ID = 'UnableToModifyDuringSystemPOST';

/**
 * Whether a failure is the BMC's refusal during POST: a 400 that names it (sushy's BadRequestError),
 * in its message or among its extended info's MessageIds (which the message may hold only in part).
 */
export function isDuringPostError(err: unknown): boolean {
  if (!(err instanceof RedfishRequestError) || err.status !== 400) return false;
  return err.message.includes(DURING_POST_MESSAGE_ID) || err.messageIds.some((id) => id.includes(DURING_POST_MESSAGE_ID));
}

/** The wait after failed attempt `attempt` (1 for the first): 2^(attempt-1) s, kept between delay and 6 × delay. */
export function postRetryWaitMs(attempt: number, delaySeconds: number): number {
  return Math.max(delaySeconds, Math.min(2 ** (attempt - 1), delaySeconds * 6)) * 1000;
}

/** Run `action`, trying it again while the BMC refuses it during POST (see above). */
export async function retryDuringPost<T>(task: Task, config: RedfishConfig, action: () => Promise<T>): Promise<T> {
  const attempts = config.postBootRetryAttempts ?? DEFAULT_POST_BOOT_RETRY_ATTEMPTS;
  const delaySeconds = config.postBootRetryDelaySeconds ?? DEFAULT_POST_BOOT_RETRY_DELAY_SECONDS;
  const uuid = task.node.uuid;
  for (let attempt = 1; ; attempt++) {
    try {
      return await action();
    } catch (err) {
      if (!isDuringPostError(err) || attempt >= attempts) throw err;
      const waitMs = postRetryWaitMs(attempt, delaySeconds);
      if (waitMs >= msBeforeDeadline(task)) {
        task.log.warn(`The BMC of node ${uuid} is in POST and no time is left to try the boot device again`, { node: uuid, attempt });
        throw err;
      }
      task.log.warn(
        `The BMC of node ${uuid} is in POST and refused the boot device change; trying again in ${(waitMs / 1000).toFixed(1)} s (attempt ${attempt} of ${attempts})`,
        { node: uuid, error: (err as Error).message },
      );
      await sleep(waitMs);
    }
  }
}
