/**
 * The conductor's client of the ramdisk agent (ironic-python-agent) command API, after Ironic's
 * `drivers/modules/agent_client.py`: `POST {agent_url}/v1/commands/?wait=…&agent_token=…` with
 * `{"name": "<extension>.<command>", "params": {…}}`, and `GET {agent_url}/v1/commands/` for the
 * status of every command the agent ran. A busy agent answers 409 (retried a few times); a wrong
 * token 401. Each request has a timeout, so a hung agent fails the call instead of the Lambda.
 */
import { readFileSync } from 'node:fs';
import { type IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { InvalidParameterValue, IronicError } from '#common/errors';
import { boolFromString, excerpt } from '#common/strutils';
import type { Node } from '#objects/node';
import { ActionRefused, beforeAction } from './guard';
import { type FetchPolicy, caPathAllowed } from './hosts';

/** A command as the agent reports it. */
export interface AgentCommand {
  readonly id?: string;
  readonly command_name: string;
  readonly command_status: 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CLEAN_VERSION_MISMATCH' | string;
  readonly command_error: unknown;
  readonly command_result: Record<string, unknown> | null;
}

/** Ironic's AgentAPIError: the agent answered with an HTTP error. */
export class AgentAPIError extends IronicError {
  constructor(
    node: string,
    readonly status: number | string,
    error: unknown,
  ) {
    super(`Agent API for node ${node} returned HTTP status code ${status} with error: ${excerpt(stringify(error))}`);
  }
}

/** Ironic's AgentInProgress: the agent is busy with another command (HTTP 409). */
export class AgentInProgress extends IronicError {
  constructor(node: string, command: string, error: unknown) {
    super(`Node ${node} command "${command}" failed. Agent is presently executing a command. Error ${excerpt(stringify(error))}`);
  }
}

/** Ironic's AgentConnectionFailed: no answer (refused, reset, timed out). */
export class AgentConnectionFailed extends IronicError {
  constructor(reason: string) {
    super(`Connection to agent failed: ${reason}`);
  }
}

function stringify(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export interface AgentClientOptions {
  /** Per request (Ironic `[agent]command_timeout`, 60 s). */
  readonly commandTimeoutMs: number;
  /** Attempts when the agent is busy (409) or unreachable (Ironic `[agent]max_command_attempts`, 3). */
  readonly attempts: number;
  /** Pause between attempts (Ironic `[agent]command_wait_interval`, 2 s). */
  readonly retryIntervalMs: number;
  /** The largest answer read from an agent; a command's status is a few kB. */
  readonly maxBodyBytes?: number;
  /** Hosts agents may be reached at, and CA folders (`./hosts.ts`); default: no restriction (unit tests). */
  readonly policy?: FetchPolicy;
  /** Ironic `[agent]verify_ca`: verify an agent's TLS certificate when nothing on the node says otherwise. */
  readonly verifyCa?: boolean;
  /** Injected for tests. */
  readonly sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_AGENT_CLIENT_OPTIONS: AgentClientOptions = { commandTimeoutMs: 60_000, attempts: 3, retryIntervalMs: 2_000 };

/** Default cap on an answer: generous for command results, small enough for a Lambda's memory. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Error code of a connection the host policy refused at connect time. */
const HOST_REFUSED = 'ERR_HOST_REFUSED';

/**
 * How to check the agent's certificate, after Ironic's `_get_verify`: the certificate the agent
 * sent with its heartbeat (`driver_internal_info/agent_verify_ca`, the PEM itself here, as a Lambda
 * keeps no files), else `driver_info/agent_verify_ca` (a boolean, or a CA file under an allowed
 * folder), else the conductor's default.
 */
export function agentTls(node: Node, policy: FetchPolicy | undefined, fallback: boolean): { rejectUnauthorized: boolean; ca?: string[] } {
  const sent = node.driver_internal_info.agent_verify_ca;
  const value = sent ?? node.driver_info.agent_verify_ca ?? fallback;
  if (typeof value === 'boolean') return { rejectUnauthorized: value };
  if (typeof value === 'string') {
    if (value.includes('-----BEGIN')) return { rejectUnauthorized: true, ca: [value] };
    const flag = boolFromString(value);
    if (flag !== undefined) return { rejectUnauthorized: flag };
    if (policy !== undefined && caPathAllowed(value, policy.caPaths))
      return { rejectUnauthorized: true, ca: [readFileSync(value, 'utf8')] };
  }
  throw new InvalidParameterValue(`Agent CA ${String(value)} is neither a path nor a boolean`);
}

export class AgentClient {
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly maxBodyBytes: number;

  constructor(private readonly options: AgentClientOptions = DEFAULT_AGENT_CLIENT_OPTIONS) {
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  }

  /**
   * Run `method` on the agent. With `wait` the agent answers when the command has finished and a
   * command error is raised as AgentAPIError; without, it answers at once with the RUNNING command.
   */
  async command(node: Node, method: string, params: Record<string, unknown>, wait = false): Promise<AgentCommand> {
    const url = this.url(node, { wait: String(wait) });
    const body = JSON.stringify({ name: method, params });
    for (let attempt = 1; ; attempt++) {
      try {
        const reply = await this.request(node, url, { method: 'POST', body }, `for invoking command ${method}`);
        if (reply.status >= 400) {
          const fault = faultOf(reply.body);
          if (reply.status === 409 || fault.toLowerCase().includes('agent is busy')) throw new AgentInProgress(node.uuid, method, fault);
          throw new AgentAPIError(node.uuid, reply.status, fault);
        }
        const result = reply.body as AgentCommand;
        if (typeof result !== 'object' || result === null || typeof result.command_status !== 'string') {
          throw new AgentAPIError(node.uuid, reply.status, `Invalid agent response for ${method}: ${JSON.stringify(reply.body)}`);
        }
        if (wait && result.command_error !== null && result.command_error !== undefined) {
          throw new AgentAPIError(node.uuid, reply.status, result.command_error);
        }
        return result;
      } catch (err) {
        const retry = err instanceof AgentInProgress || err instanceof AgentConnectionFailed;
        if (!retry || attempt >= this.options.attempts) throw err;
        await this.sleep(this.options.retryIntervalMs);
      }
    }
  }

  /** Every command the agent ran since it booted, oldest first. */
  async commandsStatus(node: Node): Promise<AgentCommand[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        const reply = await this.request(node, this.url(node, {}), { method: 'GET' }, 'to collect commands status');
        if (reply.status >= 400) throw new AgentAPIError(node.uuid, reply.status, faultOf(reply.body));
        const commands = (reply.body as { commands?: unknown })?.commands;
        if (!Array.isArray(commands)) throw new AgentAPIError(node.uuid, reply.status, 'Invalid agent response: no commands');
        return commands as AgentCommand[];
      } catch (err) {
        if (!(err instanceof AgentConnectionFailed) || attempt >= this.options.attempts) throw err;
        await this.sleep(this.options.retryIntervalMs);
      }
    }
  }

  /** The agent's latest command named `method` (e.g. `deploy.execute_deploy_step`), if any. */
  async lastCommand(node: Node, methods: readonly string[]): Promise<AgentCommand | undefined> {
    const commands = await this.commandsStatus(node);
    for (let i = commands.length - 1; i >= 0; i--) {
      const command = commands[i] as AgentCommand;
      if (methods.includes(command.command_name) || methods.some((m) => m.endsWith(`.${command.command_name}`))) return command;
    }
    return undefined;
  }

  private url(node: Node, query: Record<string, string>): string {
    const base = node.driver_internal_info.agent_url;
    if (typeof base !== 'string' || base === '') {
      throw new AgentConnectionFailed(`Agent driver requires agent_url in driver_internal_info (node ${node.uuid})`);
    }
    const params = new URLSearchParams(query);
    const token = node.driver_internal_info.agent_secret_token;
    if (typeof token === 'string' && token !== '') params.set('agent_token', token);
    const qs = params.toString();
    return `${base.replace(/\/+$/, '')}/v1/commands/${qs ? `?${qs}` : ''}`;
  }

  /**
   * One HTTP exchange with the agent, on `node:http(s)` rather than fetch: a CA per node (the
   * agent's own certificate) and a check of the addresses a name resolves to need the request
   * options fetch does not offer. Redirects are not followed (an agent never sends one), answers
   * larger than `maxBodyBytes` are cut off, and no request waits past the attempt's deadline.
   * `purpose` completes Ironic's message: "… running on node X for invoking command M. Error: …".
   */
  private async request(
    node: Node,
    url: string,
    init: { method: string; body?: string },
    purpose: string,
  ): Promise<{ status: number; body: unknown }> {
    const budgetMs = await beforeAction(node);
    const failed = (cause: string) =>
      new AgentConnectionFailed(`Failed to connect to the agent running on node ${node.uuid} ${purpose}. Error: ${cause}`);
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      throw failed(`invalid agent URL ${url}`);
    }
    if (this.options.policy !== undefined) {
      const refused = this.options.policy.bmc.refusedHost(target.hostname);
      if (refused !== undefined) throw new AgentAPIError(node.uuid, 'refused', `${refused} by the conductor's host policy`);
    }
    const isTls = target.protocol === 'https:';
    const tls = isTls ? agentTls(node, this.options.policy, this.options.verifyCa ?? true) : {};
    const timeoutMs = Math.min(this.options.commandTimeoutMs, budgetMs);
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const payload = init.body === undefined ? undefined : Buffer.from(init.body);
      const req = (isTls ? httpsRequest : httpRequest)(target, {
        method: init.method,
        agent: false,
        headers: payload ? { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) } : {},
        signal: AbortSignal.timeout(timeoutMs),
        ...(this.options.policy
          ? {
              lookup: this.options.policy.bmc.lookup((reason) =>
                Object.assign(new Error(`${reason} by the conductor's host policy`), { code: HOST_REFUSED }),
              ),
            }
          : {}),
        ...tls,
      });
      req.once('error', (err: NodeJS.ErrnoException) => {
        if (err.code === HOST_REFUSED) reject(new AgentAPIError(node.uuid, 'refused', err.message));
        else if (err.name === 'AbortError' || err.code === 'ABORT_ERR')
          // Cut short by the caller's deadline: the caller ran out of time, the agent did not fail.
          reject(
            timeoutMs < this.options.commandTimeoutMs
              ? new ActionRefused(
                  'deadline',
                  `The request to the agent of node ${node.uuid} was cut short by the deadline after ${timeoutMs / 1000} s`,
                )
              : failed(`timed out after ${timeoutMs / 1000} s`),
          );
        else reject(failed(err.code ?? err.message));
      });
      req.once('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > this.maxBodyBytes) {
            res.destroy();
            req.destroy();
            reject(new AgentAPIError(node.uuid, res.statusCode ?? 0, `The answer is larger than ${this.maxBodyBytes} bytes`));
          } else {
            chunks.push(chunk);
          }
        });
        res.once('error', (err) => reject(failed(err.message)));
        res.once('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      });
      req.end(payload);
    });
    if (status >= 300 && status < 400) {
      throw new AgentAPIError(node.uuid, status, 'The agent answered with a redirect, which the conductor does not follow');
    }
    try {
      return { status, body: text === '' ? {} : (JSON.parse(text) as unknown) };
    } catch {
      throw new AgentAPIError(node.uuid, status, `Unable to decode response as JSON: ${excerpt(text)}`);
    }
  }
}

function faultOf(body: unknown): string {
  const b = body as { faultstring?: unknown; message?: unknown; error?: unknown } | null;
  const fault = b?.faultstring ?? b?.message ?? b?.error ?? JSON.stringify(body);
  // What the agent says goes into last_error: a short excerpt, never a whole reflected body.
  return excerpt(String(fault));
}
