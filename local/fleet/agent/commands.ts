/**
 * The agent's command execution, as ironic-python-agent's ExecuteCommandMixin: commands are
 * `<extension>.<name>`, one at a time (a new one while the last is RUNNING is `AgentIsBusy`, 409),
 * synchronous ones finish inside the request, asynchronous ones run in the background and are
 * polled through `GET /v1/commands/`. Results keep IPA's field names and its quirks: a command
 * result names the command without its extension (`execute_deploy_step`), except a command that
 * failed before it started, which keeps the full name — Ironic matches results by the short name.
 */
import { randomUUID } from 'node:crypto';
import { AgentCrashed, AgentError, errors, type SerializedError, serializeError } from './errors';

export type CommandStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CLEAN_VERSION_MISMATCH';
export type Params = Record<string, unknown>;

/** One command: how it is called and what it does. */
export interface CommandSpec {
  /** sync: the result is in the response; async: the response says RUNNING and the work goes on. */
  readonly mode: 'sync' | 'async';
  /** Keyword arguments the command must get. */
  readonly required?: readonly string[];
  /** Keyword arguments it may get; with `extra`, it takes any other (Python's `**kwargs`). */
  readonly optional?: readonly string[];
  readonly extra?: boolean;
  /** Checks run before the command starts; an AgentError with status 400 answers the request. */
  readonly validate?: (params: Params) => void;
  readonly run: (params: Params, signal: AbortSignal) => unknown;
}

export type Extension = Readonly<Record<string, CommandSpec>>;

export interface SerializedResult {
  id: string;
  command_name: string;
  command_status: CommandStatus;
  command_error: SerializedError | null;
  command_result: unknown;
}

export class CommandResult {
  readonly id = randomUUID();
  status: CommandStatus = 'RUNNING';
  error: SerializedError | null = null;
  result: unknown = null;
  private finished!: () => void;
  /** Settles when the command is no longer RUNNING. */
  readonly done = new Promise<void>((resolve) => (this.finished = resolve));

  constructor(
    readonly name: string,
    readonly params: Params,
  ) {}

  succeed(result: unknown): void {
    this.result = result ?? null;
    this.status = 'SUCCEEDED';
    this.finished();
  }

  fail(error: unknown, status: CommandStatus = 'FAILED'): void {
    this.error = serializeError(error);
    this.result = null;
    this.status = status;
    this.finished();
  }

  serialize(): SerializedResult {
    return {
      id: this.id,
      command_name: this.name,
      command_status: this.status,
      command_error: this.error,
      command_result: this.result,
    };
  }
}

/** What Python says when keyword arguments do not fit a function's signature. */
function signatureError(name: string, spec: CommandSpec, params: Params): TypeError | undefined {
  const missing = (spec.required ?? []).filter((k) => !(k in params));
  if (missing.length > 0) {
    const names = missing.map((k) => `'${k}'`).join(' and ');
    return new TypeError(`${name}() missing ${missing.length} required positional argument${missing.length > 1 ? 's' : ''}: ${names}`);
  }
  if (spec.extra) return undefined;
  const known = new Set([...(spec.required ?? []), ...(spec.optional ?? [])]);
  const unexpected = Object.keys(params).find((k) => !known.has(k));
  return unexpected === undefined ? undefined : new TypeError(`${name}() got an unexpected keyword argument '${unexpected}'`);
}

export interface RunnerHooks {
  /** Called as a command is about to start (fault injection: a crash on a named command). */
  beforeCommand?(fullName: string, params: Params): void;
  /** An error the command fails with instead of running (fault injection: a failing command). */
  injectedFailure?(fullName: string): Error | undefined;
  /** Called when an asynchronous command finishes (IPA forces a heartbeat then). */
  afterAsync?(result: CommandResult): void;
}

export class CommandRunner {
  readonly results: CommandResult[] = [];
  private readonly abort = new AbortController();

  constructor(
    private readonly extensions: Readonly<Record<string, Extension>>,
    private readonly hooks: RunnerHooks = {},
  ) {}

  get(id: string): CommandResult {
    const found = this.results.find((r) => r.id === id);
    if (!found) throw errors.notFound('Command Result', id);
    return found;
  }

  /** Abandon whatever runs (the agent is going away): running commands never finish. */
  stop(): void {
    this.abort.abort();
  }

  /**
   * Start a command. Throws AgentError for what IPA answers with an HTTP error (bad name, unknown
   * extension or command, invalid parameters, busy); every other failure is a FAILED result.
   */
  async execute(fullName: string, params: Params): Promise<CommandResult> {
    const dot = fullName.indexOf('.');
    if (dot < 0) throw errors.invalidCommand('Command name must be of the form <extension>.<name>');
    const last = this.results.at(-1);
    if (last && last.status === 'RUNNING') throw errors.busy(last.name);
    const [extName, cmdName] = [fullName.slice(0, dot), fullName.slice(dot + 1)];
    const extension = this.extensions[extName];
    if (!extension) throw errors.notFound('Extension', extName);
    const spec = Object.hasOwn(extension, cmdName) ? extension[cmdName] : undefined;
    if (!spec) throw errors.invalidCommand(`Unknown command: ${cmdName}`);
    let result: CommandResult;
    try {
      spec.validate?.(params);
      this.hooks.beforeCommand?.(fullName, params);
      const run: CommandSpec['run'] = (p, signal) => {
        const injected = this.hooks.injectedFailure?.(fullName);
        if (injected) throw injected;
        return spec.run(p, signal);
      };
      const guarded = { ...spec, run };
      result = spec.mode === 'sync' ? await this.runSync(cmdName, guarded, params) : this.startAsync(cmdName, guarded, params);
    } catch (err) {
      if ((err instanceof AgentError && err.status === 400) || err instanceof AgentCrashed) throw err;
      result = new CommandResult(fullName, params);
      result.fail(err);
    }
    this.results.push(result);
    return result;
  }

  private async runSync(name: string, spec: CommandSpec, params: Params): Promise<CommandResult> {
    const typeError = signatureError(name, spec, params);
    if (typeError) throw typeError;
    const value = await spec.run(params, this.abort.signal);
    const result = new CommandResult(name, params);
    result.succeed(typeof value === 'string' ? { result: value } : value);
    return result;
  }

  private startAsync(name: string, spec: CommandSpec, params: Params): CommandResult {
    const result = new CommandResult(name, params);
    const work = async () => {
      const typeError = signatureError(name, spec, params);
      if (typeError) throw typeError;
      return spec.run(params, this.abort.signal);
    };
    void work().then(
      (value) => {
        if (this.abort.signal.aborted) return;
        result.succeed(typeof value === 'string' ? { result: `${name}: ${value}` } : value);
        this.hooks.afterAsync?.(result);
      },
      (err: unknown) => {
        if (this.abort.signal.aborted) return;
        if (err instanceof AgentError && err.type === 'VersionMismatch') result.fail(err, 'CLEAN_VERSION_MISMATCH');
        else result.fail(err instanceof AgentError ? err : errors.commandExecution(err instanceof Error ? err.message : String(err)));
        this.hooks.afterAsync?.(result);
      },
    );
    return result;
  }
}
