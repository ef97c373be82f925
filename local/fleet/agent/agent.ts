/**
 * A virtual ironic-python-agent running "on" a virtual machine: it looks its node up by the
 * machine's MACs until Ironic knows it, keeps the one-time agent token, serves the command API on
 * its own loopback port and heartbeats every `heartbeat_timeout × U(0.3, 0.6)` (or a configured
 * interval), and sooner once an asynchronous command finishes — as IPA does. Configured to inspect
 * (`inspectionCallbackUrl`), it first posts the machine's inventory to Ironic's continue_inspection
 * endpoint, as IPA does at boot. Faults come from the machine (`machine.agentFaults`): crash, hang,
 * failing step (or `inspect`), bad checksum, version change.
 */
import { EventEmitter } from 'node:events';
import type { VirtualMachine } from '../machine';
import { IronicApiClient, type LookupResult } from './api-client';
import { CommandRunner } from './commands';
import { AgentCrashed, errors } from './errors';
import { buildExtensions } from './extensions';
import { type HardwareOptions, VirtualHardware } from './hardware';
import { DEFAULT_COLLECTORS, inspectionData } from './inventory';
import { CommandApiServer } from './server';

/** The IPA release of Ironic 21.4's (2023.1) series, which this agent speaks as. */
export const DEFAULT_AGENT_VERSION = '9.4.3';

export interface AgentOptions {
  readonly machine: VirtualMachine;
  /** Ironic's API (`ipa-api-url`). */
  readonly apiUrl: string;
  /** Where the command API listens; default 127.0.0.1 and any free port. */
  readonly host?: string;
  readonly port?: number;
  readonly agentVersion?: string;
  /** Sent with lookups when known (IPA sends one when inspection found it). */
  readonly nodeUuid?: string;
  /** Skip version discovery and speak this API version (IPA's `ipa-api-version`). */
  readonly apiVersion?: string;
  /** Heartbeat this often instead of `heartbeat_timeout × U(0.3, 0.6)`. */
  readonly heartbeatIntervalMs?: number;
  /** A heartbeat forced by a finished command waits this long after the last one; default 5000 (IPA). */
  readonly forcedHeartbeatGapMs?: number;
  /** Lookup retries: random exponential waits from this (default 1000) up to the max (default 60000). */
  readonly lookupIntervalMs?: number;
  readonly lookupMaxIntervalMs?: number;
  /** Give up looking up after this long (default 300000, IPA's lookup_timeout): the agent exits. */
  readonly lookupTimeoutMs?: number;
  /** How long after power_off/run_image answers the machine goes down; default 50 ms. */
  readonly shutdownDelayMs?: number;
  readonly hardware?: HardwareOptions;
  readonly log?: (line: string) => void;
  /**
   * IPA's `ipa-inspection-callback-url`: where to post the inventory at boot, before looking up
   * (an ISO built for in-band inspection). IPA posts at every boot; a 404 (no inspection waits
   * for this machine) is logged and the agent goes on to look up, as IPA does.
   */
  readonly inspectionCallbackUrl?: string;
  /** IPA's `ipa-inspection-collectors` (default "default,logs"); with it alone the URL is `<apiUrl>/v1/continue_inspection`. */
  readonly inspectionCollectors?: string;
  /** The first wait before posting again after a 5xx, 409 or connection error (IPA: 5000 ms, growing to 30000, 5 attempts). */
  readonly inspectionRetryMs?: number;
}

export type AgentState = 'booting' | 'looking-up' | 'running' | 'rescued' | 'locked-down' | 'crashed' | 'lookup-failed' | 'stopped';

interface AgentEvents {
  state: [AgentState];
  heartbeat: [{ ok: boolean; error?: string }];
}

const LOG_LINES = 200;

export class VirtualAgent extends EventEmitter<AgentEvents> {
  readonly machine: VirtualMachine;
  readonly version: string;
  readonly hardware: VirtualHardware;
  readonly runner: CommandRunner;
  state: AgentState = 'booting';
  /** The node and config lookup found. */
  lookup: LookupResult | undefined;
  /** `http://host:port` once the command API listens. */
  callbackUrl = '';
  port: number | undefined;
  heartbeats = 0;
  private token: string | undefined;
  private tokenRequired = false;
  private readonly api: IronicApiClient;
  private readonly server: CommandApiServer;
  private readonly startedAt = Date.now() / 1000;
  private timer: NodeJS.Timeout | undefined;
  private dueAt: number | undefined;
  /** Ends the wait between lookups early (the agent is going away). */
  private wake: (() => void) | undefined;
  private previousHeartbeat = 0;
  private interval = 0;
  /** When a heartbeat was last asked for out of turn (0: none pending). */
  private forcedAt = 0;
  private beating = false;
  private readonly lines: string[] = [];
  private readonly onFaults = () => {
    if (this.machine.agentFaults.crash === true) this.die('crash fault injected');
  };

  constructor(private readonly options: AgentOptions) {
    super();
    this.machine = options.machine;
    const changed = this.machine.agentVersionAtBoot();
    this.version = changed ?? options.agentVersion ?? DEFAULT_AGENT_VERSION;
    this.hardware = new VirtualHardware(this.machine, () => this.machine.agentFaults, changed, options.hardware);
    this.api = new IronicApiClient(options.apiUrl, { apiVersion: options.apiVersion });
    this.runner = new CommandRunner(
      buildExtensions({
        hardware: this.hardware,
        beforeStep: (name) => this.crashIfNamed(name),
        shutdown: (reboot) => this.osShutdown(reboot),
        finalizeRescue: () => this.later(() => this.finalizeRescue()),
        lockdown: () => this.later(() => this.lockdown()),
        logLines: () => this.lines,
      }),
      {
        beforeCommand: (name) => this.crashIfNamed(name),
        injectedFailure: (name) =>
          this.machine.agentFaults.failStep === name
            ? errors.commandExecution(`Injected failure of command ${name} on ${this.machine.id}`)
            : undefined,
        afterAsync: () => this.forceHeartbeat(),
      },
    );
    this.server = new CommandApiServer({
      runner: this.runner,
      validToken: (token) => this.validToken(token),
      status: () => ({ started_at: this.startedAt, version: this.version }),
    });
  }

  get alive(): boolean {
    return this.state === 'booting' || this.state === 'looking-up' || this.state === 'running';
  }

  get nodeUuid(): string | undefined {
    return this.lookup?.node.uuid;
  }

  /** Boot: look up (retrying), then serve and heartbeat. Resolves once serving (or dead). */
  async start(): Promise<void> {
    this.machine.on('agentFaults', this.onFaults);
    this.log(`ironic-python-agent ${this.version} starting on ${this.machine.id}`);
    if (this.machine.agentFaults.crash === true) return this.die('crash fault injected');
    this.setState('looking-up');
    const inspected = await this.inspect();
    if (!this.alive) return;
    const found = await this.lookupUntilFound(inspected);
    if (!found || !this.alive) return;
    this.processLookup(found);
    const host = this.options.host ?? '127.0.0.1';
    try {
      this.port = await this.server.start(host, this.options.port ?? 0);
    } catch (err) {
      // The port this machine's agent had before is taken by something else now: take any.
      if ((err as { code?: string }).code !== 'EADDRINUSE' || !this.options.port) throw err;
      this.port = await this.server.start(host, 0);
    }
    if (!this.alive) return void this.server.stop();
    this.callbackUrl = `http://${host.includes(':') ? `[${host}]` : host}:${this.port}`;
    this.setState('running');
    this.schedule(0);
  }

  /** The machine powers off: everything stops. */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    await this.halt('stopped');
  }

  /** The agent process dies; the machine stays on. */
  die(reason: string): void {
    if (!this.alive) return;
    this.log(`agent crashed: ${reason}`);
    void this.halt('crashed');
  }

  forceHeartbeat(): void {
    if (this.state !== 'running') return;
    this.forcedAt = Date.now();
    const gap = this.options.forcedHeartbeatGapMs ?? 5000;
    this.schedule(Math.max(0, this.previousHeartbeat + gap - Date.now()));
  }

  private async halt(state: AgentState): Promise<void> {
    this.setState(state);
    this.machine.off('agentFaults', this.onFaults);
    clearTimeout(this.timer);
    this.wake?.();
    this.runner.stop();
    await this.server.stop();
  }

  private setState(state: AgentState): void {
    this.state = state;
    this.emit('state', state);
  }

  private log(line: string): void {
    const stamped = `${new Date().toISOString()} ${line}`;
    this.lines.push(stamped);
    if (this.lines.length > LOG_LINES) this.lines.shift();
    this.options.log?.(`[agent ${this.machine.id}] ${line}`);
  }

  private later(fn: () => void): void {
    setTimeout(fn, this.options.shutdownDelayMs ?? 50).unref();
  }

  private crashIfNamed(name: string): void {
    const crash = this.machine.agentFaults.crash;
    if (typeof crash !== 'string') return;
    if (crash === name || crash === name.split('.').pop()) {
      this.die(`crash fault injected at ${name}`);
      throw new AgentCrashed(name);
    }
  }

  private osShutdown(reboot: boolean): void {
    this.log(reboot ? 'Rebooting system' : 'Powering off system');
    this.later(() => this.machine.osShutdown(reboot));
  }

  private finalizeRescue(): void {
    this.log('rescue finalized: stopping the API and heartbeats');
    void this.halt('rescued');
  }

  /** IPA's system.lockdown: the agent disables itself; the machine stays on until it is rebooted. */
  private lockdown(): void {
    this.log('locked down: stopping the API and heartbeats');
    void this.halt('locked-down');
  }

  private validToken(token: string | null): boolean {
    // IPA lets a token-less request through only while the conductor does not require tokens.
    if (!token && this.token && !this.tokenRequired) return true;
    return (this.token ?? null) === (token || null);
  }

  /**
   * IPA's `inspector.inspect()`: when the agent is configured to inspect, collect the data and post
   * it (retrying 5xx, 409 and connection errors up to five times, waits growing from
   * `inspectionRetryMs`). Returns the node UUID the answer names (`uuid`, or `node.uuid` from API
   * 1.84), which the lookup then sends; undefined when there is none.
   */
  private async inspect(): Promise<string | undefined> {
    const { inspectionCallbackUrl, inspectionCollectors } = this.options;
    const url =
      inspectionCallbackUrl ?? (inspectionCollectors ? `${this.options.apiUrl.replace(/\/+$/, '')}/v1/continue_inspection` : undefined);
    if (url === undefined) return undefined;
    const failure =
      this.machine.agentFaults.failStep === 'inspect'
        ? `collector default failed: injected failure of inspection on ${this.machine.id}`
        : undefined;
    const data = inspectionData(this.machine, {
      collectors: inspectionCollectors ?? DEFAULT_COLLECTORS,
      logLines: () => this.lines,
      managers: this.hardware.versions(),
      ...(failure !== undefined ? { failure } : {}),
    });
    this.log(`inspection is enabled: posting the collected data to ${url}`);
    let wait = this.options.inspectionRetryMs ?? 5000;
    for (let attempt = 1; this.alive; attempt++) {
      const outcome = await this.api.postInspectionData(url, data);
      if (outcome.ok) {
        this.log('inspection finished successfully');
        const body = outcome.body as { uuid?: unknown; node?: { uuid?: unknown } };
        const uuid = body.uuid ?? body.node?.uuid;
        return typeof uuid === 'string' ? uuid : undefined;
      }
      if (!outcome.retry || attempt >= 5) {
        this.log(`inspector ${url} error: ${outcome.error}, proceeding with lookup`);
        return undefined;
      }
      this.log(`posting the inspection data failed (${outcome.error}); trying again in ${wait} ms`);
      await this.pause(wait);
      wait = Math.min(wait * 1.5, 6 * (this.options.inspectionRetryMs ?? 5000));
    }
    return undefined;
  }

  /** Sleep, unless the agent goes away meanwhile. */
  private async pause(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(resolve, ms);
    });
    this.wake = undefined;
  }

  private async lookupUntilFound(inspectedUuid?: string): Promise<LookupResult | undefined> {
    const addresses = this.machine.spec.nics.filter((n) => n.enabled).map((n) => n.mac);
    const deadline = Date.now() + (this.options.lookupTimeoutMs ?? 300_000);
    const min = this.options.lookupIntervalMs ?? 1000;
    const max = this.options.lookupMaxIntervalMs ?? 60_000;
    for (let attempt = 0; this.alive; attempt++) {
      const outcome = await this.api.lookup(addresses, this.options.nodeUuid ?? inspectedUuid);
      if ('found' in outcome) return outcome.found;
      if (!this.alive) return undefined;
      this.log(`lookup: ${outcome.retry}`);
      if (Date.now() >= deadline) {
        this.log('Could not look up node info. Check logs for details.');
        await this.halt('lookup-failed');
        return undefined;
      }
      // tenacity's wait_random_exponential: uniform in [min, min(max, min × 2^attempt)].
      const ceiling = Math.min(max, min * 2 ** attempt);
      const wait = outcome.conflict ? Math.max(min, Math.min(max, 5000)) : min + Math.random() * (ceiling - min);
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.timer = setTimeout(resolve, Math.min(wait, Math.max(0, deadline - Date.now())));
      });
      this.wake = undefined;
    }
    return undefined;
  }

  private processLookup(found: LookupResult): void {
    this.lookup = found;
    const { agent_token: token, agent_token_required: required } = found.config;
    if (required) this.tokenRequired = true;
    if (typeof token === 'string' && token.length >= 32) this.token = token;
    else if (token === '******') this.log('The agent token has already been retrieved; this agent cannot get it.');
    this.api.agentToken = this.token;
    this.log(`looked up node ${found.node.uuid}; heartbeat_timeout ${String(found.config.heartbeat_timeout)}`);
  }

  private nextInterval(): number {
    if (this.options.heartbeatIntervalMs !== undefined) return this.options.heartbeatIntervalMs;
    const timeout = Number(this.lookup?.config.heartbeat_timeout ?? 300);
    return timeout * 1000 * (0.3 + Math.random() * 0.3);
  }

  private schedule(delayMs: number): void {
    if (this.state !== 'running') return;
    const due = Date.now() + delayMs;
    // Keep an earlier heartbeat already due rather than postponing it.
    if (this.timer !== undefined && this.dueAt !== undefined && this.dueAt <= due) return;
    clearTimeout(this.timer);
    this.dueAt = due;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.dueAt = undefined;
      void this.beat();
    }, delayMs);
  }

  private async beat(): Promise<void> {
    if (this.state !== 'running') return;
    if (this.beating) return;
    if (this.machine.agentFaults.hang) {
      // Hung: no heartbeat; look again later, so clearing the fault brings it back.
      this.interval = this.nextInterval();
      this.schedule(this.interval);
      return;
    }
    this.beating = true;
    const sentAt = Date.now();
    const uuid = this.lookup?.node.uuid as string;
    const outcome = await this.api.heartbeat(uuid, this.callbackUrl, this.version);
    this.beating = false;
    if (this.state !== 'running') return;
    if (outcome.ok) {
      this.heartbeats++;
      // A command that finished while this heartbeat was under way still needs one of its own.
      if (this.forcedAt !== 0 && this.forcedAt < sentAt) this.forcedAt = 0;
      this.previousHeartbeat = Date.now();
    } else {
      this.log(`${outcome.conflict ? 'conflict error' : 'error'} sending heartbeat to ${this.options.apiUrl}: ${outcome.error}`);
    }
    this.emit('heartbeat', outcome.ok ? { ok: true } : { ok: false, error: outcome.error });
    this.interval = this.nextInterval();
    const gap = this.options.forcedHeartbeatGapMs ?? 5000;
    this.schedule(this.forcedAt !== 0 ? Math.min(this.interval, Math.max(0, this.previousHeartbeat + gap - Date.now())) : this.interval);
  }

  /** For tests and the fleet's control API. */
  describe(): Record<string, unknown> {
    return {
      state: this.state,
      version: this.version,
      node_uuid: this.nodeUuid ?? null,
      callback_url: this.callbackUrl || null,
      heartbeats: this.heartbeats,
      commands: this.runner.results.map((r) => ({ command_name: r.name, command_status: r.status })),
    };
  }
}
