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
 *
 * Each registration is an instance of its group's conductor service (`identity.ts`), whose stable
 * name is what nodes keep. A version taken off the alias by an upgrade never unregisters (Lambda
 * has no shutdown hook), so the scheduled heartbeat retires the registrations of other versions of
 * this function that have been dead for `RETIRE_AFTER_TIMEOUTS` heartbeat timeouts (an hour by
 * default): after an upgrade the old version leaves `GET /v1/conductors`, while a crashed version
 * still shows as dead for a while. A retired version of this code that is invoked again registers
 * again; the previous release's code registers only at a cold start, so the wait is long enough
 * for a rollback to bring it back before, and for Lambda to have recycled its idle environments.
 */
import type { ConductorConfig } from '#common/config';
import { ConcurrentUpdate, ConductorNotFound } from '#common/errors';
import type { ConductorStore } from '#db/conductors';
import type { Conductor } from '#objects/conductor';
import { hardwareTypes } from '#drivers/registry';
import type { Logger } from '@aws-lambda-powertools/logger';

/** Ironic `[conductor]heartbeat_interval`: the least time between two heartbeats of one environment. */
export const HEARTBEAT_INTERVAL_SECONDS = 10;

/** A registration of another version dead this many heartbeat timeouts is retired (an hour at 150 s). */
export const RETIRE_AFTER_TIMEOUTS = 24;

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
      /** The function whose other versions' stale registrations `retireStale` removes. */
      readonly functionName?: string;
      readonly conductorHeartbeatTimeoutSeconds?: number;
    },
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Register (first call) or refresh the heartbeat of every registration of this version. */
  async beat(): Promise<Registration[]> {
    const registrations = registrationsOf(this.config);
    if (!this.registered) {
      for (const r of registrations) await this.register(r);
      this.registered = true;
      this.log.info('Conductor registered', { hostnames: registrations.map((r) => r.hostname) });
    } else {
      for (const r of registrations) {
        try {
          await this.store.touch(r.hostname);
        } catch (err) {
          // Retired while this environment idled (another version took it for stale): come back.
          if (!(err instanceof ConductorNotFound)) throw err;
          await this.register(r);
          this.log.info('Conductor registered again', { hostname: r.hostname });
        }
      }
    }
    this.lastBeat = this.now();
    return registrations;
  }

  private async register(r: Registration): Promise<void> {
    const drivers = servedDrivers(this.config.enabledHardwareTypes);
    // Every new environment of a version registers again under the same hostname: take the record over.
    try {
      await this.store.register({ hostname: r.hostname, conductorGroup: r.conductorGroup, drivers }, { updateExisting: true });
    } catch (err) {
      // Another environment of this version (a cold start beside this one, as an alias shift makes
      // them) took the record over at the same moment, with the same fields: it is registered.
      if (!(err instanceof ConcurrentUpdate)) throw err;
      this.log.info('Conductor registered at the same time by another environment of this version', { hostname: r.hostname });
    }
    // The first heartbeat with the registration: a record has its updated_at from the start.
    await this.store.touch(r.hostname);
  }

  /**
   * Retire the registrations of other versions of this function dead for RETIRE_AFTER_TIMEOUTS
   * heartbeat timeouts (one conditional delete each, so one that beat meanwhile stays). Returns
   * the hostnames retired. The conductors table holds a few items per version: one read of it.
   */
  async retireStale(): Promise<string[]> {
    const fn = this.config.functionName;
    const timeout = this.config.conductorHeartbeatTimeoutSeconds;
    if (fn === undefined || timeout === undefined) return [];
    const mine = new Set(registrationsOf(this.config).map((r) => r.hostname));
    const cutoff = this.now() - RETIRE_AFTER_TIMEOUTS * timeout * 1000;
    const retired: string[] = [];
    let marker: string | undefined;
    for (;;) {
      const page = await this.store.list({}, { limit: 1000, ...(marker ? { marker } : {}) });
      for (const c of page.items) {
        if (mine.has(c.hostname) || !c.hostname.startsWith(`${fn}:`) || lastSeen(c) >= cutoff) continue;
        if (await this.store.retire(c.hostname, c.updated_at ?? null)) retired.push(c.hostname);
      }
      if (!page.more || page.items.length === 0) break;
      marker = page.items[page.items.length - 1]?.hostname;
    }
    if (retired.length > 0) this.log.info('Retired the registrations of stale conductor versions', { hostnames: retired });
    return retired;
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

function lastSeen(c: Conductor): number {
  const beat = c.updated_at ?? c.created_at;
  return beat === null || beat === undefined ? 0 : Date.parse(beat);
}
