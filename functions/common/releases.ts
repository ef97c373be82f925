/**
 * The release mapping (Ironic's `common/release_mappings.py`): for each release, the maximum API
 * microversion, the RPC version, and the object versions it writes and reads, newest first.
 *
 * `PIN_RELEASE_VERSION` selects a row, once, at cold start (an unknown value fails it). Everything
 * version-dependent derives from that row: the API's maximum microversion (`apiMaxVersion`), the
 * RPC client's cap (`rpcVersionCap`), the version objects are written and sent at
 * (`objectVersion`). A pinned service speaks the pinned release; empty means `master`: the latest.
 *
 * When a release ships, copy `master` to a row named after it (e.g. "2026.2"). When an object's
 * VERSION changes, put the new version first in `master`'s list for that object and keep the older
 * ones the previous release writes (the fingerprint and mapping tests say so).
 */

export interface ReleaseMapping {
  /** Maximum API microversion, "1.N". */
  readonly api: string;
  /** RPC API version, "1.N". */
  readonly rpc: string;
  /** Object name → the versions this release uses, newest (the one it writes) first. */
  readonly objects: Readonly<Record<string, readonly string[]>>;
}

export type ReleaseMappings = Readonly<Record<string, ReleaseMapping>>;

/**
 * The commit of this repository each release was cut from: `ironless build --release R` builds
 * that release's bundles from it, and the grenade test upgrades from them. 2026.2 was never cut
 * (it is the API 1.82 pin the differential suite compares with Ironic 21.4).
 */
export const RELEASE_COMMITS: Readonly<Record<string, string>> = {
  '2026.3': 'cdf759a9669db9c839264ebb42099081a61503c3',
};

export const RELEASE_MAPPING: ReleaseMappings = {
  // The first release: Ironic 21.4's API (1.82, shards). A deployment of it upgrades to master by
  // pinning the new version to it, shifting the aliases, then unpinning.
  '2026.2': {
    api: '1.82',
    rpc: '1.0',
    objects: {
      Node: ['1.0'],
      Port: ['1.0'],
      Portgroup: ['1.0'],
      Chassis: ['1.0'],
      Conductor: ['1.0'],
      DeployTemplate: ['1.0'],
      Allocation: ['1.0'],
      NodeHistory: ['1.0'],
    },
  },
  // What main served on 2026-11-25 (commit in RELEASE_COMMITS): servicing (API 1.87, RPC 1.1).
  // The grenade test (`npm run test:upgrade`) builds it from that commit and upgrades it to master.
  '2026.3': {
    api: '1.87',
    rpc: '1.1',
    objects: {
      Node: ['1.0'],
      Port: ['1.0'],
      Portgroup: ['1.0'],
      Chassis: ['1.0'],
      Conductor: ['1.0'],
      DeployTemplate: ['1.0'],
      Allocation: ['1.0'],
      NodeHistory: ['1.0'],
    },
  },
  // In-band inspection (the `agent` inspect interface): RPC 1.2 (continue_inspection) and the
  // NodeInventory object, kept in its own table apart from the node. Node 1.1: instance_name,
  // computed from instance_info for older items (an online data migration). API 1.88: port names
  // (Port 1.0 already had the field, unique, unused by the API until now: no new Port version).
  // RPC 1.3: console, indicators and vendor passthru.
  // Node 1.2: disable_power_off (API 1.95) and health (API 1.109).
  // VolumeConnector and VolumeTarget (API 1.32's volume resources), each in a table of its own.
  // BIOSSetting: a node's BIOS settings as its bios interface caches them, in their own table.
  // FirmwareComponent: a node's firmware versions as its firmware interface caches them, in their own table.
  // Runbook (API 1.92, its traits 1.112): in a runbooks table of its own.
  // InspectionRule: API 1.96's inspection rules, in their own table.
  // API 1.89–1.115 (Ironic master, 2026.2 "Hibiscus"): virtual media, runbooks, inspection rules, the
  // port and portgroup fields, node disable_power_off, instance_name, health; see the README.
  // RPC 1.4: virtual media (attach, detach, get).
  // RPC 1.5: virtual media actions and async vendor passthru run after the call answers (casts).
  // NodeHistory 1.1: project, state, target_provision_state, duration_seconds (API 1.113, 1.115).
  // FirmwareComponent 1.1: vendor, model, serial_number (API 1.114).
  // Port 1.1 (description, vendor, category, available_for_dynamic_portgroup) and Portgroup 1.1
  // (physical_network, category, dynamic_portgroup): older items read with the new fields at their
  // defaults; online data migrations rewrite them at 1.1.
  master: {
    api: '1.115',
    rpc: '1.5',
    objects: {
      Node: ['1.2', '1.1', '1.0'],
      Port: ['1.1', '1.0'],
      Portgroup: ['1.1', '1.0'],
      Chassis: ['1.0'],
      Conductor: ['1.0'],
      DeployTemplate: ['1.0'],
      Allocation: ['1.0'],
      NodeHistory: ['1.1', '1.0'],
      NodeInventory: ['1.0'],
      VolumeConnector: ['1.0'],
      VolumeTarget: ['1.0'],
      BIOSSetting: ['1.0'],
      FirmwareComponent: ['1.1', '1.0'],
      Runbook: ['1.0'],
      InspectionRule: ['1.0'],
    },
  },
};

/** The versions a service speaks, derived once from the pin. */
export interface ReleaseSelection {
  /** The release pinned to, or "master". */
  readonly release: string;
  readonly pinned: boolean;
  readonly mapping: ReleaseMapping;
  /** The API's maximum microversion ("1.N"): the selected release's `api`. */
  readonly apiMaxVersion: string;
  /** The highest RPC version this service may send: the selected release's `rpc`. */
  readonly rpcVersionCap: string;
  /**
   * Version to write and send an object at: the newest its release lists; for an object the
   * pinned release does not know (it cannot read it anyway), the latest, as Ironic does.
   */
  objectVersion(name: string): string;
  /** Whether this code may read items of `name` at `version` (any release of the mapping uses it). */
  canRead(name: string, version: string): boolean;
  /** Every version of `name` this code reads, newest first. */
  readableVersions(name: string): string[];
}

export class UnknownReleaseError extends Error {
  override readonly name = 'UnknownReleaseError';
}

/** Compare "1.10" and "1.9" as versions, not strings. */
export function compareVersionStrings(a: string, b: string): number {
  const [aMajor = 0, aMinor = 0] = a.split('.').map(Number);
  const [bMajor = 0, bMinor = 0] = b.split('.').map(Number);
  return aMajor - bMajor || aMinor - bMinor;
}

/**
 * Object name → every version any release of the mapping uses (Ironic's `get_object_versions`):
 * the versions this code must be able to read, and what `dbsync upgrade` accepts.
 */
export function objectVersions(mapping: ReleaseMappings = RELEASE_MAPPING, releases?: readonly string[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [release, row] of Object.entries(mapping)) {
    if (releases !== undefined && !releases.includes(release)) continue;
    for (const [name, versions] of Object.entries(row.objects)) {
      const set = out.get(name) ?? new Set<string>();
      for (const version of versions) set.add(version);
      out.set(name, set);
    }
  }
  return out;
}

export function selectRelease(pin: string | undefined, mapping: ReleaseMappings = RELEASE_MAPPING): ReleaseSelection {
  const release = pin === undefined || pin === '' ? 'master' : pin;
  const row = mapping[release];
  const master = mapping.master;
  if (master === undefined) throw new UnknownReleaseError('The release mapping has no "master" row');
  if (row === undefined) {
    const known = Object.keys(mapping).filter((name) => name !== 'master');
    throw new UnknownReleaseError(
      `PIN_RELEASE_VERSION "${pin}" is not a known release; use "" for the latest` +
        (known.length > 0 ? ` or one of: ${known.join(', ')}` : ' (no release has shipped yet)'),
    );
  }
  const readable = objectVersions(mapping);
  return {
    release,
    pinned: release !== 'master',
    mapping: row,
    apiMaxVersion: row.api,
    rpcVersionCap: row.rpc,
    objectVersion(name: string): string {
      const version = row.objects[name]?.[0] ?? master.objects[name]?.[0];
      if (version === undefined) throw new UnknownReleaseError(`The release mapping does not list object ${name}`);
      return version;
    },
    canRead(name: string, version: string): boolean {
      return readable.get(name)?.has(version) ?? false;
    },
    readableVersions(name: string): string[] {
      return [...(readable.get(name) ?? [])].sort((a, b) => compareVersionStrings(b, a));
    },
  };
}

/** The selection for this process, from PIN_RELEASE_VERSION; throws (failing a cold start) when unknown. */
export function releaseFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): ReleaseSelection {
  return selectRelease(env.PIN_RELEASE_VERSION ?? '');
}
