/**
 * Conductor registration and heartbeat (Ironic's `base_manager` register/`_conductor_service_record_keepalive`).
 *
 * A conductor here is a published version of the conductor function: its hostname names the
 * function and version (`config.hostname`). One function serves every configured conductor group
 * (one SQS queue each), so a version registers once per group: the default group under its
 * hostname, another group under `<hostname>:<group>`. During an upgrade two versions sit on the
 * alias and both are registered, each with its own heartbeat.
 *
 * Registration happens on the first invocation of an execution environment (its cold start) and
 * the heartbeat on the scheduled `conductor_heartbeat` task; any other invocation also refreshes
 * a heartbeat older than Ironic's `heartbeat_interval`, so a busy version never looks dead.
 */
import type { ConductorConfig } from '#common/config';
import type { ConductorStore } from '#db/conductors';
import { hardwareTypes } from '#drivers/registry';
import type { Logger } from '@aws-lambda-powertools/logger';

/** Ironic `[conductor]heartbeat_interval`: the least time between two heartbeats of one environment. */
export const HEARTBEAT_INTERVAL_SECONDS = 10;

export interface Registration {
  readonly hostname: string;
  readonly conductorGroup: string;
}

/** The records one conductor version keeps: one per conductor group it serves. */
export function registrationsOf(config: Pick<ConductorConfig, 'hostname' | 'conductorQueues'>): Registration[] {
  const groups = Object.keys(config.conductorQueues);
  return (groups.length > 0 ? groups : ['']).map((group) => ({
    hostname: group === '' ? config.hostname : `${config.hostname}:${group}`,
    conductorGroup: group,
  }));
}

/** The hardware types this conductor serves: the enabled ones (Ironic's `enabled_hardware_types`), all by default. */
export function servedDrivers(enabled?: readonly string[]): string[] {
  return hardwareTypes()
    .map((t) => t.name)
    .filter((name) => enabled === undefined || enabled.includes(name));
}

/**
 * Keeps one execution environment's registrations fresh. `beat()` registers on first use (cold
 * start), then touches; `beatIfDue()` touches only when the last beat is older than the interval.
 */
export class Liveness {
  private registered = false;
  private lastBeat = 0;

  constructor(
    private readonly store: ConductorStore,
    private readonly config: Pick<ConductorConfig, 'hostname' | 'conductorQueues'> & {
      readonly enabledHardwareTypes?: readonly string[] | undefined;
    },
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Register (first call) or refresh the heartbeat of every registration of this version. */
  async beat(): Promise<Registration[]> {
    const registrations = registrationsOf(this.config);
    if (!this.registered) {
      const drivers = servedDrivers(this.config.enabledHardwareTypes);
      // Every new environment of a version registers again under the same hostname: take the record over.
      for (const r of registrations) {
        await this.store.register({ hostname: r.hostname, conductorGroup: r.conductorGroup, drivers }, { updateExisting: true });
        // The first heartbeat with the registration: a record has its updated_at from the start.
        await this.store.touch(r.hostname);
      }
      this.registered = true;
      this.log.info('Conductor registered', { hostnames: registrations.map((r) => r.hostname), drivers });
    } else {
      for (const r of registrations) await this.store.touch(r.hostname);
    }
    this.lastBeat = this.now();
    return registrations;
  }

  /** Refresh when the last heartbeat of this environment is older than Ironic's heartbeat interval. */
  async beatIfDue(): Promise<void> {
    if (this.registered && this.now() - this.lastBeat < HEARTBEAT_INTERVAL_SECONDS * 1000) return;
    try {
      await this.beat();
    } catch (err) {
      // Liveness must not fail the work this invocation came for; the scheduled heartbeat retries.
      this.log.warn('Conductor heartbeat failed', { error: String(err) });
    }
  }
}
