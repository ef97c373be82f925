/**
 * Execution environments of one function version (or of $LATEST): worker threads that each import
 * the version's bundle once (the cold start), then run one invocation at a time with the
 * environment the version was published with. Crashes and timeouts end the worker and answer as
 * Lambda answers them; injected faults (lambda-host.ts `Fault`) arrive with the invocation.
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ErrorPayload } from './lambda-runtime';

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

/** What an injected fault does to the invocation it hits (see lambda-host.ts `Fault`). */
export interface InvocationFault {
  readonly action: 'crash' | 'timeout';
  readonly afterMs?: number;
}

/** The flags of a NODE_OPTIONS value, as the Lambda runtime passes them to node. */
export function nodeOptions(value: string | undefined): string[] {
  return (value ?? '').split(/\s+/).filter((flag) => flag !== '');
}

/** What one version runs: its code, handler, limits and frozen environment. */
export interface RuntimeConfig {
  readonly bundle: string;
  readonly handler: string;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  readonly maxConcurrency: number;
  readonly env: Readonly<Record<string, string>>;
}

export interface Pending {
  readonly event: unknown;
  readonly requestId: string;
  readonly invokedArn: string;
  readonly resolve: (result: InvokeResult) => void;
  readonly fault: InvocationFault | undefined;
}

interface Environment {
  readonly worker: Worker;
  busy: Pending | undefined;
  ready: boolean;
  timer: NodeJS.Timeout | undefined;
  nextId: number;
  /** When the invocation it runs was handed to it (performance.now()). */
  startedAt: number;
}

export class VersionRuntime {
  private readonly environments = new Set<Environment>();
  private readonly queue: Pending[] = [];

  constructor(
    readonly functionName: string,
    readonly version: string,
    readonly config: RuntimeConfig,
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
    if (this.environments.size < this.config.maxConcurrency && starting < this.queue.length) this.spawn();
  }

  private spawn(): void {
    const worker = new Worker(this.runtimeFile, {
      env: { ...this.config.env },
      // Lambda starts node with the options NODE_OPTIONS names and no others. Without this a worker
      // inherits the host's own flags — tsx's module hooks under `npm start` and the benchmarks —
      // and every cold start runs the 2 MB bundle through them (about a CPU second each).
      execArgv: nodeOptions(this.config.env.NODE_OPTIONS),
      workerData: {
        bundle: this.config.bundle,
        handler: this.config.handler,
        functionName: this.functionName,
        functionVersion: this.version,
        memoryMb: this.config.memoryMb,
      },
      stdout: true,
      stderr: true,
    });
    const env: Environment = { worker, busy: undefined, ready: false, timer: undefined, nextId: 1, startedAt: 0 };
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
        // What Lambda bills: the invocation's duration in its environment (the benchmarks' cost figures).
        this.stats.set(
          `durationMs:${this.functionName}`,
          (this.stats.get(`durationMs:${this.functionName}`) ?? 0) + performance.now() - env.startedAt,
        );
        this.finish(env);
        pending.resolve(
          message.ok
            ? returned(message.result ?? null, this.version)
            : { statusCode: 200, payload: JSON.stringify(message.error), functionError: 'Unhandled', executedVersion: this.version },
        );
        this.next(env);
      }
    });
    // A runtime whose init failed posts the error, then throws: its 'error' event can overtake the
    // message, so an environment not yet ready waits a moment for the init error to say why.
    const exited = (error: ErrorPayload) => {
      if (env.ready) this.fail(env, error);
      else setTimeout(() => this.fail(env, error), 50);
    };
    worker.on('error', (err) =>
      exited({ errorType: 'Runtime.ExitError', errorMessage: `Runtime exited with error: ${err.message}`, trace: [] }),
    );
    worker.on('exit', (code) =>
      exited({ errorType: 'Runtime.ExitError', errorMessage: `Runtime exited with error: exit status ${code}`, trace: [] }),
    );
  }

  private run(env: Environment, pending: Pending): void {
    env.busy = pending;
    env.startedAt = performance.now();
    const deadline = Date.now() + this.config.timeoutSeconds * 1000;
    const timedOut = () =>
      this.fail(env, {
        errorType: 'Sandbox.Timedout',
        errorMessage: `${pending.requestId} Task timed out after ${this.config.timeoutSeconds.toFixed(2)} seconds`,
        trace: [],
      });
    env.timer = setTimeout(timedOut, this.config.timeoutSeconds * 1000);
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

/** One log file per function (`<logDir>/<name>.log`), opened on first use. */
export class FunctionLogs {
  private readonly logs = new Map<string, WriteStream>();

  constructor(private readonly logDir: string | undefined) {}

  for(name: string): WriteStream | undefined {
    if (this.logDir === undefined) return undefined;
    let log = this.logs.get(name);
    if (log === undefined) {
      mkdirSync(this.logDir, { recursive: true });
      log = createWriteStream(join(this.logDir, `${name}.log`), { flags: 'a' });
      this.logs.set(name, log);
    }
    return log;
  }

  end(): void {
    for (const log of this.logs.values()) log.end();
  }
}
