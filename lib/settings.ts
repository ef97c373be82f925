/**
 * Settings the CDK stack and the local stack share: function timeouts, the node lock's lifetime,
 * the agent heartbeat timeout and the step machine's limits. Both stacks derive their resources
 * from these, so a timeout means the same on a laptop and in AWS.
 */
import {
  DEFAULT_INSPECTION_HOOKS,
  DEFAULT_REDFISH_INSPECTION_HOOKS,
  ENV,
  parseHookList,
  parseRedfishHookList,
} from '../functions/common/config';
import { validateInspectionHooks } from '../functions/drivers/inspector/hooks';
import { PERIODIC_TASKS } from '../functions/conductor/schedules';
import { LINK_LOCAL, LOOPBACK_AND_LINK_LOCAL, checkHostEntry } from '../functions/drivers/hosts';
import { queueSettings } from '../functions/rpc/queues';
import { withoutDefaults } from './function-environment';
import { readAgentApiCaFile } from './agent-api-ca';
import { readIsolinux, resolveIsolinux } from './isolinux';
import { INSPECTOR_SETTINGS_DEFAULTS, type InspectorSettings, inspectorVariables, validateInspectorSettings } from './inspector-settings';
import {
  FIRMWARE_UPDATE_SETTINGS_DEFAULTS,
  type FirmwareUpdateSettings,
  firmwareUpdateVariables,
  validateFirmwareUpdateSettings,
} from './firmware-update-settings';
import { validatePeriodicIntervals } from './periodic-schedule';
import { POWER_SYNC_SETTINGS_DEFAULTS, type PowerSyncSettings, powerSyncVariables, validatePowerSyncSettings } from './power-sync-settings';
import type { RamdiskLogsSettings } from './ramdisk-logs-settings';
import { type TraitBasedNetworkingSettings, traitBasedNetworkingEnvironment, validateTraitBasedNetworking } from './trait-based-networking';

/** The hardware types Ironless has (functions/drivers/registry.ts); kept here so settings need no driver code. */
const KNOWN_HARDWARE_TYPES = ['fake-hardware', 'redfish'];

export interface IronlessSettings extends RamdiskLogsSettings, InspectorSettings, FirmwareUpdateSettings, PowerSyncSettings {
  /**
   * Ironic's trait based networking on the `flat` network interface: VIF attach follows these
   * rules (by the node's `instance_info.traits`) and may build dynamic portgroups.
   * @default undefined (off, as Ironic's `enable_trait_based_networking` false)
   */
  readonly traitBasedNetworking?: TraitBasedNetworkingSettings;
  /**
   * Conductor function timeout. Every RPC message and step stops acting on hardware a few seconds
   * before its invocation ends; queue visibility is this plus a fifth of it (at most 30 s).
   */
  readonly conductorTimeoutSeconds: number;
  readonly apiTimeoutSeconds: number;
  /**
   * The longest one synchronous step may take (under the conductor timeout): Step Functions gives
   * up on it then, and the step itself stops acting on hardware a few seconds before.
   */
  readonly stepTimeoutSeconds: number;
  /**
   * Node lock lifetime without renewal; longer than any single conductor invocation and than the
   * queue's visibility timeout, so a message redelivered after running out of time finds its lock.
   */
  readonly lockTtlSeconds: number;
  /** Agent heartbeat timeout (Ironic `[api]ramdisk_heartbeat_timeout`); async steps fail after it. */
  readonly heartbeatTimeoutSeconds: number;
  /** Ironic `[conductor]deploy_callback_timeout`: the longest an async step waits in total. */
  readonly callbackTimeoutSeconds: number;
  /**
   * Ironic `[conductor]max_conductor_wait_step_seconds`: the longest a reserved `wait` step with
   * `seconds` pauses. The conductor sleeps inside the RunStep invocation, so it stays under the step timeout.
   */
  readonly maxWaitStepSeconds: number;
  /** Conductor groups, each with its own queue; "" is the default group. */
  readonly conductorGroups: readonly string[];
  /**
   * The most conductor invocations a group's queue runs at once, by group (the SQS event source
   * mapping's MaximumConcurrency, 2–1000, so one busy group cannot take every execution
   * environment from the others). A group not named has no cap of its own (Lambda's default:
   * the function's and account's concurrency). Locally: the queue's pollers (default 2).
   */
  readonly conductorGroupConcurrency: Readonly<Record<string, number>>;
  /** Ironic `[conductor]automated_clean`. */
  readonly automatedClean: boolean;
  /**
   * Ironic `[conductor]enable_health_monitoring` (default true): each power sync also reads a
   * node's hardware health from its BMC (API 1.109 `health`), one more BMC request per node.
   */
  readonly enableHealthMonitoring: boolean;
  /** Pin to a release during a rolling upgrade ("" = latest). */
  readonly pinReleaseVersion: string;
  /**
   * Ironic's `auth_strategy`: `http_basic` (htpasswd entries with bcrypt digests; the default, so a
   * deployed API never starts open), or `noauth`. The CDK stack refuses `noauth` on a public
   * endpoint unless told so (`lib/api-exposure.ts`); the local stack, on loopback, defaults to `noauth`.
   */
  readonly authStrategy: 'noauth' | 'http_basic';
  /**
   * How long API Gateway caches an authorizer decision per `Authorization` header (0: no cache,
   * every request invokes the authorizer; API Gateway's own default is 300, its maximum 3600).
   * A revoked password is refused at the latest `authorizerCacheSeconds + htpasswdRefreshSeconds`
   * after its entry left the secret.
   */
  readonly authorizerCacheSeconds: number;
  /** How long the authorizer reuses the htpasswd entries it read from the secret before reading them again. */
  readonly htpasswdRefreshSeconds: number;
  /**
   * S3 buckets `s3://` image sources may name (`instance_info.image_source`); the conductor may
   * read exactly these (it presigns URLs for the agent) and refuses any other bucket. @default none
   */
  readonly imageBuckets: readonly string[];
  /**
   * Ironic `[conductor]heartbeat_timeout`: a conductor version whose heartbeat is older counts as
   * dead. Ironic's default is 60 s with a heartbeat every 10 s; EventBridge schedules run at most
   * once a minute, so the default here leaves room for one missed heartbeat.
   */
  readonly conductorHeartbeatTimeoutSeconds: number;
  /** Ironic `[DEFAULT]enabled_hardware_types`: the hardware types conductors serve. @default every one Ironless has */
  readonly enabledHardwareTypes?: readonly string[];
  /**
   * Ironic `[deploy]fast_track`: an agent that heartbeated within `fastTrackTimeoutSeconds` (e.g.
   * left running after cleaning) deploys without a reboot. A node's `driver_info.fast_track` wins.
   */
  readonly fastTrack: boolean;
  /** Ironic `[deploy]fast_track_timeout` (at most 300). */
  readonly fastTrackTimeoutSeconds: number;
  /** Ironic `[agent]post_deploy_get_power_state_retries`: polls for the agent's soft power off. */
  readonly postDeployPowerStateRetries: number;
  /** Ironic `[agent]post_deploy_get_power_state_retry_interval`. */
  readonly postDeployPowerStateRetryIntervalSeconds: number;
  /**
   * Ironic `[agent]command_wait_interval` and `command_wait_attempts`: how a long agent command
   * (`image.install_bootloader`) is polled within prepare_instance_boot. Ironic's 6 s × 100 would
   * outlast a step invocation; the product must stay under `stepTimeoutSeconds`.
   */
  readonly agentCommandWaitIntervalSeconds: number;
  readonly agentCommandWaitAttempts: number;
  /**
   * Ironic `[conductor]node_history_max_entries`: the daily `manage_node_history` task trims each
   * node's history to its newest records (0: never trimmed).
   */
  readonly nodeHistoryMaxEntries: number;
  /** Ironic `[conductor]node_history_cleanup_batch_count`: about how many records one run deletes (0: never trimmed). */
  readonly nodeHistoryCleanupBatchCount: number;
  /** Ironic `[conductor]node_history_minimum_days`: records younger than this are kept and not counted. */
  readonly nodeHistoryMinimumDays: number;
  /**
   * Ironic `[conductor]sync_power_state_interval` (master's default, 120 s; 21.4's was 60): how
   * often the `sync_power_states` task reads every node's power state; 0 turns it off. A whole
   * number of minutes (EventBridge schedules by the minute). The idle fleet's bill is mostly this task.
   */
  readonly syncPowerStateIntervalSeconds: number;
  /**
   * Ironic `[conductor]check_provision_state_interval`: how often `fail_timed_out_waits` fails
   * nodes that waited too long for their ramdisk (deploy callback and inspect wait timeouts); 0
   * turns it off. A whole number of minutes.
   */
  readonly checkProvisionStateIntervalSeconds: number;
  /** Ironic `[conductor]node_history_cleanup_interval`: how often history is trimmed; 0 turns it off. A whole number of minutes. */
  readonly nodeHistoryCleanupIntervalSeconds: number;
  /**
   * Ironic `[conductor]inspect_wait_timeout`: how long a node waits in `inspect wait` for its
   * ramdisk's data before inspection fails (0: no limit). Checked by the `fail_timed_out_waits` task.
   */
  readonly inspectWaitTimeoutSeconds: number;
  /**
   * Ironic `[inspector]hooks`: the inspection hooks in-band inspection runs, in order;
   * `$default_hooks` is Ironic's ramdisk-error, validate-interfaces, ports, architecture; add
   * memory, cpus, root-device (local_gb) and boot-mode to have those properties set.
   * @default '$default_hooks'
   */
  readonly inspectorHooks: string;
  /**
   * Ironic `[redfish]inspection_hooks`: the inspection hooks out-of-band redfish inspection runs
   * over the inventory the BMC reports, in order; `$default_inspection_hooks` is Ironic's
   * validate-interfaces, ports, architecture. They read the `inspector*` port options below.
   * @default '$default_inspection_hooks'
   */
  readonly redfishInspectionHooks: string;
  // The other [inspector] options: inspector-settings.ts.
  /**
   * Hosts the conductor may reach as BMCs (`driver_info/redfish_address`) and ramdisk agents
   * (their callback URLs): host names (`.example.com` for every name under it), IP addresses or
   * CIDR ranges. Empty: any host that is not denied.
   */
  readonly bmcAllowedHosts: readonly string[];
  /**
   * Hosts refused as BMCs and agents, also when a name resolves to them. @default loopback,
   * "this host" and link-local ranges (the Lambda runtime API, metadata services); a list given
   * replaces it. The local stack allows loopback, where its virtual BMCs live.
   */
  readonly bmcDeniedHosts: readonly string[];
  /** Hosts image URLs (`image_source`, `deploy_iso`, a config drive URL) may name; empty: any not denied. */
  readonly imageAllowedHosts: readonly string[];
  /** Hosts image URLs may not name. @default loopback, "this host" and link-local ranges */
  readonly imageDeniedHosts: readonly string[];
  /**
   * Folders a `redfish_verify_ca` or `agent_verify_ca` path may lie under (Ironic's
   * `file_url_allowed_paths` for CA files; e.g. a Lambda layer's `/opt/...`). @default none:
   * only true/false (or the certificate an agent sends itself)
   */
  readonly caAllowedPaths: readonly string[];
  /** The most distinct MAC addresses one agent lookup (`GET /v1/lookup`) may name; each costs a read. */
  readonly maxLookupAddresses: number;
  /**
   * Ironic's `[agent]api_ca_file`: a PEM file on the deployer's machine with the CA certificate(s)
   * of the API's TLS certificate. Read when the stack is synthesized (or the local stack starts),
   * it goes into the conductor's code, and onto every agent ISO the conductor builds, where IPA
   * verifies the API with it (`lib/agent-api-ca.ts`). @default none: agents use their system CAs
   */
  readonly agentApiCaFile?: string;
  /**
   * Ironic's `[DEFAULT]isolinux_bin` and `[DEFAULT]ldlinux_c32`: isolinux on the deployer's
   * machine, read at synth (or when the local stack starts) into the conductor's code, with which
   * it builds BIOS-bootable agent ISOs (`lib/isolinux.ts`). @default Debian's files (packages
   * isolinux, syslinux-common) when they are there; without isolinux.bin, BIOS-mode ISO builds are refused
   */
  readonly isolinuxBin?: string;
  readonly ldlinuxC32?: string;
  /** Ironic's `[DEFAULT]isolinux_config_template`, read and checked likewise. @default Ironic's template */
  readonly isolinuxConfigTemplate?: string;
}

/**
 * Memory of each function, MB (Lambda gives CPU in proportion). The stack sets it; the benchmark's
 * dollar figures (test/bench/cost.ts) price GB-seconds with it.
 */
export const FUNCTION_MEMORY_MB = { api: 1024, conductor: 512, dbsync: 1024 } as const;

export const DEFAULT_SETTINGS: IronlessSettings = {
  conductorTimeoutSeconds: 120,
  apiTimeoutSeconds: 29,
  stepTimeoutSeconds: 100,
  lockTtlSeconds: 300,
  heartbeatTimeoutSeconds: 300,
  callbackTimeoutSeconds: 1800,
  maxWaitStepSeconds: 30,
  conductorGroups: [''],
  conductorGroupConcurrency: {},
  automatedClean: true,
  enableHealthMonitoring: true,
  pinReleaseVersion: '',
  authStrategy: 'http_basic',
  // A legitimate client re-authenticates once a minute (a bcrypt check, ~0.1-0.5 s of authorizer
  // time); a revoked password is refused within 60 + 30 s.
  authorizerCacheSeconds: 60,
  htpasswdRefreshSeconds: 30,
  imageBuckets: [],
  conductorHeartbeatTimeoutSeconds: 150,
  fastTrack: false,
  fastTrackTimeoutSeconds: 300,
  postDeployPowerStateRetries: 6,
  postDeployPowerStateRetryIntervalSeconds: 5,
  agentCommandWaitIntervalSeconds: 2,
  agentCommandWaitAttempts: 30,
  nodeHistoryMaxEntries: 300,
  nodeHistoryCleanupBatchCount: 1000,
  nodeHistoryMinimumDays: 0,
  syncPowerStateIntervalSeconds: 120,
  checkProvisionStateIntervalSeconds: 60,
  nodeHistoryCleanupIntervalSeconds: 86_400,
  inspectWaitTimeoutSeconds: 1800,
  inspectorHooks: DEFAULT_INSPECTION_HOOKS,
  redfishInspectionHooks: DEFAULT_REDFISH_INSPECTION_HOOKS,
  ...INSPECTOR_SETTINGS_DEFAULTS,
  ...FIRMWARE_UPDATE_SETTINGS_DEFAULTS,
  ...POWER_SYNC_SETTINGS_DEFAULTS,
  bmcAllowedHosts: [],
  bmcDeniedHosts: LOOPBACK_AND_LINK_LOCAL,
  imageAllowedHosts: [],
  imageDeniedHosts: LOOPBACK_AND_LINK_LOCAL,
  caAllowedPaths: [],
  maxLookupAddresses: 32,
};

/** What the local stack changes in the defaults: its virtual BMCs, agents and image servers live on loopback. */
export const LOCAL_STACK_DEFAULTS: Partial<IronlessSettings> = { bmcDeniedHosts: LINK_LOCAL, imageDeniedHosts: LINK_LOCAL };

/** Check settings that must fit together; the message names the bad value. */
export function validateSettings(s: IronlessSettings): void {
  if (s.stepTimeoutSeconds >= s.conductorTimeoutSeconds) {
    throw new Error(
      `stepTimeoutSeconds (${s.stepTimeoutSeconds}) must be less than conductorTimeoutSeconds (${s.conductorTimeoutSeconds})`,
    );
  }
  if (s.maxWaitStepSeconds < 0 || s.maxWaitStepSeconds >= s.stepTimeoutSeconds) {
    throw new Error(
      `maxWaitStepSeconds (${s.maxWaitStepSeconds}) must be at least 0 and less than stepTimeoutSeconds (${s.stepTimeoutSeconds}): a wait step sleeps within one step`,
    );
  }
  const bootloaderWait = s.agentCommandWaitIntervalSeconds * s.agentCommandWaitAttempts;
  if (s.agentCommandWaitAttempts < 1 || bootloaderWait >= s.stepTimeoutSeconds) {
    throw new Error(
      `agentCommandWaitIntervalSeconds × agentCommandWaitAttempts (${bootloaderWait} s) must be less than stepTimeoutSeconds (${s.stepTimeoutSeconds}), with at least 1 attempt: prepare_instance_boot polls the agent within one step`,
    );
  }
  if (s.lockTtlSeconds <= s.conductorTimeoutSeconds) {
    throw new Error(
      `lockTtlSeconds (${s.lockTtlSeconds}) must be greater than conductorTimeoutSeconds (${s.conductorTimeoutSeconds}): a lock must outlive the invocation holding it`,
    );
  }
  const visibility = queueSettings(s.conductorTimeoutSeconds).visibilityTimeoutSeconds;
  if (s.lockTtlSeconds <= visibility) {
    throw new Error(
      `lockTtlSeconds (${s.lockTtlSeconds}) must be greater than the queue's visibility timeout (${visibility} s: conductorTimeoutSeconds and a fifth of it, at most 30 s more): a message delivered again after running out of time must find its lock`,
    );
  }
  for (const [name, entries] of [
    ['bmcAllowedHosts', s.bmcAllowedHosts],
    ['bmcDeniedHosts', s.bmcDeniedHosts],
    ['imageAllowedHosts', s.imageAllowedHosts],
    ['imageDeniedHosts', s.imageDeniedHosts],
  ] as const) {
    for (const entry of entries) {
      const problem = checkHostEntry(entry);
      if (problem !== undefined) throw new Error(`${name}: ${problem}`);
    }
  }
  for (const path of s.caAllowedPaths) {
    if (!path.startsWith('/') || path.split('/').includes('..'))
      throw new Error(`caAllowedPaths: "${path}" must be an absolute path without ".."`);
  }
  if (s.agentApiCaFile !== undefined) readAgentApiCaFile(s.agentApiCaFile);
  const isolinux = resolveIsolinux(s);
  if (isolinux !== undefined) readIsolinux(isolinux);
  if (!Number.isInteger(s.maxLookupAddresses) || s.maxLookupAddresses < 1) {
    throw new Error(`maxLookupAddresses (${s.maxLookupAddresses}) must be a whole number of at least 1`);
  }
  if (s.heartbeatTimeoutSeconds >= s.callbackTimeoutSeconds) {
    throw new Error(
      `heartbeatTimeoutSeconds (${s.heartbeatTimeoutSeconds}) must be less than callbackTimeoutSeconds (${s.callbackTimeoutSeconds})`,
    );
  }
  if (s.fastTrackTimeoutSeconds < 0 || s.fastTrackTimeoutSeconds > 300) {
    throw new Error(`fastTrackTimeoutSeconds (${s.fastTrackTimeoutSeconds}) must be between 0 and 300`);
  }
  const softPowerOff = s.postDeployPowerStateRetries * s.postDeployPowerStateRetryIntervalSeconds;
  if (softPowerOff >= s.stepTimeoutSeconds) {
    throw new Error(
      `postDeployPowerStateRetries × postDeployPowerStateRetryIntervalSeconds (${softPowerOff} s) must be less than stepTimeoutSeconds (${s.stepTimeoutSeconds}): tear_down_agent waits that long in one step`,
    );
  }
  if (s.authStrategy !== 'noauth' && s.authStrategy !== 'http_basic') {
    throw new Error(`authStrategy "${String(s.authStrategy)}" must be noauth or http_basic`);
  }
  if (!Number.isInteger(s.authorizerCacheSeconds) || s.authorizerCacheSeconds < 0 || s.authorizerCacheSeconds > 3600) {
    throw new Error(`authorizerCacheSeconds (${s.authorizerCacheSeconds}) must be a whole number from 0 to 3600 (API Gateway's limits)`);
  }
  if (!Number.isInteger(s.htpasswdRefreshSeconds) || s.htpasswdRefreshSeconds < 0) {
    throw new Error(`htpasswdRefreshSeconds (${s.htpasswdRefreshSeconds}) must be a whole number of seconds, 0 or more`);
  }
  for (const bucket of s.imageBuckets) {
    // S3's bucket naming rules (general purpose buckets): what an ARN and an s3:// URL can name.
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket) || bucket.includes('..')) {
      throw new Error(`imageBuckets: "${bucket}" is not an S3 bucket name (3-63 lower-case letters, digits, "." and "-")`);
    }
  }
  validatePeriodicIntervals(s);
  const heartbeat = PERIODIC_TASKS.conductor_heartbeat.everySeconds;
  if (s.conductorHeartbeatTimeoutSeconds <= 2 * heartbeat) {
    throw new Error(
      `conductorHeartbeatTimeoutSeconds (${s.conductorHeartbeatTimeoutSeconds}) must be more than twice the conductor heartbeat interval (${heartbeat} s)`,
    );
  }
  for (const type of s.enabledHardwareTypes ?? []) {
    if (!KNOWN_HARDWARE_TYPES.includes(type))
      throw new Error(`enabledHardwareTypes: unknown hardware type "${type}" (known: ${KNOWN_HARDWARE_TYPES.join(', ')})`);
  }
  if (!Number.isInteger(s.inspectWaitTimeoutSeconds) || s.inspectWaitTimeoutSeconds < 0) {
    throw new Error(`inspectWaitTimeoutSeconds (${s.inspectWaitTimeoutSeconds}) must be a whole number of seconds, 0 for no limit`);
  }
  // The hooks are checked as the conductor checks them: unknown ones, and dependencies out of order.
  const hookLists = [
    ['inspectorHooks', s.inspectorHooks, parseHookList],
    ['redfishInspectionHooks', s.redfishInspectionHooks, parseRedfishHookList],
  ] as const;
  for (const [name, value, parse] of hookLists) {
    try {
      validateInspectionHooks(parse(value));
    } catch (err) {
      throw new Error(`${name} "${value}": ${(err as Error).message}`);
    }
  }
  validateInspectorSettings(s);
  validateFirmwareUpdateSettings(s);
  validatePowerSyncSettings(s);
  if (s.traitBasedNetworking !== undefined) validateTraitBasedNetworking(s.traitBasedNetworking);
  if (s.conductorGroups.length === 0) throw new Error('conductorGroups must name at least one group ("" is the default group)');
  for (const group of s.conductorGroups) {
    if (!/^[a-z0-9._-]*$/.test(group))
      throw new Error(`conductor group "${group}" may only use lower-case letters, digits, ".", "_" and "-"`);
  }
  for (const [group, max] of Object.entries(s.conductorGroupConcurrency)) {
    if (!s.conductorGroups.includes(group))
      throw new Error(
        `conductorGroupConcurrency names group "${group}", which is not in conductorGroups (${s.conductorGroups.map((g) => `"${g}"`).join(', ')})`,
      );
    if (!Number.isInteger(max) || max < 2 || max > 1000)
      throw new Error(
        `conductorGroupConcurrency of group "${group}" (${max}) must be a whole number from 2 to 1000 (SQS event source MaximumConcurrency)`,
      );
  }
}

/**
 * The environment the functions get from the settings (tables, queues, ARNs are added by each
 * stack), without the variables the functions default to the same value (`function-environment.ts`).
 */
export function settingsEnvironment(s: IronlessSettings): Record<string, string> {
  return withoutDefaults(settingsVariables(s));
}

/** Every setting the functions read, as the variable that carries it (defaults included). */
export function settingsVariables(s: IronlessSettings): Record<string, string> {
  return {
    [ENV.pinReleaseVersion]: s.pinReleaseVersion,
    [ENV.lockTtlSeconds]: String(s.lockTtlSeconds),
    [ENV.heartbeatTimeout]: String(s.heartbeatTimeoutSeconds),
    [ENV.callbackTimeout]: String(s.callbackTimeoutSeconds),
    [ENV.maxWaitStepSeconds]: String(s.maxWaitStepSeconds),
    [ENV.automatedClean]: String(s.automatedClean),
    [ENV.enableHealthMonitoring]: String(s.enableHealthMonitoring),
    [ENV.authStrategy]: s.authStrategy,
    [ENV.imageS3Buckets]: s.imageBuckets.join(','),
    [ENV.conductorHeartbeatTimeout]: String(s.conductorHeartbeatTimeoutSeconds),
    ...(s.enabledHardwareTypes ? { [ENV.enabledHardwareTypes]: s.enabledHardwareTypes.join(',') } : {}),
    [ENV.fastTrack]: String(s.fastTrack),
    [ENV.fastTrackTimeout]: String(s.fastTrackTimeoutSeconds),
    [ENV.postDeployPowerStateRetries]: String(s.postDeployPowerStateRetries),
    [ENV.postDeployPowerStateRetryInterval]: String(s.postDeployPowerStateRetryIntervalSeconds),
    [ENV.agentCommandWaitInterval]: String(s.agentCommandWaitIntervalSeconds),
    [ENV.agentCommandWaitAttempts]: String(s.agentCommandWaitAttempts),
    [ENV.nodeHistoryMaxEntries]: String(s.nodeHistoryMaxEntries),
    [ENV.nodeHistoryCleanupBatchCount]: String(s.nodeHistoryCleanupBatchCount),
    [ENV.nodeHistoryMinimumDays]: String(s.nodeHistoryMinimumDays),
    [ENV.inspectWaitTimeout]: String(s.inspectWaitTimeoutSeconds),
    [ENV.inspectorHooks]: s.inspectorHooks,
    [ENV.redfishInspectionHooks]: s.redfishInspectionHooks,
    ...inspectorVariables(s),
    ...firmwareUpdateVariables(s),
    ...powerSyncVariables(s),
    [ENV.stepTimeout]: String(s.stepTimeoutSeconds),
    [ENV.bmcAllowedHosts]: s.bmcAllowedHosts.join(','),
    [ENV.bmcDeniedHosts]: s.bmcDeniedHosts.join(','),
    [ENV.imageAllowedHosts]: s.imageAllowedHosts.join(','),
    [ENV.imageDeniedHosts]: s.imageDeniedHosts.join(','),
    [ENV.caAllowedPaths]: s.caAllowedPaths.join(','),
    [ENV.maxLookupAddresses]: String(s.maxLookupAddresses),
    ...traitBasedNetworkingEnvironment(s.traitBasedNetworking),
  };
}
