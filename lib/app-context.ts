/**
 * Stack props from CDK context, so an operator chooses the security and operations settings on
 * the command line (`npx cdk deploy -c authStrategy=noauth -c endpointType=PRIVATE …`) or in
 * `cdk.json`, without editing `bin/app.ts`. Values from `-c` are strings; lists are comma-separated.
 */
import type { Node } from 'constructs';
import type { ApiExposure } from './api-exposure';
import type { IronlessStackProps } from './ironless-stack';
import type { IronlessSettings } from './settings';
import { readTraitRulesFile } from './trait-based-networking';

/** The context keys read, for error messages and the README. */
export const CONTEXT_KEYS = [
  'authStrategy',
  'endpointType',
  'vpcEndpointIds',
  'sourceVpcIds',
  'allowUnauthenticatedPublicApi',
  'wafRateLimit',
  'imageBuckets',
  'alarmTopicArn',
  'dashboard',
  'rollout',
  'release',
  'upgradeOperatorPolicy',
  'conductorGroups',
  'conductorGroupConcurrency',
  'traitBasedNetworkingRules',
  'traitBasedNetworkingRaiseWhenNoMatch',
  'traitBasedNetworkingEnableDefaultTrait',
  'agentApiCaFile',
  'isolinuxBin',
  'ldlinuxC32',
  'isolinuxConfigTemplate',
  'syncPowerStateInterval',
  'checkProvisionStateInterval',
  'nodeHistoryCleanupInterval',
  'forcePowerStateDuringSync',
  'powerStateSyncMaxRetries',
  'syncPowerStateWorkers',
  'deployLogsCollect',
  'deployLogsDaysToExpire',
] as const;

function list(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.map(String);
  return String(value)
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

function flag(name: string, value: unknown): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new Error(`context ${name} must be true or false, got "${String(value)}"`);
}

function wholeNumber(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new Error(`context ${name} must be a whole number, got "${String(value)}"`);
  return n;
}

/**
 * `group=N` pairs, comma-separated (`=N` for the default group ""), or an object from cdk.json:
 * each group's conductor concurrency.
 */
function concurrencyByGroup(value: unknown): Record<string, number> | undefined {
  if (value === undefined) return undefined;
  const pairs: [string, unknown][] =
    typeof value === 'object' && value !== null
      ? Object.entries(value)
      : String(value)
          .split(',')
          .map((pair) => pair.trim())
          .filter((pair) => pair !== '')
          .map((pair) => {
            const at = pair.lastIndexOf('=');
            if (at < 0)
              throw new Error(`context conductorGroupConcurrency takes group=N pairs ("=N" for the default group), got "${pair}"`);
            return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
          });
  return Object.fromEntries(
    pairs.map(([group, max]) => [group, wholeNumber(`conductorGroupConcurrency (group "${group}")`, max) as number]),
  );
}

/** The props the context asks for; unset keys leave the stack's defaults. */
export function propsFromContext(
  node: Node,
): Pick<IronlessStackProps, 'settings' | 'api' | 'alarmTopicArn' | 'dashboard' | 'rollout' | 'release' | 'upgradeOperatorPolicy'> {
  const get = (key: (typeof CONTEXT_KEYS)[number]): unknown => node.tryGetContext(key);
  const settings: { -readonly [K in keyof IronlessSettings]?: IronlessSettings[K] } = {};
  const auth = get('authStrategy');
  if (auth !== undefined) settings.authStrategy = String(auth) as IronlessSettings['authStrategy'];
  const buckets = list(get('imageBuckets'));
  if (buckets) settings.imageBuckets = buckets;
  // The default group "" is written as an empty item (`-c conductorGroups=,rack-a`).
  const groups = get('conductorGroups');
  if (groups !== undefined)
    settings.conductorGroups = Array.isArray(groups)
      ? groups.map(String)
      : String(groups)
          .split(',')
          .map((g) => g.trim());
  const concurrency = concurrencyByGroup(get('conductorGroupConcurrency'));
  if (concurrency) settings.conductorGroupConcurrency = concurrency;
  // A rules file (Ironic's YAML, or JSON), read at synth: `-c traitBasedNetworkingRules=tbn.yaml`.
  const tbnRules = get('traitBasedNetworkingRules');
  if (tbnRules !== undefined) {
    const raise = flag('traitBasedNetworkingRaiseWhenNoMatch', get('traitBasedNetworkingRaiseWhenNoMatch'));
    const byDefault = flag('traitBasedNetworkingEnableDefaultTrait', get('traitBasedNetworkingEnableDefaultTrait'));
    settings.traitBasedNetworking = {
      rules: readTraitRulesFile(String(tbnRules)),
      ...(raise === undefined ? {} : { raiseWhenNoMatch: raise }),
      ...(byDefault === undefined ? {} : { enableDefaultTrait: byDefault }),
    };
  }
  // Ironic's [agent]api_ca_file, a PEM read at synth: `-c agentApiCaFile=ca.pem`.
  const caFile = get('agentApiCaFile');
  if (caFile !== undefined) settings.agentApiCaFile = String(caFile);
  // Ironic's [DEFAULT]isolinux_bin, ldlinux_c32 and isolinux_config_template, read at synth: `-c isolinuxBin=/path/isolinux.bin`.
  for (const key of ['isolinuxBin', 'ldlinuxC32', 'isolinuxConfigTemplate'] as const) {
    const path = get(key);
    if (path !== undefined) settings[key] = String(path);
  }
  // Ironic's [conductor] intervals, in seconds (0: off): `-c syncPowerStateInterval=600`.
  const powerSync = wholeNumber('syncPowerStateInterval', get('syncPowerStateInterval'));
  if (powerSync !== undefined) settings.syncPowerStateIntervalSeconds = powerSync;
  const provisionChecks = wholeNumber('checkProvisionStateInterval', get('checkProvisionStateInterval'));
  if (provisionChecks !== undefined) settings.checkProvisionStateIntervalSeconds = provisionChecks;
  const historyCleanup = wholeNumber('nodeHistoryCleanupInterval', get('nodeHistoryCleanupInterval'));
  if (historyCleanup !== undefined) settings.nodeHistoryCleanupIntervalSeconds = historyCleanup;
  // The power sync's other [conductor] options: `-c forcePowerStateDuringSync=false`.
  const force = flag('forcePowerStateDuringSync', get('forcePowerStateDuringSync'));
  if (force !== undefined) settings.forcePowerStateDuringSync = force;
  const syncRetries = wholeNumber('powerStateSyncMaxRetries', get('powerStateSyncMaxRetries'));
  if (syncRetries !== undefined) settings.powerStateSyncMaxRetries = syncRetries;
  const syncWorkers = wholeNumber('syncPowerStateWorkers', get('syncPowerStateWorkers'));
  if (syncWorkers !== undefined) settings.syncPowerStateWorkers = syncWorkers;

  // Checked with the other settings (validateSettings names the values it takes).
  const logsCollect = get('deployLogsCollect');
  if (logsCollect !== undefined) settings.deployLogsCollect = String(logsCollect) as IronlessSettings['deployLogsCollect'];
  const logsDays = wholeNumber('deployLogsDaysToExpire', get('deployLogsDaysToExpire'));
  if (logsDays !== undefined) settings.deployLogsDaysToExpire = logsDays;

  const api: { -readonly [K in keyof ApiExposure]?: ApiExposure[K] } = {};
  const endpointType = get('endpointType');
  if (endpointType !== undefined) api.endpointType = String(endpointType).toUpperCase() as 'REGIONAL' | 'PRIVATE';
  const endpoints = list(get('vpcEndpointIds'));
  if (endpoints) api.vpcEndpointIds = endpoints;
  const vpcs = list(get('sourceVpcIds'));
  if (vpcs) api.sourceVpcIds = vpcs;
  const open = flag('allowUnauthenticatedPublicApi', get('allowUnauthenticatedPublicApi'));
  if (open !== undefined) api.allowUnauthenticatedPublicApi = open;
  const rateLimit = wholeNumber('wafRateLimit', get('wafRateLimit'));
  if (rateLimit !== undefined) api.waf = { rateLimit };

  const topic = get('alarmTopicArn');
  const dashboard = flag('dashboard', get('dashboard'));
  // Who moves the live aliases (lib/constructs/deploy-guard.ts); the stack checks the value.
  const rollout = get('rollout');
  const release = get('release');
  const operatorPolicy = flag('upgradeOperatorPolicy', get('upgradeOperatorPolicy'));
  return {
    settings,
    api,
    ...(topic !== undefined ? { alarmTopicArn: String(topic) } : {}),
    ...(dashboard !== undefined ? { dashboard } : {}),
    ...(rollout !== undefined ? { rollout: String(rollout) as NonNullable<IronlessStackProps['rollout']> } : {}),
    ...(release !== undefined ? { release: String(release) } : {}),
    ...(operatorPolicy !== undefined ? { upgradeOperatorPolicy: operatorPolicy } : {}),
  };
}
