/**
 * Configuration, read once from the environment at cold start. A missing or malformed variable
 * fails the cold start with a message naming it, rather than failing a request later.
 *
 * The environment is the only difference between a local stack and AWS: endpoints are given to the
 * AWS SDK through its own `AWS_ENDPOINT_URL_<SERVICE>` variables, never through code here.
 */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * The names of the variables functions read, for the stacks that set them (`lib/`, `local/`).
 * Table variables are named in `#db/schema`.
 */
export const ENV = {
  pinReleaseVersion: 'PIN_RELEASE_VERSION',
  lockTtlSeconds: 'LOCK_TTL_SECONDS',
  conductorQueues: 'CONDUCTOR_QUEUES',
  conductorFunction: 'CONDUCTOR_FUNCTION',
  stepsStateMachineArn: 'STEPS_STATE_MACHINE_ARN',
  conductorGroup: 'CONDUCTOR_GROUP',
  automatedClean: 'AUTOMATED_CLEAN',
  enableHealthMonitoring: 'ENABLE_HEALTH_MONITORING',
  heartbeatTimeout: 'HEARTBEAT_TIMEOUT',
  callbackTimeout: 'DEPLOY_CALLBACK_TIMEOUT',
  authStrategy: 'AUTH_STRATEGY',
  htpasswdRefreshSeconds: 'HTPASSWD_REFRESH_SECONDS',
  imageS3Buckets: 'IMAGE_S3_BUCKETS',
  publicEndpoint: 'PUBLIC_ENDPOINT',
  maxLimit: 'MAX_LIMIT',
  redfishConnectionAttempts: 'REDFISH_CONNECTION_ATTEMPTS',
  redfishConnectionRetryInterval: 'REDFISH_CONNECTION_RETRY_INTERVAL',
  redfishConnectTimeout: 'REDFISH_CONNECT_TIMEOUT',
  redfishReadTimeout: 'REDFISH_READ_TIMEOUT',
  powerStateChangeTimeout: 'POWER_STATE_CHANGE_TIMEOUT',
  redfishPowerPollInterval: 'REDFISH_POWER_POLL_INTERVAL_MS',
  redfishBootModeConfigTimeout: 'REDFISH_BOOT_MODE_CONFIG_TIMEOUT',
  redfishBootModeConfigInterval: 'REDFISH_BOOT_MODE_CONFIG_INTERVAL_MS',
  redfishPostBootRetryAttempts: 'REDFISH_POST_BOOT_RETRY_ATTEMPTS',
  redfishPostBootRetryDelay: 'REDFISH_POST_BOOT_RETRY_DELAY',
  firmwareUpdateRebootDelay: 'FIRMWARE_UPDATE_REBOOT_DELAY',
  firmwareUpdateBmcVersionCheckInterval: 'FIRMWARE_UPDATE_BMC_VERSION_CHECK_INTERVAL',
  firmwareUpdateNicStartingWait: 'FIRMWARE_UPDATE_NIC_STARTING_WAIT',
  firmwareUpdateOverallTimeout: 'FIRMWARE_UPDATE_OVERALL_TIMEOUT',
  firmwareUpdateRequiredSuccesses: 'FIRMWARE_UPDATE_REQUIRED_SUCCESSES',
  firmwareUpdateValidationInterval: 'FIRMWARE_UPDATE_VALIDATION_INTERVAL',
  firmwareUpdateResourceValidationTimeout: 'FIRMWARE_UPDATE_RESOURCE_VALIDATION_TIMEOUT',
  conductorHeartbeatTimeout: 'CONDUCTOR_HEARTBEAT_TIMEOUT',
  forcePowerStateDuringSync: 'FORCE_POWER_STATE_DURING_SYNC',
  powerStateSyncMaxRetries: 'POWER_STATE_SYNC_MAX_RETRIES',
  syncPowerStateWorkers: 'SYNC_POWER_STATE_WORKERS',
  enabledHardwareTypes: 'ENABLED_HARDWARE_TYPES',
  fastTrack: 'FAST_TRACK',
  fastTrackTimeout: 'FAST_TRACK_TIMEOUT',
  postDeployPowerStateRetries: 'POST_DEPLOY_POWER_STATE_RETRIES',
  postDeployPowerStateRetryInterval: 'POST_DEPLOY_POWER_STATE_RETRY_INTERVAL',
  agentCommandTimeout: 'AGENT_COMMAND_TIMEOUT',
  agentCommandWaitInterval: 'AGENT_COMMAND_WAIT_INTERVAL',
  agentCommandWaitAttempts: 'AGENT_COMMAND_WAIT_ATTEMPTS',
  maxWaitStepSeconds: 'MAX_CONDUCTOR_WAIT_STEP_SECONDS',
  nodeHistoryMaxEntries: 'NODE_HISTORY_MAX_ENTRIES',
  nodeHistoryCleanupBatchCount: 'NODE_HISTORY_CLEANUP_BATCH_COUNT',
  nodeHistoryMinimumDays: 'NODE_HISTORY_MINIMUM_DAYS',
  inspectWaitTimeout: 'INSPECT_WAIT_TIMEOUT',
  inspectorHooks: 'INSPECTOR_HOOKS',
  redfishInspectionHooks: 'REDFISH_HOOKS',
  inspectorAddPorts: 'INSPECTOR_ADD_PORTS',
  inspectorKeepPorts: 'INSPECTOR_KEEP_PORTS',
  inspectorUpdatePxeEnabled: 'INSPECTOR_UPDATE_PXE_ENABLED',
  inspectorPreCreatePorts: 'INSPECTOR_PRE_CREATE_PORTS',
  inspectorPowerOff: 'INSPECTOR_POWER_OFF',
  inspectorRequireManagedBoot: 'INSPECTOR_REQUIRE_MANAGED_BOOT',
  stepTimeout: 'STEP_TIMEOUT_SECONDS',
  bmcAllowedHosts: 'BMC_ALLOWED_HOSTS',
  bmcDeniedHosts: 'BMC_DENIED_HOSTS',
  imageAllowedHosts: 'IMAGE_ALLOWED_HOSTS',
  imageDeniedHosts: 'IMAGE_DENIED_HOSTS',
  caAllowedPaths: 'CA_ALLOWED_PATHS',
  maxLookupAddresses: 'MAX_LOOKUP_ADDRESSES',
  bootIsoBucket: 'BOOT_ISO_BUCKET',
  logsBucket: 'LOGS_BUCKET',
  logsCollect: 'LOGS_COLLECT',
  bootloader: 'BOOTLOADER',
  redfishKernelAppendParams: 'REDFISH_KERNEL_APPEND_PARAMS',
  agentApiCaFile: 'AGENT_API_CA_FILE',
  isolinuxBin: 'ISOLINUX_BIN',
  isolinuxConfigTemplate: 'ISOLINUX_CONFIG_TEMPLATE',
  ldlinuxC32: 'LDLINUX_C32',
  tbnRules: 'TRAIT_BASED_NETWORKING_RULES',
  tbnRaiseWhenNoMatch: 'TRAIT_BASED_NETWORKING_RAISE_WHEN_NO_MATCH',
  tbnEnableDefaultTrait: 'TRAIT_BASED_NETWORKING_ENABLE_DEFAULT_TRAIT',
} as const;

/**
 * Where the stacks put Ironic's `[agent]api_ca_file` (settings.agentApiCaFile) in the conductor's
 * code, relative to its root (`LAMBDA_TASK_ROOT`); `AGENT_API_CA_FILE` names it when it is there.
 * NOTE: a file in the code, not a variable: a PEM would not fit in the 4 KB Lambda allows a
 * function's environment, and a Lambda has no operator's file system to read it from.
 */
export const AGENT_API_CA_BUNDLE_PATH = 'agent-api-ca.crt';

/**
 * Where the stacks put Ironic's `[DEFAULT]isolinux_bin`, `ldlinux_c32` and `isolinux_config_template`
 * (settings.isolinuxBin, ldlinuxC32, isolinuxConfigTemplate) in the conductor's code, relative to
 * its root; `ISOLINUX_BIN`, `LDLINUX_C32` and `ISOLINUX_CONFIG_TEMPLATE` name them when they are
 * there. Without isolinux.bin the conductor builds UEFI ISOs only.
 */
export const ISOLINUX_BUNDLE_PATHS = {
  isolinuxBin: 'isolinux/isolinux.bin',
  ldlinuxC32: 'isolinux/ldlinux.c32',
  configTemplate: 'isolinux/isolinux_config.template',
} as const;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function required(env: Env, name: string): string {
  const value = env[name];
  if (value === undefined || value === '') {
    throw new ConfigError(`Environment variable ${name} is required`);
  }
  return value;
}

/** An integer variable, `fallback` when unset; below `min` or not a whole number fails loudly. */
export function integer(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new ConfigError(`Environment variable ${name} must be an integer >= ${min}, got "${raw}"`);
  }
  return value;
}

/**
 * A comma-separated list, `fallback` when the variable is unset. Set but empty is an empty list
 * (so a stack can say "none" where the default says something).
 */
export function list(env: Env, name: string, fallback: readonly string[]): readonly string[] {
  const raw = env[name];
  if (raw === undefined) return fallback;
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['true', '1', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['false', '0', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`Environment variable ${name} must be true or false, got "${raw}"`);
}

/** Conductor group → SQS queue URL, from CONDUCTOR_QUEUES (JSON). The default group is "". */
function conductorQueues(env: Env): Record<string, string> {
  const raw = required(env, 'CONDUCTOR_QUEUES');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(`Environment variable CONDUCTOR_QUEUES must be a JSON object, got "${raw}"`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`Environment variable CONDUCTOR_QUEUES must be a JSON object, got "${raw}"`);
  }
  for (const [group, url] of Object.entries(parsed)) {
    if (typeof url !== 'string' || url === '') {
      throw new ConfigError(`CONDUCTOR_QUEUES: the queue URL of group "${group}" must be a string`);
    }
  }
  return parsed as Record<string, string>;
}

export interface CommonConfig {
  /** Empty = latest; otherwise a release from `#common/releases`. Validated by `releases.ts`. */
  readonly pinReleaseVersion: string;
  /** How long a node reservation stays valid without being renewed. */
  readonly lockTtlSeconds: number;
  /** Conductor group → queue URL for RPC casts. */
  readonly conductorQueues: Record<string, string>;
  /**
   * Ironic `[conductor]heartbeat_timeout`: a conductor whose last heartbeat is older is dead (no
   * node is routed to it, the API shows it `alive: false`).
   */
  readonly conductorHeartbeatTimeoutSeconds: number;
}

export interface ApiConfig extends CommonConfig {
  /** Conductor function (name or ARN, with the `live` qualifier) for synchronous RPC calls. */
  readonly conductorFunction: string;
  readonly authStrategy: 'noauth' | 'http_basic';
  /** Base URL for links in responses; default: derived from the request (Host, stage). */
  readonly publicEndpoint: string | undefined;
  /** Agent heartbeat timeout handed to the ramdisk at lookup (Ironic `[api]ramdisk_heartbeat_timeout`). */
  readonly heartbeatTimeoutSeconds: number;
  /** Ironic `[api]max_limit`: the largest page a list returns. */
  readonly maxLimit: number;
  /** The most distinct MAC addresses one `GET /v1/lookup` may name (each costs a read). */
  readonly maxLookupAddresses: number;
}

export interface ConductorConfig extends CommonConfig {
  readonly stepsStateMachineArn: string;
  /** The conductor group this function serves ("" = the default group). */
  readonly conductorGroup: string;
  /** Hostname this conductor version registers under: "<function>:<version>". */
  readonly hostname: string;
  /** The conductor function's name (its services' stable names start with it: `#conductor/identity`). */
  readonly functionName: string;
  /** Ironic `[conductor]automated_clean`. */
  readonly automatedClean: boolean;
  /** Ironic `[conductor]enable_health_monitoring`: the power sync also reads each node's health. */
  readonly enableHealthMonitoring: boolean;
  readonly heartbeatTimeoutSeconds: number;
  /** Ironic `[conductor]deploy_callback_timeout`: the longest an async step may wait. */
  readonly callbackTimeoutSeconds: number;
  /** Ironic `[conductor]max_conductor_wait_step_seconds`: the longest a reserved `wait` step pauses. */
  readonly maxWaitStepSeconds: number;
  /** Ironic `[conductor]inspect_wait_timeout`: the longest a node waits in `inspect wait` (0: no limit). */
  readonly inspectWaitTimeoutSeconds: number;
  /** Ironic `[DEFAULT]enabled_hardware_types`: what this conductor registers as serving; undefined = all. */
  readonly enabledHardwareTypes: readonly string[] | undefined;
  /** Ironic `[conductor]node_history_max_entries`, `…_cleanup_batch_count`, `…_minimum_days` (the periodic trim). */
  readonly nodeHistory: { readonly maxEntries: number; readonly batchCount: number; readonly minimumDays: number };
  /** The steps machine's timeout of one synchronous step: a step stops acting on hardware before it. */
  readonly stepTimeoutSeconds: number;
  /**
   * Ironic `[conductor]force_power_state_during_sync` (`force`: power the hardware back to the
   * recorded state rather than record what it reports), `power_state_sync_max_retries`
   * (`maxRetries`) and `sync_power_state_workers` (`workers`: nodes of a page synced at once).
   */
  readonly powerSync: { readonly force: boolean; readonly maxRetries: number; readonly workers: number };
}

function common(env: Env): CommonConfig {
  return {
    pinReleaseVersion: env.PIN_RELEASE_VERSION ?? '',
    lockTtlSeconds: integer(env, 'LOCK_TTL_SECONDS', 120, 5),
    conductorQueues: conductorQueues(env),
    conductorHeartbeatTimeoutSeconds: integer(env, 'CONDUCTOR_HEARTBEAT_TIMEOUT', 60, 1),
  };
}

export function loadApiConfig(env: Env = process.env): ApiConfig {
  const auth = env.AUTH_STRATEGY ?? 'noauth';
  if (auth !== 'noauth' && auth !== 'http_basic') {
    throw new ConfigError(`Environment variable AUTH_STRATEGY must be noauth or http_basic, got "${auth}"`);
  }
  return {
    ...common(env),
    conductorFunction: required(env, 'CONDUCTOR_FUNCTION'),
    authStrategy: auth,
    publicEndpoint: env.PUBLIC_ENDPOINT || undefined,
    heartbeatTimeoutSeconds: integer(env, 'HEARTBEAT_TIMEOUT', 300, 5),
    maxLimit: integer(env, 'MAX_LIMIT', 1000, 1),
    maxLookupAddresses: integer(env, ENV.maxLookupAddresses, 32, 1),
  };
}

export function loadConductorConfig(env: Env = process.env): ConductorConfig {
  const fn = env.AWS_LAMBDA_FUNCTION_NAME ?? 'conductor';
  const version = env.AWS_LAMBDA_FUNCTION_VERSION ?? '$LATEST';
  return {
    ...common(env),
    stepsStateMachineArn: required(env, 'STEPS_STATE_MACHINE_ARN'),
    conductorGroup: env.CONDUCTOR_GROUP ?? '',
    hostname: `${fn}:${version}`,
    functionName: fn,
    automatedClean: boolean(env, 'AUTOMATED_CLEAN', true),
    enableHealthMonitoring: boolean(env, ENV.enableHealthMonitoring, true),
    heartbeatTimeoutSeconds: integer(env, 'HEARTBEAT_TIMEOUT', 300, 5),
    callbackTimeoutSeconds: integer(env, 'DEPLOY_CALLBACK_TIMEOUT', 1800, 10),
    maxWaitStepSeconds: integer(env, ENV.maxWaitStepSeconds, 30, 0),
    inspectWaitTimeoutSeconds: integer(env, ENV.inspectWaitTimeout, 1800, 0),
    stepTimeoutSeconds: integer(env, ENV.stepTimeout, 100, 1),
    powerSync: {
      force: boolean(env, ENV.forcePowerStateDuringSync, true),
      maxRetries: integer(env, ENV.powerStateSyncMaxRetries, 3, 0),
      workers: integer(env, ENV.syncPowerStateWorkers, 8, 1),
    },
    nodeHistory: {
      maxEntries: integer(env, ENV.nodeHistoryMaxEntries, 300, 0),
      batchCount: integer(env, ENV.nodeHistoryCleanupBatchCount, 1000, 0),
      minimumDays: integer(env, ENV.nodeHistoryMinimumDays, 0, 0),
    },
    enabledHardwareTypes: env.ENABLED_HARDWARE_TYPES
      ? env.ENABLED_HARDWARE_TYPES.split(',')
          .map((t) => t.trim())
          .filter((t) => t !== '')
      : undefined,
  };
}

/** What the `direct` deploy interface needs to know about the deployment (Ironic's `[deploy]`, `[agent]`). */
export interface AgentConfig {
  /** Ironic `[deploy]fast_track`; a node's `driver_info.fast_track` overrides it. */
  readonly fastTrack: boolean;
  /** Ironic `[deploy]fast_track_timeout`: how recent a heartbeat must be for the agent to count as up. */
  readonly fastTrackTimeoutSeconds: number;
  /** Ironic `[agent]post_deploy_get_power_state_retries`: polls for the agent's soft power off. */
  readonly postDeployPowerStateRetries: number;
  /** Ironic `[agent]post_deploy_get_power_state_retry_interval`. */
  readonly postDeployPowerStateRetryIntervalSeconds: number;
  /** Ironic `[agent]command_timeout`; undefined = the agent client's default. */
  readonly commandTimeoutSeconds: number | undefined;
  /** Ironic `[agent]command_wait_interval`: between polls of a long agent command (install_bootloader). */
  readonly commandWaitIntervalSeconds: number;
  /** Ironic `[agent]command_wait_attempts`: polls before the command counts as timed out. */
  readonly commandWaitAttempts: number;
  /** S3 buckets `s3://` image sources may name (IMAGE_S3_BUCKETS, comma-separated); none when unset. */
  readonly imageS3Buckets: readonly string[];
}

export function loadAgentConfig(env: Env = process.env): AgentConfig {
  const fastTrackTimeoutSeconds = integer(env, ENV.fastTrackTimeout, 300, 0);
  if (fastTrackTimeoutSeconds > 300) {
    throw new ConfigError(`Environment variable ${ENV.fastTrackTimeout} must be at most 300, got "${fastTrackTimeoutSeconds}"`);
  }
  const commandTimeout = integer(env, ENV.agentCommandTimeout, 0, 0);
  return {
    fastTrack: boolean(env, ENV.fastTrack, false),
    fastTrackTimeoutSeconds,
    postDeployPowerStateRetries: integer(env, ENV.postDeployPowerStateRetries, 6, 0),
    postDeployPowerStateRetryIntervalSeconds: integer(env, ENV.postDeployPowerStateRetryInterval, 5, 0),
    commandTimeoutSeconds: commandTimeout > 0 ? commandTimeout : undefined,
    commandWaitIntervalSeconds: integer(env, ENV.agentCommandWaitInterval, 2, 0),
    commandWaitAttempts: integer(env, ENV.agentCommandWaitAttempts, 30, 1),
    imageS3Buckets: (env[ENV.imageS3Buckets] ?? '')
      .split(',')
      .map((b) => b.trim())
      .filter((b) => b !== ''),
  };
}

/** Ironic's `[inspector]add_ports` values: which NICs of an inventory become ports. */
export const ADD_PORTS_VALUES = ['all', 'active', 'pxe', 'disabled'] as const;
/** Ironic's `[inspector]keep_ports` values: which existing ports survive an inspection. */
export const KEEP_PORTS_VALUES = ['all', 'present', 'added'] as const;

/** Ironic's `[inspector]default_hooks`. */
export const INSPECTOR_DEFAULT_HOOKS = 'ramdisk-error,validate-interfaces,ports,architecture';
/**
 * Ironic's `[inspector]hooks` default: its default hooks only. The hooks that set memory_mb, cpus,
 * local_gb and the boot_mode capability run when an operator lists them, as in Ironic.
 */
export const DEFAULT_INSPECTION_HOOKS = '$default_hooks';

/** What the `agent` inspect interface needs (Ironic's `[inspector]` options). */
export interface InspectorConfig {
  /** Hook names in the order they run, `$default_hooks` expanded. */
  readonly hooks: readonly string[];
  readonly addPorts: (typeof ADD_PORTS_VALUES)[number];
  readonly keepPorts: (typeof KEEP_PORTS_VALUES)[number];
  /** Ironic `[inspector]update_pxe_enabled`. */
  readonly updatePxeEnabled: boolean;
  /** Ironic `[inspector]pre_create_ports`: ports from the BMC's NICs before the ramdisk boots. */
  readonly preCreatePorts: boolean;
  /** Ironic `[inspector]power_off`: power off after inspection (not with fast track). */
  readonly powerOff: boolean;
  /**
   * Ironic `[inspector]require_managed_boot` (default true): in-band inspection must boot the
   * ramdisk through the node's boot interface; false lets a node whose boot or network interface
   * cannot (UnsupportedDriverExtension) boot the operator's own PXE ramdisk instead (unmanaged).
   */
  readonly requireManagedBoot: boolean;
}

/** A hook list as a list: the `$name` (or `${name}`) of its defaults expanded, blanks dropped. */
function expandHookList(value: string, variable: string, defaults: string): string[] {
  return value
    .replace(new RegExp(`\\$${variable}\\b|\\$\\{${variable}\\}`, 'g'), defaults)
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
}

/** `[inspector]hooks` as a list: `$default_hooks` expanded, blanks dropped. */
export function parseHookList(value: string): string[] {
  return expandHookList(value, 'default_hooks', INSPECTOR_DEFAULT_HOOKS);
}

/** Ironic's `[redfish]default_inspection_hooks`: what out-of-band redfish inspection runs by default. */
export const REDFISH_DEFAULT_INSPECTION_HOOKS = 'validate-interfaces,ports,architecture';
/** Ironic's `[redfish]inspection_hooks` default. */
export const DEFAULT_REDFISH_INSPECTION_HOOKS = '$default_inspection_hooks';

/** `[redfish]inspection_hooks` as a list: `$default_inspection_hooks` expanded, blanks dropped. */
export function parseRedfishHookList(value: string): string[] {
  return expandHookList(value, 'default_inspection_hooks', REDFISH_DEFAULT_INSPECTION_HOOKS);
}

function choice<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!values.includes(raw as T)) throw new ConfigError(`Environment variable ${name} must be one of ${values.join(', ')}, got "${raw}"`);
  return raw as T;
}

export function loadInspectorConfig(env: Env = process.env): InspectorConfig {
  return {
    hooks: parseHookList(env[ENV.inspectorHooks] || DEFAULT_INSPECTION_HOOKS),
    addPorts: choice(env, ENV.inspectorAddPorts, ADD_PORTS_VALUES, 'pxe'),
    keepPorts: choice(env, ENV.inspectorKeepPorts, KEEP_PORTS_VALUES, 'all'),
    updatePxeEnabled: boolean(env, ENV.inspectorUpdatePxeEnabled, true),
    preCreatePorts: boolean(env, ENV.inspectorPreCreatePorts, true),
    powerOff: boolean(env, ENV.inspectorPowerOff, true),
    requireManagedBoot: boolean(env, ENV.inspectorRequireManagedBoot, true),
  };
}

/** Ironic's `[agent]deploy_logs_collect` values: when the ramdisk's logs are kept. */
export const LOGS_COLLECT_VALUES = ['always', 'on_failure', 'never'] as const;
export type LogsCollect = (typeof LOGS_COLLECT_VALUES)[number];

/** Where and when the ramdisk's logs are kept (Ironic's `[agent]deploy_logs_*`; the bucket stands for its swift container). */
export interface RamdiskLogsConfig {
  /** Ironic `[agent]deploy_logs_collect` (default `on_failure`). */
  readonly collect: LogsCollect;
  /** The bucket the logs go in; undefined: none configured, logs are not kept (a warning says so). */
  readonly bucket: string | undefined;
}

export function loadRamdiskLogsConfig(env: Env = process.env): RamdiskLogsConfig {
  return { collect: choice(env, ENV.logsCollect, LOGS_COLLECT_VALUES, 'on_failure'), bucket: env[ENV.logsBucket] || undefined };
}
