/**
 * Lambda on one machine, with Lambda's model of a function: `$LATEST` holds the current code and
 * configuration (UpdateFunctionCode, UpdateFunctionConfiguration), PublishVersion freezes it into
 * the next numbered version, aliases route to one version or weigh two. Each version (and $LATEST)
 * runs in its own execution environments (lambda-environments.ts) with its own environment.
 * Crashes and timeouts are reported as Lambda reports them, so retries, Step Functions catches and
 * SQS redelivery behave as on AWS; both can be injected (`injectFault`). Every invocation is
 * counted in `metrics` as CloudWatch's AWS/Lambda Invocations and Errors.
 */
import { randomUUID } from 'node:crypto';
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { FunctionLogs, type InvokeResult, VersionRuntime } from './lambda-environments';
import { LATEST, LambdaServiceError, invalid, notFound, parseRef, pickVersion, validateAliasName, validateRouting } from './lambda-routing';
import {
  type AliasConfig,
  CODE_FILE,
  type VersionConfig,
  copyCode,
  lastModified,
  sameConfig,
  codeSha256,
  writeCodeFiles,
} from './lambda-versions';
import { MetricStore } from './metrics';

export { type InvokeResult, nodeOptions } from './lambda-environments';
export { LambdaServiceError, parseRef };
export type { AliasConfig, VersionConfig } from './lambda-versions';

export const REGION = 'us-east-1';
export const ACCOUNT = '000000000000';

export interface FunctionSpec {
  readonly name: string;
  /** The bundle (`index.mjs`, and its `.map` beside it) $LATEST starts with; copied, so later builds do not change it. */
  readonly bundle: string;
  readonly handler: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutSeconds: number;
  readonly memoryMb?: number;
  /** Most execution environments one version runs at once (Lambda's concurrency). */
  readonly maxConcurrency?: number;
  /** The function's tags (ListTags). */
  readonly tags?: Readonly<Record<string, string>>;
  /** Files put in the code beside the bundle (path below its root → content), as the CDK stack's asset has them. */
  readonly files?: Readonly<Record<string, Uint8Array>>;
}

/** A fault to inject into matching invocations (tests, chaos). */
export interface Fault {
  readonly function: string;
  /** Only invocations that this version (e.g. "2", "$LATEST") executes; default any. */
  readonly version?: string;
  readonly match?: (event: unknown) => boolean;
  /**
   * crash: the environment dies as the invocation starts, before the handler runs; with
   * `afterMs`, that long into the invocation instead (Runtime.ExitError).
   *
   * timeout: the invocation runs past its timeout. The handler runs, but `afterMs` into the
   * invocation (default 0: as soon as it starts) the environment is ended and the invocation
   * answers Sandbox.Timedout, as Lambda does with a handler that outlives its timeout: what the
   * handler did by then stays done, its answer (had it one) is lost.
   */
  readonly action: 'crash' | 'timeout';
  readonly afterMs?: number;
  /** How many invocations to hit; default 1. */
  times?: number;
}

interface VersionState {
  readonly config: VersionConfig;
  runtime: VersionRuntime | undefined;
}

interface FunctionState {
  readonly spec: FunctionSpec;
  latest: VersionState;
  readonly versions: Map<string, VersionState>;
  readonly aliases: Map<string, AliasConfig>;
  readonly tags: Map<string, string>;
  nextVersion: number;
  /** Code folders written for $LATEST so far (each UpdateFunctionCode gets a new one). */
  codeRevisions: number;
}

export class LambdaHost {
  private readonly functions = new Map<string, FunctionState>();
  private readonly logs: FunctionLogs;
  private readonly faults: Fault[] = [];
  /** Environments of $LATEST code replaced since: they finish what they run, then stop with the host. */
  private readonly retired: VersionRuntime[] = [];
  /** Invocation counts per function name (for benchmarks). */
  readonly invocations = new Map<string, number>();
  /** Invocations an injected fault hit, by its action. */
  readonly injectedFaults = new Map<Fault['action'], number>();
  readonly stats = new Map<string, number>();
  /** AWS/Lambda Invocations and Errors (and whatever else shares the store, e.g. the gateway's). */
  readonly metrics: MetricStore;

  constructor(
    private readonly options: {
      readonly runtimeFile: string;
      readonly codeDir: string;
      readonly logDir?: string;
      readonly metrics?: MetricStore;
    },
  ) {
    this.logs = new FunctionLogs(options.logDir);
    this.metrics = options.metrics ?? new MetricStore();
  }

  static arn(name: string, qualifier?: string): string {
    return `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name}${qualifier ? `:${qualifier}` : ''}`;
  }

  createFunction(spec: FunctionSpec): void {
    if (this.functions.has(spec.name))
      throw new LambdaServiceError('ResourceConflictException', `Function already exist: ${spec.name}`, 409);
    const state: FunctionState = {
      spec,
      latest: undefined as unknown as VersionState,
      versions: new Map(),
      aliases: new Map(),
      tags: new Map(Object.entries(spec.tags ?? {})),
      nextVersion: 1,
      codeRevisions: 0,
    };
    const codeDir = this.newLatestCode(state, (dir) => {
      copyCode(spec.bundle, dir);
      writeCodeFiles(dir, spec.files ?? {});
    });
    state.latest = {
      config: {
        version: LATEST,
        codeDir,
        ...codeSha256(codeDir),
        env: { ...spec.env },
        timeoutSeconds: spec.timeoutSeconds,
        memoryMb: spec.memoryMb ?? 512,
        description: '',
        lastModified: lastModified(),
        revisionId: randomUUID(),
      },
      runtime: undefined,
    };
    this.functions.set(spec.name, state);
  }

  functionNames(): string[] {
    return [...this.functions.keys()];
  }

  /** Replace $LATEST's code with these files (`index.mjs`, optionally `index.mjs.map` and `chunks/…`). */
  updateFunctionCode(name: string, files: Readonly<Record<string, Uint8Array>>, revisionId?: string): VersionConfig {
    const fn = this.get(name);
    this.checkRevision(fn.latest.config, revisionId);
    if (files[CODE_FILE] === undefined) throw invalid(`The code package holds no ${CODE_FILE}`);
    const codeDir = this.newLatestCode(fn, (dir) => writeCodeFiles(dir, files));
    return this.replaceLatest(fn, { codeDir, ...codeSha256(codeDir) });
  }

  /** Change $LATEST's configuration: `env` replaces every variable, as Environment does on Lambda. */
  updateFunctionConfiguration(
    name: string,
    change: { env?: Record<string, string>; timeoutSeconds?: number; memoryMb?: number; description?: string; revisionId?: string },
  ): VersionConfig {
    const fn = this.get(name);
    this.checkRevision(fn.latest.config, change.revisionId);
    if (
      change.timeoutSeconds !== undefined &&
      !(Number.isInteger(change.timeoutSeconds) && change.timeoutSeconds >= 1 && change.timeoutSeconds <= 900)
    )
      throw invalid(`Timeout must be between 1 and 900 seconds: ${change.timeoutSeconds}`);
    if (change.memoryMb !== undefined && !(Number.isInteger(change.memoryMb) && change.memoryMb >= 128 && change.memoryMb <= 10240))
      throw invalid(`MemorySize must be between 128 and 10240 MB: ${change.memoryMb}`);
    return this.replaceLatest(fn, {
      ...(change.env === undefined ? {} : { env: { ...change.env } }),
      ...(change.timeoutSeconds === undefined ? {} : { timeoutSeconds: change.timeoutSeconds }),
      ...(change.memoryMb === undefined ? {} : { memoryMb: change.memoryMb }),
      ...(change.description === undefined ? {} : { description: change.description }),
    });
  }

  /**
   * PublishVersion as Lambda: freeze $LATEST into the next version, or answer the newest version
   * when $LATEST has not changed since it. `codeSha256`/`revisionId` must match $LATEST's (412).
   */
  publish(name: string, options: { codeSha256?: string; revisionId?: string; description?: string } = {}): VersionConfig {
    const fn = this.get(name);
    const latest = fn.latest.config;
    if (options.codeSha256 !== undefined && options.codeSha256 !== latest.codeSha256)
      throw new LambdaServiceError(
        'PreconditionFailedException',
        `CodeSHA256 (${options.codeSha256}) is different from current CodeSHA256 in $LATEST (${latest.codeSha256}). Please try again with the CodeSHA256 in $LATEST.`,
        412,
      );
    this.checkRevision(latest, options.revisionId);
    const newest = [...fn.versions.values()].pop()?.config;
    if (newest && sameConfig(newest, latest)) return newest;
    return this.freeze(fn, latest, options.description ?? latest.description);
  }

  /**
   * Publish a new version from $LATEST, for tests: `env` is merged over $LATEST's variables and
   * `bundle` replaces its code, for this version only. Always a new version, changed or not.
   */
  publishVersion(name: string, overrides: { env?: Readonly<Record<string, string>>; bundle?: string } = {}): string {
    const fn = this.get(name);
    let config: VersionConfig = { ...fn.latest.config, env: { ...fn.latest.config.env, ...(overrides.env ?? {}) } };
    if (overrides.bundle !== undefined) {
      const codeDir = this.newLatestCode(fn, (dir) => copyCode(overrides.bundle as string, dir));
      config = { ...config, codeDir, ...codeSha256(codeDir) };
    }
    return this.freeze(fn, config, config.description).version;
  }

  /** $LATEST's (no qualifier), a version's or an alias's version's configuration. */
  configuration(name: string, qualifier?: string): VersionConfig {
    const fn = this.get(name);
    if (qualifier === undefined || qualifier === LATEST) return fn.latest.config;
    const version = fn.aliases.get(qualifier)?.version ?? qualifier;
    const state = version === LATEST ? fn.latest : fn.versions.get(version);
    if (state === undefined) throw notFound(LambdaHost.arn(name, qualifier));
    return state.config;
  }

  /** $LATEST, then every published version (ListVersionsByFunction). */
  listVersions(name: string): VersionConfig[] {
    const fn = this.get(name);
    return [fn.latest.config, ...[...fn.versions.values()].map((v) => v.config)];
  }

  /** The published versions' numbers. */
  versions(name: string): string[] {
    return [...this.get(name).versions.keys()];
  }

  createAlias(name: string, alias: string, version: string, weights: Record<string, number> = {}, description = ''): AliasConfig {
    const fn = this.get(name);
    validateAliasName(alias);
    if (fn.aliases.has(alias))
      throw new LambdaServiceError('ResourceConflictException', `Alias already exists: ${LambdaHost.arn(name, alias)}`, 409);
    return this.putAlias(fn, { name: alias, version, weights, description, revisionId: randomUUID() });
  }

  /** UpdateAlias: what is given replaces what the alias had (`weights` {} removes the routing). */
  updateAlias(
    name: string,
    alias: string,
    change: { version?: string; weights?: Record<string, number>; description?: string; revisionId?: string },
  ): AliasConfig {
    const fn = this.get(name);
    const current = this.alias(name, alias);
    if (change.revisionId !== undefined && change.revisionId !== current.revisionId)
      throw new LambdaServiceError(
        'PreconditionFailedException',
        'The Revision Id provided does not match the latest Revision Id. Call the GetAlias API to retrieve the latest Revision Id',
        412,
      );
    return this.putAlias(fn, {
      name: alias,
      version: change.version ?? current.version,
      weights: change.weights ?? current.weights,
      description: change.description ?? current.description,
      revisionId: randomUUID(),
    });
  }

  /** Create or update an alias: `version` gets the traffic not given to `weights` (version → [0, 1)). */
  setAlias(name: string, alias: string, version: string, weights: Record<string, number> = {}): void {
    if (this.get(name).aliases.has(alias)) this.updateAlias(name, alias, { version, weights });
    else this.createAlias(name, alias, version, weights);
  }

  /** The alias (GetAlias); 404 when there is none. */
  alias(name: string, alias: string): AliasConfig {
    const found = this.get(name).aliases.get(alias);
    if (found === undefined)
      throw new LambdaServiceError('ResourceNotFoundException', `Alias not found: ${LambdaHost.arn(name, alias)}`, 404);
    return found;
  }

  getAlias(name: string, alias: string): { version: string; weights: Record<string, number> } | undefined {
    const found = this.functions.get(name)?.aliases.get(alias);
    return found && { version: found.version, weights: { ...found.weights } };
  }

  /** Every alias, or those routing to `version` (ListAliases' FunctionVersion). */
  listAliases(name: string, version?: string): AliasConfig[] {
    const all = [...this.get(name).aliases.values()];
    return version === undefined ? all : all.filter((a) => a.version === version || a.weights[version] !== undefined);
  }

  /** A function's tags, by its unqualified ARN (Lambda tags functions, not versions or aliases). */
  tags(arn: string): Map<string, string> {
    const rest = arn.split(':function:')[1];
    if (!arn.startsWith('arn:') || rest === undefined) throw invalid(`Invalid function ARN: ${arn}`);
    if (rest.includes(':')) throw invalid(`Tags are not supported on function versions or aliases: ${arn}`);
    return this.get(rest).tags;
  }

  /** Inject a fault into the next matching invocation(s). */
  injectFault(fault: Fault): void {
    this.faults.push({ ...fault, times: fault.times ?? 1 });
  }

  /** Forget every injected fault not yet used up. */
  clearFaults(): void {
    this.faults.length = 0;
  }

  /** Invoke by name, name:qualifier or ARN; an alias routes by its weights. */
  invoke(ref: string, event: unknown, qualifier?: string): Promise<InvokeResult> {
    const { name, qualifier: q } = parseRef(ref, qualifier);
    const fn = this.functions.get(name);
    if (fn === undefined) return Promise.reject(notFound(LambdaHost.arn(name, q)));
    const alias = q === undefined ? undefined : fn.aliases.get(q);
    const executed = alias ? pickVersion(alias.version, alias.weights, Math.random()) : (q ?? LATEST);
    const state = executed === LATEST ? fn.latest : fn.versions.get(executed);
    if (state === undefined) return Promise.reject(notFound(LambdaHost.arn(name, q)));
    this.invocations.set(name, (this.invocations.get(name) ?? 0) + 1);
    const fault = this.takeFault(name, executed, event);
    const runtime = (state.runtime ??= this.runtimeOf(name, state.config));
    const started = Date.now();
    return new Promise<InvokeResult>((resolve) => {
      runtime.submit({ event, requestId: randomUUID(), invokedArn: LambdaHost.arn(name, q), resolve, fault });
    }).then((result) => {
      this.record(name, q, alias ? executed : undefined, result.functionError !== undefined, started);
      return result;
    });
  }

  async stop(): Promise<void> {
    const runtimes = [...this.functions.values()].flatMap((fn) => [fn.latest, ...fn.versions.values()].map((v) => v.runtime));
    await Promise.all([...runtimes, ...this.retired].map((r) => r?.stop()));
    this.logs.end();
  }

  /** AWS/Lambda's Invocations and Errors, under each set of dimensions Lambda publishes them with. */
  private record(name: string, qualifier: string | undefined, executedVersion: string | undefined, failed: boolean, at: number): void {
    const sets: Record<string, string>[] = [{}, { FunctionName: name }];
    if (qualifier !== undefined) sets.push({ FunctionName: name, Resource: `${name}:${qualifier}` });
    if (executedVersion !== undefined)
      sets.push({ FunctionName: name, Resource: `${name}:${qualifier}`, ExecutedVersion: executedVersion });
    for (const dimensions of sets) {
      this.metrics.put('AWS/Lambda', 'Invocations', dimensions, 1, at);
      this.metrics.put('AWS/Lambda', 'Errors', dimensions, failed ? 1 : 0, at);
    }
  }

  private get(name: string): FunctionState {
    const fn = this.functions.get(name);
    if (fn === undefined) throw notFound(LambdaHost.arn(name));
    return fn;
  }

  private checkRevision(config: VersionConfig, revisionId: string | undefined): void {
    if (revisionId !== undefined && revisionId !== config.revisionId)
      throw new LambdaServiceError(
        'PreconditionFailedException',
        'The Revision Id provided does not match the latest Revision Id. Call the GetFunction/GetAlias API to retrieve the latest Revision Id',
        412,
      );
  }

  /** A new folder for $LATEST's code, filled by `write`. */
  private newLatestCode(fn: { spec: FunctionSpec; codeRevisions: number }, write: (dir: string) => void): string {
    const dir = join(this.options.codeDir, fn.spec.name, `latest-${++fn.codeRevisions}`);
    mkdirSync(dir, { recursive: true });
    write(dir);
    return dir;
  }

  /** $LATEST with `change`: a new revision, run by new environments (the old ones finish what they run). */
  private replaceLatest(fn: FunctionState, change: Partial<VersionConfig>): VersionConfig {
    if (fn.latest.runtime) this.retired.push(fn.latest.runtime);
    const config: VersionConfig = { ...fn.latest.config, ...change, lastModified: lastModified(), revisionId: randomUUID() };
    fn.latest = { config, runtime: undefined };
    return config;
  }

  /** The next numbered version: `config`'s code copied beside it, its configuration frozen. */
  private freeze(fn: FunctionState, config: VersionConfig, description: string): VersionConfig {
    const version = String(fn.nextVersion++);
    const codeDir = join(this.options.codeDir, fn.spec.name, version);
    // The whole package, as Lambda keeps a version's: the bundle and any file beside it.
    cpSync(config.codeDir, codeDir, { recursive: true });
    const frozen: VersionConfig = { ...config, version, codeDir, description, lastModified: lastModified(), revisionId: randomUUID() };
    fn.versions.set(version, { config: frozen, runtime: undefined });
    return frozen;
  }

  private putAlias(fn: FunctionState, alias: AliasConfig): AliasConfig {
    const exists = (v: string) => v === LATEST || fn.versions.has(v);
    validateRouting(LambdaHost.arn(fn.spec.name), alias.version, alias.weights, exists);
    const stored = { ...alias, weights: { ...alias.weights } };
    fn.aliases.set(alias.name, stored);
    return stored;
  }

  /** Execution environments for a version, created on its first invocation. */
  private runtimeOf(name: string, config: VersionConfig): VersionRuntime {
    const spec = this.get(name).spec;
    const env = {
      ...config.env,
      AWS_LAMBDA_FUNCTION_NAME: name,
      AWS_LAMBDA_FUNCTION_VERSION: config.version,
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(config.memoryMb),
      // Where the version's code is, as Lambda's /var/task (functions read files bundled beside their code).
      LAMBDA_TASK_ROOT: config.codeDir,
      AWS_REGION: REGION,
      AWS_DEFAULT_REGION: REGION,
    };
    return new VersionRuntime(
      name,
      config.version,
      {
        bundle: join(config.codeDir, CODE_FILE),
        handler: spec.handler,
        timeoutSeconds: config.timeoutSeconds,
        memoryMb: config.memoryMb,
        maxConcurrency: spec.maxConcurrency ?? 4,
        env,
      },
      this.options.runtimeFile,
      this.logs.for(name),
      this.stats,
    );
  }

  private takeFault(name: string, version: string, event: unknown): Fault | undefined {
    const index = this.faults.findIndex(
      (f) => f.function === name && (f.version === undefined || f.version === version) && (f.match === undefined || f.match(event)),
    );
    if (index < 0) return undefined;
    const fault = this.faults[index] as Fault;
    this.injectedFaults.set(fault.action, (this.injectedFaults.get(fault.action) ?? 0) + 1);
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) this.faults.splice(index, 1);
    return fault;
  }
}
