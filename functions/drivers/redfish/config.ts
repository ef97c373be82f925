/**
 * How patient the Redfish driver is with a BMC. Ironic's `[redfish]connection_attempts` and
 * `connection_retry_interval`, `[conductor]power_state_change_timeout`, and the HTTP timeouts sushy
 * leaves to `requests`. The defaults keep the worst case of one driver call (a BMC that accepts
 * connections and never answers: attempts × (connect + read timeout) + the back-off between them)
 * well under the conductor's step timeout, so a dead BMC ends in an error, never in a Lambda timeout.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import {
  AGENT_API_CA_BUNDLE_PATH,
  ConfigError,
  DEFAULT_REDFISH_INSPECTION_HOOKS,
  type Env,
  ENV,
  type InspectorConfig,
  integer,
  loadInspectorConfig,
  parseRedfishHookList,
} from '#common/config';
import { type FetchPolicy, fetchPolicyFromEnv } from '../hosts';
import { type BootIsoConfig, DEFAULT_KERNEL_APPEND_PARAMS } from './boot-iso';
import { loadIsolinux } from './isolinux';

export interface RedfishConfig {
  /** Tries per request, counting the first; connection errors, timeouts of reads and 5xx answers are retried. */
  readonly attempts: number;
  /** Wait before the first retry; each later retry waits twice as long as the one before. */
  readonly retryIntervalMs: number;
  /** How long to wait for a TCP (and TLS) connection to the BMC. */
  readonly connectTimeoutMs: number;
  /** How long to wait for the whole answer once connected. */
  readonly readTimeoutMs: number;
  /** How long to wait for the BMC to report a requested power state (Ironic's default: 60 s). */
  readonly powerStateChangeTimeoutMs: number;
  /** How often to ask for the power state while waiting; doubled after each poll up to 5 s. */
  readonly powerPollIntervalMs: number;
  /** The BMC and image hosts, and CA folders, users may name (`../hosts.ts`). */
  readonly policy: FetchPolicy;
  /** Building the agent ISO from a kernel and ramdisk (`boot-iso.ts`). @default no bucket: only ready ISOs */
  readonly bootIso?: BootIsoConfig;
  /**
   * Out-of-band inspection's hooks (Ironic's `[redfish]inspection_hooks`, `$default_inspection_hooks`
   * expanded) and the `[inspector]` options they read (add_ports, keep_ports, update_pxe_enabled).
   * @default Ironic's: validate-interfaces, ports, architecture, with `[inspector]`'s defaults
   */
  readonly inspection?: RedfishInspectionConfig;
  /** How firmware updates are followed (Ironic's `[redfish]firmware_update_*`). @default Ironic's */
  readonly firmwareUpdate?: FirmwareUpdateConfig;
  /**
   * Ironic's `[redfish]boot_mode_config_timeout`: how long to wait, after the reboot that applies
   * it, for the BMC to report a new boot mode; 0 for no wait (`set-boot-mode.ts`). @default 900
   */
  readonly bootModeConfigTimeoutSeconds?: number;
  /** How often the boot mode is read while waiting (Ironic's fixed 15 s; tests with virtual BMCs lower it). @default 15000 */
  readonly bootModeConfigIntervalMs?: number;
  /**
   * Ironic's `[redfish]post_boot_retry_attempts`: tries of a boot device PATCH a BMC refuses while
   * the system is in POST (HPE's `UnableToModifyDuringSystemPOST`), counting the first (`post-retry.ts`). @default 6
   */
  readonly postBootRetryAttempts?: number;
  /** Ironic's `[redfish]post_boot_retry_delay`: the least wait between those tries; the most is 6 times it. @default 5 */
  readonly postBootRetryDelaySeconds?: number;
}

/** Ironic master's `[redfish]firmware_update_*` options, in seconds (`firmware-updates.ts`). */
export interface FirmwareUpdateConfig {
  /**
   * `firmware_update_reboot_delay`: a BMC image's wait and version-check deadline when it has no
   * `wait`, and (as master's `power_timeout`) how long each power state change of the reboots that
   * start or apply a BIOS or NIC image may take.
   */
  readonly rebootDelay: number;
  /** `firmware_update_bmc_version_check_interval`: how often the BMC's version is read after its update. */
  readonly bmcVersionCheckInterval: number;
  /** `firmware_update_nic_starting_wait`: how long a NIC Task may stay in Starting before a reboot starts it. */
  readonly nicStartingWait: number;
  /** `firmware_update_overall_timeout`: the longest the whole update may take; 0 for no limit. */
  readonly overallTimeout: number;
  /** `firmware_update_required_successes`: answers in a row that make the BMC's resources stable; 0 skips the check. */
  readonly requiredSuccesses: number;
  /** `firmware_update_validation_interval`: the least time between two checks of the resources. */
  readonly validationInterval: number;
  /** `firmware_update_resource_validation_timeout`: how long the resources may take to be stable; 0 skips the check. */
  readonly resourceValidationTimeout: number;
}

/** Ironic master's `[redfish]boot_mode_config_timeout` default. */
export const DEFAULT_BOOT_MODE_CONFIG_TIMEOUT_SECONDS = 900;
/** Ironic master's BOOT_MODE_CONFIG_INTERVAL (a constant there). */
export const DEFAULT_BOOT_MODE_CONFIG_INTERVAL_MS = 15_000;

/** Ironic master's `[redfish]post_boot_retry_attempts` and `post_boot_retry_delay` defaults. */
export const DEFAULT_POST_BOOT_RETRY_ATTEMPTS = 6;
export const DEFAULT_POST_BOOT_RETRY_DELAY_SECONDS = 5;

/** Ironic master's defaults. */
export const DEFAULT_FIRMWARE_UPDATE_CONFIG: FirmwareUpdateConfig = {
  rebootDelay: 300,
  bmcVersionCheckInterval: 30,
  nicStartingWait: 30,
  overallTimeout: 7200,
  requiredSuccesses: 3,
  validationInterval: 30,
  resourceValidationTimeout: 480,
};

/** The `[redfish]firmware_update_*` options from the environment, Ironic's defaults for the rest. */
export function loadFirmwareUpdateConfig(env: Env = {}): FirmwareUpdateConfig {
  const d = DEFAULT_FIRMWARE_UPDATE_CONFIG;
  return {
    rebootDelay: integer(env, ENV.firmwareUpdateRebootDelay, d.rebootDelay),
    bmcVersionCheckInterval: integer(env, ENV.firmwareUpdateBmcVersionCheckInterval, d.bmcVersionCheckInterval),
    nicStartingWait: integer(env, ENV.firmwareUpdateNicStartingWait, d.nicStartingWait),
    overallTimeout: integer(env, ENV.firmwareUpdateOverallTimeout, d.overallTimeout),
    requiredSuccesses: integer(env, ENV.firmwareUpdateRequiredSuccesses, d.requiredSuccesses),
    validationInterval: integer(env, ENV.firmwareUpdateValidationInterval, d.validationInterval),
    resourceValidationTimeout: integer(env, ENV.firmwareUpdateResourceValidationTimeout, d.resourceValidationTimeout),
  };
}

export interface RedfishInspectionConfig {
  readonly hooks: readonly string[];
  readonly inspector: InspectorConfig;
}

/** Ironic's defaults for out-of-band inspection's hooks. */
export function redfishInspectionConfig(env: Env = {}): RedfishInspectionConfig {
  return {
    hooks: parseRedfishHookList(env[ENV.redfishInspectionHooks] || DEFAULT_REDFISH_INSPECTION_HOOKS),
    inspector: loadInspectorConfig(env),
  };
}

export const DEFAULT_REDFISH_CONFIG: Omit<RedfishConfig, 'policy'> = {
  attempts: 3,
  retryIntervalMs: 2_000,
  connectTimeoutMs: 5_000,
  readTimeoutMs: 20_000,
  powerStateChangeTimeoutMs: 60_000,
  powerPollIntervalMs: 1_000,
};

/**
 * Read the overrides from the environment (seconds, whole numbers; the power poll interval in
 * milliseconds, which tests with fast virtual BMCs lower), defaults for the rest.
 */
export function loadRedfishConfig(env: Env = process.env): RedfishConfig {
  const d = DEFAULT_REDFISH_CONFIG;
  return {
    attempts: integer(env, ENV.redfishConnectionAttempts, d.attempts, 1),
    retryIntervalMs: integer(env, ENV.redfishConnectionRetryInterval, d.retryIntervalMs / 1000, 0) * 1000,
    connectTimeoutMs: integer(env, ENV.redfishConnectTimeout, d.connectTimeoutMs / 1000, 1) * 1000,
    readTimeoutMs: integer(env, ENV.redfishReadTimeout, d.readTimeoutMs / 1000, 1) * 1000,
    powerStateChangeTimeoutMs: integer(env, ENV.powerStateChangeTimeout, d.powerStateChangeTimeoutMs / 1000, 1) * 1000,
    powerPollIntervalMs: integer(env, ENV.redfishPowerPollInterval, d.powerPollIntervalMs, 1),
    policy: fetchPolicyFromEnv(env),
    bootIso: {
      bucket: env[ENV.bootIsoBucket] || undefined,
      bootloader: env[ENV.bootloader] || undefined,
      kernelAppendParams: env[ENV.redfishKernelAppendParams] ?? DEFAULT_KERNEL_APPEND_PARAMS,
      apiUrl: env[ENV.publicEndpoint]?.replace(/\/+$/, '') || undefined,
      apiCaFile: loadAgentApiCa(env),
      isolinux: loadIsolinux(env),
    },
    inspection: redfishInspectionConfig(env),
    firmwareUpdate: loadFirmwareUpdateConfig(env),
    bootModeConfigTimeoutSeconds: integer(env, ENV.redfishBootModeConfigTimeout, DEFAULT_BOOT_MODE_CONFIG_TIMEOUT_SECONDS),
    bootModeConfigIntervalMs: integer(env, ENV.redfishBootModeConfigInterval, DEFAULT_BOOT_MODE_CONFIG_INTERVAL_MS, 1),
    postBootRetryAttempts: integer(env, ENV.redfishPostBootRetryAttempts, DEFAULT_POST_BOOT_RETRY_ATTEMPTS, 1),
    postBootRetryDelaySeconds: integer(env, ENV.redfishPostBootRetryDelay, DEFAULT_POST_BOOT_RETRY_DELAY_SECONDS, 1),
  };
}

/**
 * Ironic's `[agent]api_ca_file`: the PEM the stacks bundle into the conductor's code
 * (`AGENT_API_CA_FILE` names it, relative to the code's root `LAMBDA_TASK_ROOT`), read once.
 * Named but not there (code published without it) fails the cold start: an agent booted without
 * it could not verify the API, and would fail its lookups instead.
 */
export function loadAgentApiCa(env: Env): string | undefined {
  const name = env[ENV.agentApiCaFile];
  if (name === undefined || name === '') return undefined;
  const path = isAbsolute(name) ? name : join(env.LAMBDA_TASK_ROOT ?? process.cwd(), name);
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `Environment variable ${ENV.agentApiCaFile} names ${path}, which cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}): publish the conductor with the CA in its code (settings.agentApiCaFile puts it at ${AGENT_API_CA_BUNDLE_PATH}), or unset the variable`,
    );
  }
}
