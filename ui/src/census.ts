/**
 * Counting the fleet. Ironic's v1 API has no count endpoint, and it cannot filter by power state,
 * so the counts come from one pass over `GET /v1/nodes?fields=<a few>&limit=1000`, paged by
 * `marker`: each node costs about 400 bytes (half of it its links) and no other request, and every dimension (provision
 * and power state, maintenance, fault, shard, conductor group, owner) is counted from the same
 * pass. Per-value filtered lists (`provision_state=X&fields=uuid`) would read the same nodes once
 * per dimension and still miss power state. The pass runs in the background, apart from the table
 * (which pages with the API's filters and `limit`), and repeats less often as the fleet grows.
 * Pure: the list call is passed in; no DOM; unit-tested.
 */

export type Dimension = 'provision_state' | 'power_state' | 'maintenance' | 'fault' | 'shard' | 'conductor_group' | 'owner';

export const DIMENSIONS: readonly { readonly key: Dimension; readonly label: string; readonly minMinor: number }[] = [
  { key: 'provision_state', label: 'Provision state', minMinor: 1 },
  { key: 'power_state', label: 'Power state', minMinor: 1 },
  { key: 'maintenance', label: 'Maintenance', minMinor: 1 },
  { key: 'fault', label: 'Fault', minMinor: 42 },
  { key: 'shard', label: 'Shard', minMinor: 82 },
  { key: 'conductor_group', label: 'Conductor group', minMinor: 46 },
  { key: 'owner', label: 'Owner', minMinor: 50 },
];

/** Nodes per census request: Ironic's default `[api]max_limit`. */
export const CENSUS_PAGE = 1000;

/** The fields a census asks for, at an API version (fields newer than it would be a 406). */
export function censusFields(minor: number): string[] {
  return ['uuid', ...DIMENSIONS.filter((d) => d.minMinor <= minor).map((d) => d.key), 'provision_updated_at'];
}

export type CensusNode = Readonly<Record<string, unknown>> & { readonly uuid: string };

/** A count's key for a node's value: "(none)" for null or empty, "yes"/"no" for booleans. */
export function bucketOf(value: unknown): string {
  if (value === null || value === undefined || value === '') return '(none)';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

export type Counts = Record<Dimension, Map<string, number>>;

export function emptyCounts(): Counts {
  return Object.fromEntries(DIMENSIONS.map((d) => [d.key, new Map<string, number>()])) as Counts;
}

export function addToCounts(counts: Counts, nodes: readonly CensusNode[], dimensions: readonly Dimension[]): void {
  for (const node of nodes) {
    for (const key of dimensions) {
      const bucket = bucketOf(node[key]);
      counts[key].set(bucket, (counts[key].get(bucket) ?? 0) + 1);
    }
  }
}

export interface CensusPage {
  readonly nodes: readonly CensusNode[];
  /** Whether the API said more remain (a `next` link). */
  readonly more: boolean;
}

export interface Census {
  readonly total: number;
  readonly counts: Counts;
  /** Nodes whose provision state changed in the last hour (for the deploy chart). */
  readonly recent: readonly CensusNode[];
  readonly requests: number;
  readonly startedAt: number;
  readonly finishedAt: number;
  /** Counting is still going (a partial census, shown as it grows). */
  readonly partial: boolean;
}

export const RECENT_MS = 60 * 60 * 1000;

/**
 * Count the fleet: `list(marker)` returns one page of census nodes. `progress` sees the census as
 * it grows; `cancelled()` stops it between pages.
 */
export async function runCensus(
  list: (marker: string | undefined) => Promise<CensusPage>,
  dimensions: readonly Dimension[],
  options: { now?: () => number; progress?: (c: Census) => void; cancelled?: () => boolean } = {},
): Promise<Census | undefined> {
  const now = options.now ?? Date.now;
  const startedAt = now();
  const counts = emptyCounts();
  const recent: CensusNode[] = [];
  let total = 0;
  let requests = 0;
  let marker: string | undefined;
  for (;;) {
    const page = await list(marker);
    requests += 1;
    if (options.cancelled?.()) return undefined;
    addToCounts(counts, page.nodes, dimensions);
    total += page.nodes.length;
    for (const node of page.nodes) {
      const changed = typeof node.provision_updated_at === 'string' ? Date.parse(node.provision_updated_at) : NaN;
      if (startedAt - changed <= RECENT_MS) recent.push(node);
    }
    const last = page.nodes.at(-1);
    const done = !page.more || last === undefined;
    const census: Census = { total, counts, recent, requests, startedAt, finishedAt: now(), partial: !done };
    if (done) return census;
    options.progress?.(census);
    marker = last.uuid;
  }
}

/**
 * When to count again after a census that took `tookMs` over `total` nodes: every 30 s for a
 * small fleet, otherwise at least 20 times as long as counting took and at least 5 minutes from
 * 10,000 nodes on, so a console left open all day costs the API (and DynamoDB) little.
 */
export function nextCensusDelay(total: number, tookMs: number): number {
  const floor = total >= 10_000 ? 300_000 : 30_000;
  return Math.max(floor, tookMs * 20);
}
