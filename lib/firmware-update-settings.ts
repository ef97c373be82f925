/**
 * Ironic master's `[redfish]firmware_update_*` options: how the redfish `update` step follows a
 * firmware update (functions/drivers/redfish/firmware-updates.ts); and its
 * `[redfish]boot_mode_config_timeout`, how long a new boot mode or secure boot state is waited for
 * (`wait-applied.ts`), and `post_boot_retry_*`, how a boot device refused during POST is tried
 * again (`post-retry.ts`). Apart from `settings.ts` as the
 * inspector's are; the IronlessSettings include them, and their variables are among
 * `settingsVariables` (left out at their defaults).
 */
import { ENV } from '../functions/common/config';
import {
  DEFAULT_BOOT_MODE_CONFIG_TIMEOUT_SECONDS,
  DEFAULT_FIRMWARE_UPDATE_CONFIG,
  DEFAULT_POST_BOOT_RETRY_ATTEMPTS,
  DEFAULT_POST_BOOT_RETRY_DELAY_SECONDS,
} from '../functions/drivers/redfish/config';

export interface FirmwareUpdateSettings {
  /**
   * Ironic `[redfish]firmware_update_reboot_delay`: a BMC image's wait when its setting has none,
   * how long after its post the BMC's version may stay the same, and how long each power state
   * change of the reboots that start or apply a BIOS or NIC image may take (0: the power state
   * timeout). @default 300
   */
  readonly firmwareUpdateRebootDelaySeconds: number;
  /** Ironic `[redfish]firmware_update_bmc_version_check_interval`: between reads of the BMC's version. @default 30 */
  readonly firmwareUpdateBmcVersionCheckIntervalSeconds: number;
  /** Ironic `[redfish]firmware_update_nic_starting_wait`: a NIC Task in Starting longer than this is rebooted for. @default 30 */
  readonly firmwareUpdateNicStartingWaitSeconds: number;
  /** Ironic `[redfish]firmware_update_overall_timeout`: the longest a whole update may take, 0 for no limit. @default 7200 */
  readonly firmwareUpdateOverallTimeoutSeconds: number;
  /**
   * Ironic `[redfish]firmware_update_required_successes`: answers in a row from the BMC's System,
   * Manager and NetworkAdapters before the update goes on; 0 skips the check. @default 3
   */
  readonly firmwareUpdateRequiredSuccesses: number;
  /** Ironic `[redfish]firmware_update_validation_interval`: the least time between those checks. @default 30 */
  readonly firmwareUpdateValidationIntervalSeconds: number;
  /** Ironic `[redfish]firmware_update_resource_validation_timeout`: how long they may fail; 0 skips the check. @default 480 */
  readonly firmwareUpdateResourceValidationTimeoutSeconds: number;
  /**
   * Ironic `[redfish]boot_mode_config_timeout`: how long, after the reboot that applies it, a BMC
   * may take to report a new boot mode; 0 reboots without waiting. A wait also ends before the
   * conductor invocation's deadline. @default 900
   */
  readonly redfishBootModeConfigTimeoutSeconds: number;
  /**
   * Ironic `[redfish]post_boot_retry_attempts`: tries, counting the first, of a boot device change
   * the BMC refuses while the system is in POST (HPE iLO's `UnableToModifyDuringSystemPOST`); 1 or
   * more. @default 6
   */
  readonly redfishPostBootRetryAttempts: number;
  /**
   * Ironic `[redfish]post_boot_retry_delay`: the least wait between those tries, which grow
   * exponentially up to 6 times it; 1 or more. @default 5
   */
  readonly redfishPostBootRetryDelaySeconds: number;
}

const d = DEFAULT_FIRMWARE_UPDATE_CONFIG;

/** Ironic's defaults. */
export const FIRMWARE_UPDATE_SETTINGS_DEFAULTS: FirmwareUpdateSettings = {
  firmwareUpdateRebootDelaySeconds: d.rebootDelay,
  firmwareUpdateBmcVersionCheckIntervalSeconds: d.bmcVersionCheckInterval,
  firmwareUpdateNicStartingWaitSeconds: d.nicStartingWait,
  firmwareUpdateOverallTimeoutSeconds: d.overallTimeout,
  firmwareUpdateRequiredSuccesses: d.requiredSuccesses,
  firmwareUpdateValidationIntervalSeconds: d.validationInterval,
  firmwareUpdateResourceValidationTimeoutSeconds: d.resourceValidationTimeout,
  redfishBootModeConfigTimeoutSeconds: DEFAULT_BOOT_MODE_CONFIG_TIMEOUT_SECONDS,
  redfishPostBootRetryAttempts: DEFAULT_POST_BOOT_RETRY_ATTEMPTS,
  redfishPostBootRetryDelaySeconds: DEFAULT_POST_BOOT_RETRY_DELAY_SECONDS,
};

/** Each setting with the variable that carries it, and the least value allowed (Ironic's `min`; 0 unless given). */
function pairs(s: FirmwareUpdateSettings): [keyof FirmwareUpdateSettings, string, number, number?][] {
  return [
    ['firmwareUpdateRebootDelaySeconds', ENV.firmwareUpdateRebootDelay, s.firmwareUpdateRebootDelaySeconds],
    [
      'firmwareUpdateBmcVersionCheckIntervalSeconds',
      ENV.firmwareUpdateBmcVersionCheckInterval,
      s.firmwareUpdateBmcVersionCheckIntervalSeconds,
    ],
    ['firmwareUpdateNicStartingWaitSeconds', ENV.firmwareUpdateNicStartingWait, s.firmwareUpdateNicStartingWaitSeconds],
    ['firmwareUpdateOverallTimeoutSeconds', ENV.firmwareUpdateOverallTimeout, s.firmwareUpdateOverallTimeoutSeconds],
    ['firmwareUpdateRequiredSuccesses', ENV.firmwareUpdateRequiredSuccesses, s.firmwareUpdateRequiredSuccesses],
    ['firmwareUpdateValidationIntervalSeconds', ENV.firmwareUpdateValidationInterval, s.firmwareUpdateValidationIntervalSeconds],
    [
      'firmwareUpdateResourceValidationTimeoutSeconds',
      ENV.firmwareUpdateResourceValidationTimeout,
      s.firmwareUpdateResourceValidationTimeoutSeconds,
    ],
    ['redfishBootModeConfigTimeoutSeconds', ENV.redfishBootModeConfigTimeout, s.redfishBootModeConfigTimeoutSeconds],
    ['redfishPostBootRetryAttempts', ENV.redfishPostBootRetryAttempts, s.redfishPostBootRetryAttempts, 1],
    ['redfishPostBootRetryDelaySeconds', ENV.redfishPostBootRetryDelay, s.redfishPostBootRetryDelaySeconds, 1],
  ];
}

/** Refuse what the conductor could not read (Ironic's `min`), naming the setting. */
export function validateFirmwareUpdateSettings(s: FirmwareUpdateSettings): void {
  for (const [name, , value, min = 0] of pairs(s)) {
    if (!Number.isInteger(value) || value < min) throw new Error(`${name} (${value}) must be a whole number, ${min} or more`);
  }
}

/** The variables that carry them (defaults included; `settingsEnvironment` leaves those out). */
export function firmwareUpdateVariables(s: FirmwareUpdateSettings): Record<string, string> {
  return Object.fromEntries(pairs(s).map(([, variable, value]) => [variable, String(value)]));
}
