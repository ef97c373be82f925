/**
 * Lambda limits a function's environment to 4 KB (names and values together), and the conductor's
 * tables, queues, ARNs and settings come close. Two measures keep it in bounds:
 *
 * - `withoutDefaults` leaves out a setting's variable when the functions would read the same
 *   configuration without it. The functions' own fallbacks decide, by running their loaders both
 *   ways, so no second table of defaults can drift from the code; a variable no loader reads is
 *   always kept. A function version then runs with its own release's default for an unset
 *   option, as an Ironic service does with an option missing from its file.
 * - `checkEnvironmentSize` fails synthesis, naming the largest variables, before CloudFormation
 *   would fail the deployment.
 */
import { Token } from 'aws-cdk-lib';
import {
  type Env,
  loadAgentConfig,
  loadApiConfig,
  loadConductorConfig,
  loadInspectorConfig,
  loadRamdiskLogsConfig,
} from '../functions/common/config';
import { releaseFromEnv } from '../functions/common/releases';
import { fetchPolicyFromEnv } from '../functions/drivers/hosts';
import { loadRedfishConfig } from '../functions/drivers/redfish/config';
import { loadTbnConfig } from '../functions/drivers/tbn/rules';

/** Lambda's limit on a function's variables, names and values together. */
export const LAMBDA_ENVIRONMENT_MAX_BYTES = 4096;

/**
 * What a reference to a deployed name, URL or ARN counts for while it is still a token: the
 * longest such value in the synthesized stack (a queue URL with the account and a generated
 * name) with room to spare.
 */
export const TOKEN_BYTES = 110;

/** The variables the loaders require, with stand-in values, so every loader can run. */
const REQUIRED: Env = {
  CONDUCTOR_QUEUES: '{"":"queue"}',
  CONDUCTOR_FUNCTION: 'conductor',
  STEPS_STATE_MACHINE_ARN: 'steps',
};

const LOADERS: readonly ((env: Env) => unknown)[] = [
  loadApiConfig,
  loadConductorConfig,
  loadAgentConfig,
  loadInspectorConfig,
  loadRamdiskLogsConfig,
  loadRedfishConfig,
  fetchPolicyFromEnv,
  loadTbnConfig,
  releaseFromEnv,
];

/** Every loader's result for `env` (as JSON), and the variables they read. */
function readAll(env: Env): { config: string; read: Set<string> } {
  const read = new Set<string>();
  const watched = new Proxy({ ...REQUIRED, ...env } as Record<string, string | undefined>, {
    get(target, name) {
      if (typeof name !== 'string') return undefined;
      read.add(name);
      return target[name];
    },
  });
  return { config: JSON.stringify(LOADERS.map((load) => load(watched))), read };
}

function sameConfig(env: Env, config: string): boolean {
  try {
    return readAll(env).config === config;
  } catch {
    return false; // without it a loader fails: it is needed
  }
}

/**
 * `env` without the settings' variables whose absence the functions cannot tell from their value
 * (e.g. `AUTOMATED_CLEAN=true`, `IMAGE_S3_BUCKETS=` when no bucket is named).
 */
export function withoutDefaults(env: Readonly<Record<string, string>>): Record<string, string> {
  const full = readAll(env);
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (full.read.has(name)) {
      const rest = { ...env };
      delete rest[name];
      if (sameConfig(rest, full.config)) continue;
    }
    kept[name] = value;
  }
  return kept;
}

/** The bytes a variable takes once deployed; an unresolved reference counts as TOKEN_BYTES. */
function variableBytes(name: string, value: string): number {
  return Buffer.byteLength(name) + (Token.isUnresolved(value) ? TOKEN_BYTES : Buffer.byteLength(value));
}

/** Throws when the variables cannot fit in Lambda's 4 KB, naming the function and its largest variables. */
export function checkEnvironmentSize(functionName: string, env: Readonly<Record<string, string>>): number {
  const sizes = Object.entries(env).map(([name, value]) => [name, variableBytes(name, value)] as const);
  const total = sizes.reduce((sum, [, bytes]) => sum + bytes, 0);
  if (total > LAMBDA_ENVIRONMENT_MAX_BYTES) {
    const largest = [...sizes]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([name, bytes]) => `${name} (${bytes} bytes)`);
    throw new Error(
      `The ${functionName} function's environment would take about ${total} bytes, over Lambda's ${LAMBDA_ENVIRONMENT_MAX_BYTES}; ` +
        `the largest: ${largest.join(', ')}. Shorten the settings that fill them (e.g. traitBasedNetworking rules).`,
    );
  }
  return total;
}
