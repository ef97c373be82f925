/**
 * The conductor's client of the ramdisk agent (ironic-python-agent) command API, after Ironic's
 * `drivers/modules/agent_client.py`: `POST {agent_url}/v1/commands/?wait=…&agent_token=…` with
 * `{"name": "<extension>.<command>", "params": {…}}`, and `GET {agent_url}/v1/commands/` for the
 * status of every command the agent ran. A busy agent answers 409 (retried a few times); a wrong
 * token 401. Each request has a timeout, so a hung agent fails the call instead of the Lambda.
 */
import { IronicError } from '#common/errors';
import type { Node } from '#objects/node';

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
    super(`Agent API for node ${node} returned HTTP status code ${status} with error: ${stringify(error)}`);
  }
}

/** Ironic's AgentInProgress: the agent is busy with another command (HTTP 409). */
export class AgentInProgress extends IronicError {
  constructor(node: string, command: string, error: unknown) {
    super(`Node ${node} command "${command}" failed. Agent is presently executing a command. Error ${stringify(error)}`);
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
  /** Injected for tests. */
  readonly fetch?: typeof fetch;
  readonly sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_AGENT_CLIENT_OPTIONS: AgentClientOptions = { commandTimeoutMs: 60_000, attempts: 3, retryIntervalMs: 2_000 };

export class AgentClient {
  private readonly fetch: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: AgentClientOptions = DEFAULT_AGENT_CLIENT_OPTIONS) {
    this.fetch = options.fetch ?? globalThis.fetch;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
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
        const reply = await this.request(
          node,
          url,
          { method: 'POST', body, headers: { 'Content-Type': 'application/json' } },
          `for invoking command ${method}`,
        );
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

  /** `purpose` completes Ironic's message: "… running on node X for invoking command M. Error: …". */
  private async request(node: Node, url: string, init: RequestInit, purpose: string): Promise<{ status: number; body: unknown }> {
    let response: Response;
    let text: string;
    try {
      response = await this.fetch(url, { ...init, signal: AbortSignal.timeout(this.options.commandTimeoutMs) });
      text = await response.text();
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      throw new AgentConnectionFailed(`Failed to connect to the agent running on node ${node.uuid} ${purpose}. Error: ${cause}`);
    }
    try {
      return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as unknown) };
    } catch {
      throw new AgentAPIError(node.uuid, response.status, `Unable to decode response as JSON: ${text.slice(0, 200)}`);
    }
  }
}

function faultOf(body: unknown): string {
  const b = body as { faultstring?: unknown; message?: unknown; error?: unknown } | null;
  const fault = b?.faultstring ?? b?.message ?? b?.error ?? JSON.stringify(body);
  return String(fault);
}
