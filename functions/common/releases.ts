/**
 * The release mapping (Ironic's `common/release_mappings.py`): for each release, the maximum API
 * microversion, the RPC version, and every object version it can read, newest first.
 *
 * `PIN_RELEASE_VERSION` selects a row. A pinned service speaks the pinned release: its API maximum
 * is that release's `api`, its RPC client caps messages at that `rpc`, and it writes and sends
 * objects at the first (newest) version that release lists. Empty means `master`: the latest.
 *
 * When a release ships, copy `master` to a row named after it. When an object's VERSION changes,
 * put the new version first in `master`'s list for that object (the fingerprint test says so).
 */

export interface ReleaseMapping {
  /** Maximum API microversion, "1.N". */
  readonly api: string;
  /** RPC API version, "1.N". */
  readonly rpc: string;
  /** Object name → versions this release can read, newest first. */
  readonly objects: Readonly<Record<string, readonly string[]>>;
}

export const RELEASE_MAPPING: Readonly<Record<string, ReleaseMapping>> = {
  master: {
    api: '1.82',
    rpc: '1.0',
    objects: {
      Node: ['1.0'],
    },
  },
};

/** The versions a service speaks, derived once from the pin. */
export interface ReleaseSelection {
  /** The release pinned to, or "master". */
  readonly release: string;
  readonly pinned: boolean;
  readonly mapping: ReleaseMapping;
  /** Version to write and send for an object; the newest its release lists. */
  objectVersion(name: string): string;
  /** Whether this release can read items of `name` at `version`. */
  canRead(name: string, version: string): boolean;
}

export class UnknownReleaseError extends Error {
  override readonly name = 'UnknownReleaseError';
}

export function selectRelease(
  pin: string | undefined,
  mapping: Readonly<Record<string, ReleaseMapping>> = RELEASE_MAPPING,
): ReleaseSelection {
  const release = pin === undefined || pin === '' ? 'master' : pin;
  const row = mapping[release];
  if (row === undefined) {
    const known = Object.keys(mapping).filter((name) => name !== 'master');
    throw new UnknownReleaseError(
      `PIN_RELEASE_VERSION "${pin}" is not a known release; use "" for the latest` +
        (known.length > 0 ? ` or one of: ${known.join(', ')}` : ' (no release has shipped yet)'),
    );
  }
  const master = mapping.master;
  return {
    release,
    pinned: release !== 'master',
    mapping: row,
    objectVersion(name: string): string {
      const version = row.objects[name]?.[0];
      if (version === undefined) throw new UnknownReleaseError(`Release ${release} does not map object ${name}`);
      return version;
    },
    canRead(name: string, version: string): boolean {
      // A pinned service runs the newer code: it reads everything master reads.
      return (master ?? row).objects[name]?.includes(version) ?? false;
    },
  };
}
