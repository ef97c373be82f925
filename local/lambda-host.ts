/**
 * Lambda on one machine: functions, published versions and weighted aliases, each version run by
 * its own worker threads with the environment it was published with. A worker is an execution
 * environment: it starts cold (imports the bundle), then runs one invocation at a time. Crashes
 * and timeouts end the worker and are reported as Lambda reports them, so retries, Step Functions
 * catches and SQS redelivery behave as on AWS. Both can be injected (`injectFault`).
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, createWriteStream, existsSync, mkdirSync, type WriteStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ErrorPayload } from './lambda-runtime';

export const REGION = 'us-east-1';
export const ACCOUNT = '000000000000';

export interface FunctionSpec {
  readonly name: string;
  /** The bundle to publish from (`index.mjs`); copied at publish time, so later builds do not change it. */
  readonly bundle: string;
  readonly handler: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutSeconds: number;
  readonly memoryMb?: number;
  /** Most execution environments one version runs at once (Lambda's concurrency). */
  readonly maxConcurrency?: number;
}

export interface InvokeResult {
  readonly statusCode: number;
  /** The JSON the function returned, or its error payload (serialized on first read). */
  readonly payload: string;
  /**
   * What the function returned, before serialization, for in-process callers (the gateway) that
   * would otherwise parse `payload` straight back: a 2 MB list reply need not be copied twice.
   */
  readonly result?: unknown;
  /** "Unhandled" when the function failed, as Lambda's X-Amz-Function-Error. */
  readonly functionError?: string;
  readonly executedVersion: string;
}

/** The flags of a NODE_OPTIONS value, as the Lambda runtime passes them to node. */
export function nodeOptions(value: string | undefined): string[] {
  return (value ?? '').split(/\s+/).filter((flag) => flag !== '');
}

export class LambdaServiceError extends Error {
  constructor(
    override readonly name: string,
    message: string,
    readonly statusCode: number,
  ) {
    super(message);
  }
}

/** A fault to inject into matching invocations (tests, chaos). */
export interface Fault {
  readonly function: string;
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

interface Pending {
  readonly event: unknown;
  readonly requestId: string;
  readonly invokedArn: string;
  readonly resolve: (result: InvokeResult) => void;
  readonly fault: Fault | undefined;
}

interface Environment {
  readonly worker: Worker;
  busy: Pending | undefined;
  ready: boolean;
  timer: NodeJS.Timeout | undefined;
  nextId: number;
}

class VersionRuntime {
  private readonly environments = new Set<Environment>();
  private readonly queue: Pending[] = [];

  constructor(
    readonly functionName: string,
    readonly version: string,
    private readonly bundle: string,
    private readonly spec: FunctionSpec,
    readonly env: Readonly<Record<string, string>>,
    private readonly runtimeFile: string,
    private readonly log: WriteStream | undefined,
    private readonly stats: Map<string, number>,
  ) {}

  submit(pending: Pending): void {
    const idle = [...this.environments].find((e) => e.ready && e.busy === undefined);
    if (idle) {
      this.run(idle, pending);
      return;
    }
    this.queue.push(pending);
    const starting = [...this.environments].filter((e) => !e.ready).length;
    if (this.environments.size < (this.spec.maxConcurrency ?? 4) && starting < this.queue.length) this.spawn();
  }

  private spawn(): void {
    const worker = new Worker(this.runtimeFile, {
      env: { ...this.env },
      // Lambda starts node with the options NODE_OPTIONS names and no others. Without this a worker
      // inherits the host's own flags — tsx's module hooks under `npm start` and the benchmarks —
      // and every cold start runs the 2 MB bundle through them (about a CPU second each).
      execArgv: nodeOptions(this.env.NODE_OPTIONS),
      workerData: {
        bundle: this.bundle,
        handler: this.spec.handler,
        functionName: this.functionName,
        functionVersion: this.version,
        memoryMb: this.spec.memoryMb ?? 512,
      },
      stdout: true,
      stderr: true,
    });
    const env: Environment = { worker, busy: undefined, ready: false, timer: undefined, nextId: 1 };
    this.environments.add(env);
    this.stats.set('coldStarts', (this.stats.get('coldStarts') ?? 0) + 1);
    const prefix = `[${this.functionName}:${this.version}] `;
    for (const stream of [worker.stdout, worker.stderr]) {
      stream.setEncoding('utf8');
      let partial = '';
      stream.on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        if (this.log) for (const line of lines) this.log.write(prefix + line + '\n');
      });
    }
    worker.on('message', (message: { type: string; id?: number; ok?: boolean; result?: unknown; error?: ErrorPayload }) => {
      if (message.type === 'ready') {
        env.ready = true;
        this.next(env);
      } else if (message.type === 'init-error') {
        this.fail(env, message.error as ErrorPayload);
      } else if (message.type === 'result' && env.busy) {
        // Ran past an injected timeout: the answer is lost, the timeout answers (see `run`).
        if (env.busy.fault?.action === 'timeout') return;
        const pending = env.busy;
        this.finish(env);
        pending.resolve(
          message.ok
            ? returned(message.result ?? null, this.version)
            : { statusCode: 200, payload: JSON.stringify(message.error), functionError: 'Unhandled', executedVersion: this.version },
        );
        this.next(env);
      }
    });
    worker.on('error', (err) =>
      this.fail(env, { errorType: 'Runtime.ExitError', errorMessage: `Runtime exited with error: ${err.message}`, trace: [] }),
    );
    worker.on('exit', (code) =>
      this.fail(env, { errorType: 'Runtime.ExitError', errorMessage: `Runtime exited with error: exit status ${code}`, trace: [] }),
    );
  }

  private run(env: Environment, pending: Pending): void {
    env.busy = pending;
    const deadline = Date.now() + this.spec.timeoutSeconds * 1000;
    const timedOut = () =>
      this.fail(env, {
        errorType: 'Sandbox.Timedout',
        errorMessage: `${pending.requestId} Task timed out after ${this.spec.timeoutSeconds.toFixed(2)} seconds`,
        trace: [],
      });
    env.timer = setTimeout(timedOut, this.spec.timeoutSeconds * 1000);
    const crash = () =>
      this.fail(env, {
        errorType: 'Runtime.ExitError',
        errorMessage: `RequestId: ${pending.requestId} Error: Runtime exited with error: signal: killed`,
        trace: [],
      });
    if (pending.fault?.action === 'crash' && pending.fault.afterMs === undefined) {
      // Dies as the invocation starts: deterministic, nothing of the handler ran.
      setImmediate(crash);
      return;
    }
    env.worker.postMessage({
      id: env.nextId++,
      event: pending.event,
      requestId: pending.requestId,
      invokedArn: pending.invokedArn,
      deadline,
    });
    if (pending.fault) {
      const fault = pending.fault;
      setTimeout(() => {
        if (env.busy === pending) (fault.action === 'timeout' ? timedOut : crash)();
      }, fault.afterMs ?? 0);
    }
  }

  private finish(env: Environment): void {
    if (env.timer) clearTimeout(env.timer);
    env.timer = undefined;
    env.busy = undefined;
  }

  private next(env: Environment): void {
    const pending = this.queue.shift();
    if (pending) this.run(env, pending);
  }

  /** The environment is gone: answer its invocation with `error` and replace it if work waits. */
  private fail(env: Environment, error: ErrorPayload): void {
    if (!this.environments.has(env)) return;
    this.environments.delete(env);
    const pending = env.busy;
    this.finish(env);
    void env.worker.terminate();
    if (pending)
      pending.resolve({ statusCode: 200, payload: JSON.stringify(error), functionError: 'Unhandled', executedVersion: this.version });
    else if (!env.ready) {
      // Init failed: every queued invocation fails the same way, as on Lambda.
      for (const queued of this.queue.splice(0))
        queued.resolve({ statusCode: 200, payload: JSON.stringify(error), functionError: 'Unhandled', executedVersion: this.version });
    }
    if (this.queue.length > 0) this.spawn();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.environments].map((env) => env.worker.terminate()));
    this.environments.clear();
  }

  get size(): number {
    return this.environments.size;
  }
}

interface FunctionState {
  readonly spec: FunctionSpec;
  readonly versions: Map<string, VersionRuntime>;
  readonly aliases: Map<string, { version: string; weights: Record<string, number> }>;
  nextVersion: number;
}

export class LambdaHost {
  private readonly functions = new Map<string, FunctionState>();
  private readonly logs = new Map<string, WriteStream>();
  private readonly faults: Fault[] = [];
  /** Invocation counts per function name (for benchmarks). */
  readonly invocations = new Map<string, number>();
  /** Invocations an injected fault hit, by its action. */
  readonly injectedFaults = new Map<Fault['action'], number>();
  readonly stats = new Map<string, number>();

  constructor(private readonly options: { readonly runtimeFile: string; readonly codeDir: string; readonly logDir?: string }) {}

  static arn(name: string, qualifier?: string): string {
    return `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name}${qualifier ? `:${qualifier}` : ''}`;
  }

  createFunction(spec: FunctionSpec): void {
    if (this.functions.has(spec.name))
      throw new LambdaServiceError('ResourceConflictException', `Function already exist: ${spec.name}`, 409);
    this.functions.set(spec.name, { spec, versions: new Map(), aliases: new Map(), nextVersion: 1 });
  }

  /** Publish a version: the bundle and environment as they are now, frozen. */
  publishVersion(name: string, overrides: { env?: Readonly<Record<string, string>>; bundle?: string } = {}): string {
    const fn = this.get(name);
    const version = String(fn.nextVersion++);
    const source = overrides.bundle ?? fn.spec.bundle;
    const target = join(this.options.codeDir, name, version, 'index.mjs');
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(source, target);
    if (existsSync(`${source}.map`)) copyFileSync(`${source}.map`, `${target}.map`);
    const env = {
      ...fn.spec.env,
      ...(overrides.env ?? {}),
      AWS_LAMBDA_FUNCTION_NAME: name,
      AWS_LAMBDA_FUNCTION_VERSION: version,
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.spec.memoryMb ?? 512),
      AWS_REGION: REGION,
      AWS_DEFAULT_REGION: REGION,
    };
    fn.versions.set(
      version,
      new VersionRuntime(name, version, target, fn.spec, env, this.options.runtimeFile, this.logFor(name), this.stats),
    );
    return version;
  }

  /** Create or update an alias: `version` gets the traffic not given to `weights` (version → 0..1). */
  setAlias(name: string, alias: string, version: string, weights: Record<string, number> = {}): void {
    const fn = this.get(name);
    for (const v of [version, ...Object.keys(weights)]) {
      if (!fn.versions.has(v))
        throw new LambdaServiceError('ResourceNotFoundException', `Function not found: ${LambdaHost.arn(name, v)}`, 404);
    }
    const total = Object.values(weights).reduce((a, b) => a + b, 0);
    if (total < 0 || total >= 1)
      throw new LambdaServiceError('InvalidParameterValueException', 'Additional version weights must add up to less than 1', 400);
    fn.aliases.set(alias, { version, weights: { ...weights } });
  }

  getAlias(name: string, alias: string): { version: string; weights: Record<string, number> } | undefined {
    return this.functions.get(name)?.aliases.get(alias);
  }

  versions(name: string): string[] {
    return [...this.get(name).versions.keys()];
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
    if (fn === undefined)
      return Promise.reject(new LambdaServiceError('ResourceNotFoundException', `Function not found: ${LambdaHost.arn(name, q)}`, 404));
    const version = this.resolveVersion(fn, q);
    if (version === undefined)
      return Promise.reject(new LambdaServiceError('ResourceNotFoundException', `Function not found: ${LambdaHost.arn(name, q)}`, 404));
    this.invocations.set(name, (this.invocations.get(name) ?? 0) + 1);
    const fault = this.takeFault(name, event);
    return new Promise((resolve) => {
      version.submit({ event, requestId: randomUUID(), invokedArn: LambdaHost.arn(name, q), resolve, fault });
    });
  }

  async stop(): Promise<void> {
    await Promise.all([...this.functions.values()].flatMap((fn) => [...fn.versions.values()].map((v) => v.stop())));
    for (const log of this.logs.values()) log.end();
  }

  private get(name: string): FunctionState {
    const fn = this.functions.get(name);
    if (fn === undefined) throw new LambdaServiceError('ResourceNotFoundException', `Function not found: ${LambdaHost.arn(name)}`, 404);
    return fn;
  }

  private resolveVersion(fn: FunctionState, qualifier: string | undefined): VersionRuntime | undefined {
    if (qualifier === undefined || qualifier === '$LATEST') {
      const latest = [...fn.versions.keys()].pop();
      return latest === undefined ? undefined : fn.versions.get(latest);
    }
    const alias = fn.aliases.get(qualifier);
    if (alias === undefined) return fn.versions.get(qualifier);
    let roll = Math.random();
    for (const [version, weight] of Object.entries(alias.weights)) {
      if (roll < weight) return fn.versions.get(version);
      roll -= weight;
    }
    return fn.versions.get(alias.version);
  }

  private takeFault(name: string, event: unknown): Fault | undefined {
    const index = this.faults.findIndex((f) => f.function === name && (f.match === undefined || f.match(event)));
    if (index < 0) return undefined;
    const fault = this.faults[index] as Fault;
    this.injectedFaults.set(fault.action, (this.injectedFaults.get(fault.action) ?? 0) + 1);
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) this.faults.splice(index, 1);
    return fault;
  }

  private logFor(name: string): WriteStream | undefined {
    if (this.options.logDir === undefined) return undefined;
    let log = this.logs.get(name);
    if (log === undefined) {
      mkdirSync(this.options.logDir, { recursive: true });
      log = createWriteStream(join(this.options.logDir, `${name}.log`), { flags: 'a' });
      this.logs.set(name, log);
    }
    return log;
  }
}

/** A successful invocation's result; its JSON payload is made only when someone reads it. */
function returned(value: unknown, executedVersion: string): InvokeResult {
  let payload: string | undefined;
  return {
    statusCode: 200,
    executedVersion,
    result: value,
    get payload() {
      return (payload ??= JSON.stringify(value));
    },
  };
}

/** Split "name", "name:qualifier" or an ARN into name and qualifier. */
export function parseRef(ref: string, qualifier?: string): { name: string; qualifier: string | undefined } {
  let rest = ref;
  if (rest.startsWith('arn:')) rest = rest.split(':function:')[1] ?? rest;
  const [name, q] = rest.split(':') as [string, string | undefined];
  return { name, qualifier: qualifier ?? q };
}
