/**
 * The EventBridge schedules of the CDK stack, on one machine: timers invoking the conductor's
 * periodic entry through its `live` alias, at the intervals `periodicSchedule` gives the stack.
 * The conductor heartbeat is apart: it reaches every version the alias routes to.
 */
import { periodicSchedule } from '../lib/periodic-schedule';
import type { IronlessSettings } from '../lib/settings';
import { PERIODIC_TASKS, type PeriodicTask } from '../functions/conductor/schedules';
import { LambdaHost } from './lambda-host';

export class LocalSchedules {
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly lambda: LambdaHost,
    private readonly log: (line: string) => void,
  ) {}

  /**
   * Beat once now, then on the heartbeat's interval; with `periodic`, run the other periodic
   * tasks on their schedules too. Liveness runs whatever the stack's `schedules` option says: it
   * changes no node, and without it no conductor is alive and the API refuses every node
   * (Ironic's "No conductor service registered").
   */
  async start(settings: IronlessSettings, periodic: boolean): Promise<void> {
    await this.conductorHeartbeat();
    this.timers.push(setInterval(() => void this.conductorHeartbeat(), PERIODIC_TASKS.conductor_heartbeat.everySeconds * 1000));
    if (!periodic) return;
    const conductorArn = LambdaHost.arn('conductor', 'live');
    for (const [task, everySeconds] of Object.entries(periodicSchedule(settings)) as [PeriodicTask, number][]) {
      if (task === 'conductor_heartbeat') continue;
      this.timers.push(
        setInterval(() => void this.lambda.invoke(conductorArn, { entry: 'periodic', task }).catch(() => undefined), everySeconds * 1000),
      );
    }
  }

  /**
   * The conductor heartbeat, sent to every version on the conductor's `live` alias (EventBridge
   * reaches only the alias; locally each version of an upgrade keeps its own registration fresh).
   * Failures are logged and left to the next beat, as a missed heartbeat is on AWS.
   */
  async conductorHeartbeat(): Promise<void> {
    const alias = this.lambda.getAlias('conductor', 'live');
    if (alias === undefined) return;
    const versions = [alias.version, ...Object.keys(alias.weights)];
    await Promise.all(
      versions.map(async (version) => {
        const result = await this.lambda
          .invoke('conductor', { entry: 'periodic', task: 'conductor_heartbeat' }, version)
          .catch((e: unknown) => e);
        if (result instanceof Error || (result as { functionError?: string }).functionError)
          this.log(
            `conductor:${version} heartbeat failed: ${result instanceof Error ? result.message : (result as { payload: string }).payload}`,
          );
      }),
    );
  }

  stop(): void {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
  }
}
