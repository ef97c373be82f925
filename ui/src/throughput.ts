/**
 * Deploys finished and failed over the last hour, in 5-minute buckets. A finished deploy is a node
 * that entered `active` in the hour (its provision_updated_at, from the census); a failure is an
 * ERROR event of type "deploying" in the node's history (so a failed deploy that was retried still
 * counts), or, for nodes whose history was not read, a node in `deploy failed` since then.
 * Pure: no DOM, unit-tested.
 */
import type { CensusNode } from './census';
import type { HistoryEvent } from './steps';

export const BUCKET_MS = 5 * 60 * 1000;
export const BUCKETS = 12;

export interface Bucket {
  /** Start of the bucket (ms since the epoch). */
  readonly start: number;
  readonly deployed: number;
  readonly failed: number;
}

function bucketIndex(at: number, now: number): number | undefined {
  const age = now - at;
  if (!(age >= 0) || age >= BUCKET_MS * BUCKETS) return undefined;
  return BUCKETS - 1 - Math.floor(age / BUCKET_MS);
}

/**
 * The hour's buckets (oldest first) from the census's recently changed nodes and the histories
 * read for some of them (node UUID → events).
 */
export function deployBuckets(
  recent: readonly CensusNode[],
  histories: ReadonlyMap<string, readonly HistoryEvent[]>,
  now: number,
): Bucket[] {
  const deployed = new Array<number>(BUCKETS).fill(0);
  const failed = new Array<number>(BUCKETS).fill(0);
  for (const node of recent) {
    const changed = typeof node.provision_updated_at === 'string' ? Date.parse(node.provision_updated_at) : NaN;
    const at = bucketIndex(changed, now);
    if (node.provision_state === 'active' && at !== undefined) deployed[at] = (deployed[at] ?? 0) + 1;
    const history = histories.get(node.uuid);
    if (history) {
      for (const event of history) {
        if (event.severity !== 'ERROR' || event.event_type !== 'deploying') continue;
        const i = bucketIndex(Date.parse(event.created_at), now);
        if (i !== undefined) failed[i] = (failed[i] ?? 0) + 1;
      }
    } else if (node.provision_state === 'deploy failed' && at !== undefined) {
      failed[at] = (failed[at] ?? 0) + 1;
    }
  }
  const first = now - BUCKET_MS * BUCKETS;
  return deployed.map((d, i) => ({ start: first + i * BUCKET_MS, deployed: d, failed: failed[i] ?? 0 }));
}

/** At most this many histories are read per refresh: the nodes changed most recently first. */
export const HISTORY_READS = 50;

/** The recently changed nodes whose history is worth reading: deployed or failed ones, newest first. */
export function historyCandidates(recent: readonly CensusNode[]): CensusNode[] {
  return recent
    .filter((n) => n.provision_state === 'active' || n.provision_state === 'deploy failed' || n.provision_state === 'available')
    .sort((a, b) => String(b.provision_updated_at).localeCompare(String(a.provision_updated_at)))
    .slice(0, HISTORY_READS);
}
