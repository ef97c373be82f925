/**
 * Conductors and upgrades as the console reads them: `GET /v1/conductors` (hostnames
 * `conductor:<version>[:<group>]` on Ironless, any hostname on Ironic; a stable identity may come
 * as another field) and `GET /ironless/v1/upgrade` (Ironless's rolling upgrade: 404 or `idle`
 * when none runs). Fields are read defensively. Pure: no DOM, unit-tested.
 */

export interface ConductorRow {
  readonly hostname: string;
  /** The Lambda version it runs, when its hostname (or a field) says. */
  readonly version: string | undefined;
  readonly group: string;
  readonly alive: boolean | undefined;
  readonly drivers: readonly string[];
  readonly updatedAt: string | undefined;
  readonly release: string | undefined;
  readonly pinned: boolean | undefined;
}

export interface Upgrade {
  readonly state: 'idle' | 'in-progress' | 'stopped' | 'complete' | string;
  readonly phase?: { readonly number?: number; readonly name?: string; readonly title?: string };
  readonly from?: { readonly release?: string };
  readonly to?: { readonly release?: string; readonly pinned?: boolean };
  readonly aliases?: Readonly<Record<string, { readonly version?: string; readonly weights?: Readonly<Record<string, number>> }>>;
  readonly versions?: Readonly<Record<string, Readonly<Record<string, { readonly release?: string; readonly pinned?: boolean }>>>>;
  readonly updated_at?: string;
  readonly message?: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export function conductorRows(raw: readonly Readonly<Record<string, unknown>>[], upgrade: Upgrade | undefined): ConductorRow[] {
  return raw.map((c) => {
    const hostname = String(c.hostname ?? c.id ?? '');
    const parts = hostname.split(':');
    const fromName = parts[0] === 'conductor' && parts[1] ? parts[1] : undefined;
    const version = str(c.version) ?? str(c.function_version) ?? fromName;
    const known = version ? upgrade?.versions?.conductor?.[version] : undefined;
    return {
      hostname,
      version,
      group: typeof c.conductor_group === 'string' ? c.conductor_group : '',
      alive: typeof c.alive === 'boolean' ? c.alive : undefined,
      drivers: Array.isArray(c.drivers) ? c.drivers.map(String) : [],
      updatedAt: str(c.updated_at) ?? str(c.created_at),
      release: str(c.release) ?? known?.release,
      pinned: typeof c.pinned === 'boolean' ? c.pinned : known?.pinned,
    };
  });
}

/** Whether an upgrade is worth showing (404 and `idle` mean none). */
export function upgradeRunning(upgrade: Upgrade | undefined): upgrade is Upgrade {
  return upgrade !== undefined && typeof upgrade.state === 'string' && upgrade.state !== 'idle';
}

/** An alias's traffic split: its main version gets what the weights leave. */
export function aliasShares(alias: { version?: string; weights?: Readonly<Record<string, number>> }): { version: string; share: number }[] {
  const weights = Object.entries(alias.weights ?? {}).filter(([, w]) => typeof w === 'number' && w > 0);
  const rest = Math.max(0, 1 - weights.reduce((s, [, w]) => s + w, 0));
  const shares = alias.version !== undefined ? [{ version: alias.version, share: rest }] : [];
  return [...shares, ...weights.map(([version, share]) => ({ version, share }))];
}
