/**
 * A small ironic-python-agent test double for unit tests: the agent's command API on a loopback
 * port (`POST /v1/commands/?wait=…&agent_token=…`, `GET /v1/commands/`), with the answers a real
 * agent gives — 401 for a wrong token, 409 while a command runs — and steps a test finishes by hand.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeCommand {
  id: string;
  command_name: string;
  command_status: 'RUNNING' | 'SUCCEEDED' | 'FAILED';
  command_error: unknown;
  command_result: Record<string, unknown> | null;
  params: Record<string, unknown>;
}

export class FakeIpa {
  readonly commands: FakeCommand[] = [];
  readonly requests: { method: string; url: string; name?: string; params?: Record<string, unknown> }[] = [];
  token = 'agent-token';
  /** Steps `get_deploy_steps` / `get_clean_steps` report. */
  deploySteps: Record<string, unknown>[] = [];
  cleanSteps: Record<string, unknown>[] = [];
  hardwareManagerVersion: Record<string, string> = { generic_hardware_manager: '1.2' };
  /** Answer the next N command posts with 409 as if busy. */
  busyReplies = 0;
  /** Never answer (a hung agent). */
  hang = false;
  /** What `standby.get_partition_uuids` answers. */
  partitionUuids: Record<string, unknown> = {};
  /** Set by `system.lockdown`: the agent answered it, then stopped serving (as IPA disables itself). */
  lockedDown = false;
  /** Answer `system.lockdown` but keep running (an agent that cannot lock itself down). */
  ignoreLockdown = false;
  /** What `log.collect_system_logs` answers as `system_logs` (base64 of a gzipped tar); none when undefined. */
  systemLogs: string | undefined = undefined;
  /** `image.install_bootloader` ends FAILED with this error, when set. */
  bootloaderError: unknown = undefined;
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** Finish the running command (an in-band step) as the agent would, with what it returned (`{clean_result: …}`). */
  finish(status: 'SUCCEEDED' | 'FAILED', error: unknown = null, result: Record<string, unknown> = {}): FakeCommand {
    const running = this.commands.find((c) => c.command_status === 'RUNNING');
    if (running === undefined) throw new Error('FakeIpa: no running command');
    running.command_status = status;
    running.command_error = error;
    running.command_result = { ...running.command_result, ...result };
    return running;
  }

  /** A reboot: a new agent process, with no commands. */
  reboot(): void {
    this.commands.length = 0;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.hang) return;
    const url = new URL(req.url ?? '/', 'http://x');
    let body = '';
    for await (const chunk of req) body += chunk;
    const send = (status: number, value: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (url.searchParams.get('agent_token') !== this.token) {
      this.requests.push({ method: req.method ?? '', url: url.pathname });
      return send(401, { faultcode: 'Client', faultstring: 'Invalid or missing agent token received.' });
    }
    if (req.method === 'GET' && url.pathname === '/v1/commands/') {
      this.requests.push({ method: 'GET', url: url.pathname });
      return send(200, { commands: this.commands.map(({ params: _params, ...c }) => c) });
    }
    if (req.method !== 'POST' || url.pathname !== '/v1/commands/') return send(404, { faultstring: 'Not found' });
    const { name, params } = JSON.parse(body) as { name: string; params: Record<string, unknown> };
    this.requests.push({ method: 'POST', url: url.pathname, name, params });
    if (this.busyReplies > 0 || this.commands.some((c) => c.command_status === 'RUNNING')) {
      if (this.busyReplies > 0) this.busyReplies--;
      return send(409, { faultcode: 'Client', faultstring: 'Agent is busy' });
    }
    const [, command] = name.split('.') as [string, string];
    const result = this.runCommand(command, params);
    const failed = command === 'install_bootloader' && this.bootloaderError !== undefined;
    const entry: FakeCommand = {
      id: `c${this.commands.length}`,
      command_name: command,
      command_error: failed ? this.bootloaderError : null,
      params,
      ...result,
      ...(failed ? { command_status: 'FAILED' as const } : {}),
    };
    this.commands.push(entry);
    const { params: _params, ...reply } = entry;
    send(200, reply);
    if (name === 'system.lockdown' && !this.ignoreLockdown) {
      this.lockedDown = true;
      res.on('finish', () => void this.stop());
    }
  }

  private runCommand(command: string, params: Record<string, unknown>): Pick<FakeCommand, 'command_status' | 'command_result'> {
    switch (command) {
      case 'get_deploy_steps':
        return {
          command_status: 'SUCCEEDED',
          command_result: {
            deploy_steps: { GenericHardwareManager: this.deploySteps },
            hardware_manager_version: this.hardwareManagerVersion,
          },
        };
      case 'get_clean_steps':
        return {
          command_status: 'SUCCEEDED',
          command_result: {
            clean_steps: { GenericHardwareManager: this.cleanSteps },
            hardware_manager_version: this.hardwareManagerVersion,
          },
        };
      case 'execute_deploy_step':
        return { command_status: 'RUNNING', command_result: { deploy_step: params.step } };
      case 'execute_clean_step':
        return { command_status: 'RUNNING', command_result: { clean_step: params.step } };
      case 'collect_system_logs':
        return { command_status: 'SUCCEEDED', command_result: this.systemLogs === undefined ? {} : { system_logs: this.systemLogs } };
      case 'get_partition_uuids':
        return { command_status: 'SUCCEEDED', command_result: this.partitionUuids };
      default:
        return { command_status: 'SUCCEEDED', command_result: {} };
    }
  }
}
