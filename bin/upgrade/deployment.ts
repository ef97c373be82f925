/**
 * The AWS calls an upgrade is made of, on one target: publishing a function version from bundles
 * with its environment (pinned or not), moving an alias, reading and writing the upgrade's tags,
 * invoking dbsync and the conductor heartbeat, and the health signals a shift is judged by
 * (CloudWatch metrics, dead-letter queue depth, conductor registrations).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { GetMetricDataCommand, type MetricDataQuery } from '@aws-sdk/client-cloudwatch';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import {
  GetAliasCommand,
  GetFunctionConfigurationCommand,
  InvokeCommand,
  ListTagsCommand,
  PublishVersionCommand,
  TagResourceCommand,
  UpdateAliasCommand,
  UpdateFunctionCodeCommand,
  UpdateFunctionConfigurationCommand,
  waitUntilFunctionUpdatedV2,
  waitUntilPublishedVersionActive,
} from '@aws-sdk/client-lambda';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { zipSync } from 'fflate';
import { ENV } from '../../functions/common/config';
import type { DbsyncOutcome } from '../../functions/db/dbsync';
import type { BuildManifest } from '../../local/build-manifest';
import { type AliasRouting, UpgradeRefused } from './decisions';
import type { UpgradeTarget } from './target';

export const ALIAS = 'live';
const PIN = 'PIN_RELEASE_VERSION';
const WAIT = { maxWaitTime: 300, minDelay: 1, maxDelay: 5 };

export interface AliasState {
  readonly FunctionVersion: string;
  readonly RoutingConfig?: { readonly AdditionalVersionWeights?: Record<string, number> };
}

/** The files of one function's bundle folder, zipped as Lambda takes them (index.mjs at the root). */
export function zipBundle(dir: string): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files[relative(dir, path)] = readFileSync(path);
  }
  if (files['index.mjs'] === undefined)
    throw new UpgradeRefused(`${dir} holds no index.mjs: build the bundles with \`npx ironless build\``);
  return zipSync(files, { level: 6, mtime: new Date('2020-01-01T00:00:00Z') });
}

/**
 * A conductor deployed with settings.agentApiCaFile reads the CA from its code (AGENT_API_CA_FILE
 * names it) and keeps that variable when an upgrade publishes new code: bundles without the file
 * would publish a conductor that cannot start. Refused before anything changes, saying how to add it.
 * Likewise isolinux.bin and ldlinux.c32 (ISOLINUX_BIN, LDLINUX_C32).
 */
export function checkConductorBundle(liveEnv: Readonly<Record<string, string>>, bundleDir: string): void {
  const name = liveEnv[ENV.agentApiCaFile];
  if (name !== undefined && name !== '' && !existsSync(join(bundleDir, name))) {
    throw new UpgradeRefused(
      `The running conductor puts the agent API CA (settings.agentApiCaFile) on the agent ISOs it builds, from ${name} in its code, which ${bundleDir} lacks: copy the same PEM file to ${join(bundleDir, name)} and run the upgrade again`,
    );
  }
  // The same for isolinux (settings.isolinuxBin, ldlinuxC32, isolinuxConfigTemplate), with which it builds BIOS agent ISOs.
  for (const [variable, setting, source] of [
    [ENV.isolinuxBin, 'isolinuxBin', "Debian's is /usr/lib/ISOLINUX/isolinux.bin"],
    [ENV.ldlinuxC32, 'ldlinuxC32', "Debian's is /usr/lib/syslinux/modules/bios/ldlinux.c32"],
    [ENV.isolinuxConfigTemplate, 'isolinuxConfigTemplate', 'the template the stack was synthesized with'],
  ] as const) {
    const file = liveEnv[variable];
    if (file === undefined || file === '' || existsSync(join(bundleDir, file))) continue;
    throw new UpgradeRefused(
      `The running conductor builds BIOS agent ISOs with ${file} in its code (settings.${setting}), which ${bundleDir} lacks: copy the same file (${source}) to ${join(bundleDir, file)} and run the upgrade again`,
    );
  }
}

export class Deployment {
  private arn: string | undefined;

  constructor(readonly target: UpgradeTarget) {}

  /** The conductor function's unqualified ARN: the upgrade's tags are kept on it. */
  private async conductorArn(): Promise<string> {
    if (this.arn === undefined) {
      const config = await this.target.lambda.send(new GetFunctionConfigurationCommand({ FunctionName: this.target.functions.conductor }));
      this.arn = (config.FunctionArn ?? '').replace(/:\$LATEST$/, '');
    }
    return this.arn;
  }

  async tags(): Promise<Record<string, string>> {
    const out = await this.target.lambda.send(new ListTagsCommand({ Resource: await this.conductorArn() }));
    return out.Tags ?? {};
  }

  async tag(tags: Record<string, string>): Promise<void> {
    await this.target.lambda.send(new TagResourceCommand({ Resource: await this.conductorArn(), Tags: tags }));
  }

  async alias(fn: string): Promise<AliasState> {
    const out = await this.target.lambda.send(new GetAliasCommand({ FunctionName: fn, Name: ALIAS }));
    return {
      FunctionVersion: out.FunctionVersion ?? '$LATEST',
      ...(out.RoutingConfig?.AdditionalVersionWeights
        ? { RoutingConfig: { AdditionalVersionWeights: out.RoutingConfig.AdditionalVersionWeights } }
        : {}),
    };
  }

  async route(fn: string, routing: AliasRouting): Promise<void> {
    await this.target.lambda.send(
      new UpdateAliasCommand({
        FunctionName: fn,
        Name: ALIAS,
        FunctionVersion: routing.FunctionVersion,
        RoutingConfig: routing.RoutingConfig,
      }),
    );
  }

  /** A version's environment variables. */
  async environment(fn: string, qualifier?: string): Promise<Record<string, string>> {
    const config = await this.target.lambda.send(
      new GetFunctionConfigurationCommand({ FunctionName: fn, ...(qualifier ? { Qualifier: qualifier } : {}) }),
    );
    return config.Environment?.Variables ?? {};
  }

  /** A version's timeout: the longest one of its invocations can run. */
  async timeoutSeconds(fn: string, qualifier: string): Promise<number> {
    const config = await this.target.lambda.send(new GetFunctionConfigurationCommand({ FunctionName: fn, Qualifier: qualifier }));
    return config.Timeout ?? 900;
  }

  /**
   * Publish `fn` from `bundleDir` with its current environment, the new code's tables added and
   * PIN_RELEASE_VERSION set to `pin` (or removed: the latest). Returns the version.
   */
  async publish(fn: string, bundleDir: string, manifest: BuildManifest, pin: string | undefined, description: string): Promise<string> {
    const lambda = this.target.lambda;
    const code = await lambda.send(new UpdateFunctionCodeCommand({ FunctionName: fn, ZipFile: zipBundle(bundleDir) }));
    await waitUntilFunctionUpdatedV2({ client: lambda, ...WAIT }, { FunctionName: fn });
    const env = await this.environment(fn);
    for (const [logical, def] of Object.entries(manifest.tables)) {
      if (env[def.envVar] !== undefined) continue;
      const name = this.target.tableName(logical);
      if (name === undefined)
        throw new UpgradeRefused(
          `The new code needs table ${logical} (${def.envVar}), which ${this.target.description} does not have: deploy the new stack first (cdk deploy -c rollout=ironless-upgrade)`,
        );
      env[def.envVar] = name;
    }
    if (pin === undefined) delete env[PIN];
    else env[PIN] = pin;
    await lambda.send(new UpdateFunctionConfigurationCommand({ FunctionName: fn, Environment: { Variables: env } }));
    await waitUntilFunctionUpdatedV2({ client: lambda, ...WAIT }, { FunctionName: fn });
    const published = await lambda.send(
      new PublishVersionCommand({
        FunctionName: fn,
        Description: description.slice(0, 256),
        ...(code.CodeSha256 ? { CodeSha256: code.CodeSha256 } : {}),
      }),
    );
    const version = published.Version;
    if (version === undefined || version === '$LATEST') throw new Error(`PublishVersion of ${fn} answered no version`);
    await waitUntilPublishedVersionActive({ client: lambda, ...WAIT }, { FunctionName: fn, Qualifier: version });
    return version;
  }

  /** Invoke a version; the function's error (if any) is thrown with its message. */
  async invoke<T>(fn: string, qualifier: string, event: unknown): Promise<T> {
    const out = await this.target.lambda.send(
      new InvokeCommand({ FunctionName: fn, Qualifier: qualifier, Payload: new TextEncoder().encode(JSON.stringify(event)) }),
    );
    const text = new TextDecoder().decode(out.Payload ?? new Uint8Array());
    if (out.FunctionError) throw new Error(`${fn}:${qualifier} failed: ${text.slice(0, 500)}`);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  dbsync(qualifier: string, event: { command: string; maxCount?: number }): Promise<DbsyncOutcome> {
    return this.invoke<DbsyncOutcome>(this.target.functions.dbsync, qualifier, event);
  }

  /** The conductor version's heartbeat (its registration, on first call): EventBridge reaches only the alias. */
  async heartbeat(version: string): Promise<void> {
    await this.invoke(this.target.functions.conductor, version, { entry: 'periodic', task: 'conductor_heartbeat' });
  }

  /** Messages in the conductor dead-letter queues. */
  async dlqDepth(): Promise<number> {
    let total = 0;
    for (const url of this.target.deadLetterQueues) {
      const out = await this.target.sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: url,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      );
      total +=
        Number(out.Attributes?.ApproximateNumberOfMessages ?? 0) + Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
    }
    return total;
  }

  /**
   * Of these conductor versions, those not alive: no registration, unregistered, or a heartbeat
   * older than their CONDUCTOR_HEARTBEAT_TIMEOUT (Ironic's `heartbeat_timeout`).
   */
  async deadConductors(versions: readonly string[], now = Date.now()): Promise<string[]> {
    const records: { hostname: string; online?: boolean; updated_at?: string | null }[] = [];
    let ExclusiveStartKey: Record<string, never> | undefined;
    do {
      const page = await this.target.dynamodb.send(
        new ScanCommand({
          TableName: this.target.conductorsTable,
          ConsistentRead: true,
          ...(ExclusiveStartKey ? { ExclusiveStartKey } : {}),
        }),
      );
      for (const item of page.Items ?? []) records.push(unmarshall(item) as (typeof records)[number]);
      ExclusiveStartKey = page.LastEvaluatedKey as typeof ExclusiveStartKey;
    } while (ExclusiveStartKey);
    const fn = this.target.functions.conductor;
    const dead: string[] = [];
    for (const version of versions) {
      const timeout = Number((await this.environment(fn, version)).CONDUCTOR_HEARTBEAT_TIMEOUT ?? 60) * 1000;
      const host = `${fn}:${version}`;
      const mine = records.filter((r) => r.hostname === host || r.hostname.startsWith(`${host}:`));
      const alive = mine.length > 0 && mine.every((r) => r.online !== false && r.updated_at && now - Date.parse(r.updated_at) <= timeout);
      if (!alive) dead.push(host);
    }
    return dead;
  }

  /** Sums of CloudWatch metrics over [start, end]: Lambda invocations and errors of a version behind the alias. */
  async versionMetrics(fn: string, version: string, start: Date, end: Date): Promise<{ invocations: number; errors: number }> {
    const dims = [
      { Name: 'FunctionName', Value: fn },
      { Name: 'Resource', Value: `${fn}:${ALIAS}` },
      { Name: 'ExecutedVersion', Value: version },
    ];
    const sums = await this.sums(
      [
        { id: 'invocations', namespace: 'AWS/Lambda', metric: 'Invocations', dims },
        { id: 'errors', namespace: 'AWS/Lambda', metric: 'Errors', dims },
      ],
      start,
      end,
    );
    return { invocations: sums.invocations ?? 0, errors: sums.errors ?? 0 };
  }

  /** API Gateway's requests and 5xx answers on the stage over [start, end]. */
  async apiMetrics(start: Date, end: Date): Promise<{ count: number; errors5xx: number }> {
    const dims = [
      { Name: 'ApiName', Value: this.target.restApi.name },
      { Name: 'Stage', Value: this.target.restApi.stage },
    ];
    const sums = await this.sums(
      [
        { id: 'count', namespace: 'AWS/ApiGateway', metric: 'Count', dims },
        { id: 'errors5xx', namespace: 'AWS/ApiGateway', metric: '5XXError', dims },
      ],
      start,
      end,
    );
    return { count: sums.count ?? 0, errors5xx: sums.errors5xx ?? 0 };
  }

  private async sums(
    queries: { id: string; namespace: string; metric: string; dims: { Name: string; Value: string }[] }[],
    start: Date,
    end: Date,
  ): Promise<Record<string, number>> {
    const MetricDataQueries: MetricDataQuery[] = queries.map((q) => ({
      Id: q.id,
      MetricStat: { Metric: { Namespace: q.namespace, MetricName: q.metric, Dimensions: q.dims }, Period: 60, Stat: 'Sum' },
      ReturnData: true,
    }));
    // Whole minutes: CloudWatch's standard resolution.
    const StartTime = new Date(Math.floor(start.getTime() / 60_000) * 60_000);
    const EndTime = new Date(Math.ceil((end.getTime() + 1) / 60_000) * 60_000);
    const out: Record<string, number> = {};
    let NextToken: string | undefined;
    do {
      const page = await this.target.cloudwatch.send(
        new GetMetricDataCommand({ MetricDataQueries, StartTime, EndTime, ...(NextToken ? { NextToken } : {}) }),
      );
      for (const result of page.MetricDataResults ?? []) {
        if (result.Id) out[result.Id] = (out[result.Id] ?? 0) + (result.Values ?? []).reduce((a, b) => a + b, 0);
      }
      NextToken = page.NextToken;
    } while (NextToken);
    return out;
  }
}
