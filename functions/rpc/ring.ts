/**
 * Which conductor serves a node (Ironic's hash ring, `ironic/common/hash_ring.py`): the live
 * conductors of the node's conductor group that serve its driver, one chosen by a hash of the
 * node's UUID so a node maps to the same conductor while the set is unchanged.
 *
 * Live = registered, online and a heartbeat newer than `[conductor]heartbeat_timeout`. As Ironic
 * does, the set is cached for a short while (its `hash_ring_reset_interval`) and re-read once
 * before saying that no conductor serves a node, so a conductor that just registered is seen.
 *
 * Errors are Ironic's: no live conductor at all is TemporaryFailure (503); none for the group and
 * driver is NoValidHost "No conductor service registered which supports driver …" (404, which the
 * node create/update/delete/maintenance handlers answer as 400, as Ironic's do).
 */
import { createHash } from 'node:crypto';
import { NoValidHost, TemporaryFailure } from '#common/errors';
import type { ConductorStore } from '#db/conductors';
import type { Conductor } from '#objects/conductor';

/** Ironic `[DEFAULT]hash_ring_reset_interval` is 15 s. */
export const RING_CACHE_SECONDS = 15;

export interface RingOptions {
  readonly heartbeatTimeoutSeconds: number;
  readonly cacheSeconds?: number;
  readonly now?: () => number;
}

/** Ironic's message when nothing serves a node's driver in its group. */
export function noConductorFor(driver: string, group: string): NoValidHost {
  return new NoValidHost(
    `No valid host was found. Reason: No conductor service registered which supports driver ${driver} for conductor group "${group}".`,
  );
}

/** Whether a conductor's heartbeat is recent enough (Ironic's `not timeutils.is_older_than(updated_at, heartbeat_timeout)`). */
export function isAlive(conductor: Conductor, heartbeatTimeoutSeconds: number, now: number): boolean {
  const beat = conductor.updated_at ?? conductor.created_at;
  if (beat === null || beat === undefined) return false;
  return now - Date.parse(beat) <= heartbeatTimeoutSeconds * 1000;
}

export class ConductorRing {
  private cached: { at: number; conductors: Conductor[] } | undefined;
  private readonly now: () => number;

  constructor(
    private readonly store: ConductorStore,
    private readonly options: RingOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Every registered conductor, online or not, in registration order (read through the cache). */
  async all(fresh = false): Promise<Conductor[]> {
    const now = this.now();
    // A fresh read is asked for when a node has no conductor: at most one a second, so a list of
    // many such nodes does not read the table for each.
    const maxAge = fresh ? 1000 : (this.options.cacheSeconds ?? RING_CACHE_SECONDS) * 1000;
    if (this.cached && now - this.cached.at < maxAge) {
      return this.cached.conductors;
    }
    const conductors: Conductor[] = [];
    let marker: string | undefined;
    for (;;) {
      const page = await this.store.list({}, { limit: 1000, ...(marker ? { marker } : {}) });
      conductors.push(...page.items);
      if (!page.more || page.items.length === 0) break;
      marker = page.items[page.items.length - 1]?.hostname;
    }
    this.cached = { at: now, conductors };
    return conductors;
  }

  alive(conductor: Conductor): boolean {
    return isAlive(conductor, this.options.heartbeatTimeoutSeconds, this.now());
  }

  /** Online conductors with a fresh heartbeat. */
  async live(fresh = false): Promise<Conductor[]> {
    return (await this.all(fresh)).filter((c) => c.online && this.alive(c));
  }

  /**
   * Hardware type → hostnames of the live conductors serving it, across groups, in the order
   * conductors registered (Ironic's `get_active_hardware_type_dict`).
   */
  async hardwareTypes(): Promise<Map<string, string[]>> {
    const types = new Map<string, string[]>();
    for (const c of await this.live()) {
      for (const driver of c.drivers ?? []) {
        const hosts = types.get(driver) ?? [];
        if (!hosts.includes(c.hostname)) hosts.push(c.hostname);
        types.set(driver, hosts);
      }
    }
    return types;
  }

  /** The conductor serving a node; TemporaryFailure when none is alive, NoValidHost when none fits. */
  async conductorFor(node: { readonly uuid: string; readonly driver: string; readonly conductor_group: string }): Promise<string> {
    const group = (node.conductor_group ?? '').toLowerCase();
    const pick = (conductors: Conductor[]) =>
      conductors.filter((c) => c.conductor_group === group && (c.drivers ?? []).includes(node.driver)).map((c) => c.hostname);
    let live = await this.live();
    let hosts = pick(live);
    if (hosts.length === 0) {
      // As Ironic rebuilds its rings before giving up: a conductor may have just registered.
      live = await this.live(true);
      hosts = pick(live);
    }
    if (live.length === 0) throw new TemporaryFailure('Resource temporarily unavailable, please retry.');
    if (hosts.length === 0) throw noConductorFor(node.driver, node.conductor_group ?? '');
    hosts.sort();
    const digest = createHash('md5').update(node.uuid).digest();
    return hosts[digest.readUInt32BE(0) % hosts.length] as string;
  }

  /** The conductor serving a node, or null when none does (the node view's `conductor`). */
  async conductorOrNull(node: {
    readonly uuid: string;
    readonly driver: string;
    readonly conductor_group: string;
  }): Promise<string | null> {
    try {
      return await this.conductorFor(node);
    } catch (err) {
      if (err instanceof NoValidHost || err instanceof TemporaryFailure) return null;
      throw err;
    }
  }
}
