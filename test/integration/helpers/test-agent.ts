/**
 * An IPA-protocol test agent for integration tests of the conductor side (the virtual agent of
 * `local/fleet` is built elsewhere): the command API of the unit tests' test double, plus the
 * agent's loop against a real API — lookup until the node may be looked up, then heartbeats with
 * the token; a rejected heartbeat (token wiped by a reboot) means look up again. Running steps
 * finish by themselves after `stepMs`, or fail, or the agent stops heartbeating (hang).
 */
import { FakeIpa } from '../../unit/helpers/fake-ipa';

export interface TestAgentOptions {
  readonly api: string;
  readonly node: string;
  readonly heartbeatMs?: number;
  readonly stepMs?: number;
  readonly version?: string;
}

export class TestAgent extends FakeIpa {
  /** Fail the step with this name instead of finishing it. */
  failStep: string | undefined;
  /** Stop heartbeating once this step has started. */
  hangAtStep: string | undefined;
  hung = false;
  readonly lookups: { status: number; token: unknown }[] = [];
  readonly heartbeats: number[] = [];
  private timer: NodeJS.Timeout | undefined;
  private agentToken: string | undefined;
  private stopped = false;

  constructor(private readonly options: TestAgentOptions) {
    super();
  }

  async run(): Promise<this> {
    await this.start();
    this.tick();
    return this;
  }

  override async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await super.stop();
  }

  private tick(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.beat().finally(() => this.tick()), this.options.heartbeatMs ?? 300);
  }

  private async beat(): Promise<void> {
    this.progress();
    if (this.hung || this.lockedDown) return;
    const headers = { 'X-OpenStack-Ironic-API-Version': '1.78', 'Content-Type': 'application/json' };
    try {
      if (this.agentToken === undefined) {
        const reply = await fetch(`${this.options.api}/v1/lookup?node_uuid=${this.options.node}`, { headers });
        const body = (await reply.json().catch(() => ({}))) as { config?: { agent_token?: string } };
        this.lookups.push({ status: reply.status, token: body.config?.agent_token });
        if (reply.status !== 200) return;
        const token = body.config?.agent_token;
        if (typeof token !== 'string' || token === '******') return;
        this.agentToken = token;
        this.token = token;
        this.reboot(); // a freshly booted agent has run nothing yet
      }
      const reply = await fetch(`${this.options.api}/v1/heartbeat/${this.options.node}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ callback_url: this.url, agent_token: this.agentToken, agent_version: this.options.version ?? '9.4.0' }),
      });
      this.heartbeats.push(reply.status);
      if (reply.status === 400) this.agentToken = undefined;
    } catch {
      // The API is not there (yet, or any more): try again on the next beat.
    }
  }

  /** Finish, fail or hang the running step once it has run `stepMs`. */
  private progress(): void {
    const running = this.commands.find((c) => c.command_status === 'RUNNING');
    if (running === undefined) return;
    const step = (running.params.step as { step?: string } | undefined)?.step;
    if (step !== undefined && step === this.hangAtStep) {
      this.hung = true;
      return;
    }
    const started = (running as { startedAt?: number }).startedAt ?? Date.now();
    (running as { startedAt?: number }).startedAt = started;
    if (Date.now() - started < (this.options.stepMs ?? 200)) return;
    if (step !== undefined && step === this.failStep)
      this.finish('FAILED', { type: 'DeploymentError', details: `${step} failed on purpose` });
    else this.finish('SUCCEEDED');
  }
}
