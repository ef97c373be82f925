/**
 * The peer benchmark's targets (issue 20): each workload's figure on Ironless against the same
 * workload's on a real Ironic 21.4 in the same run, as a ratio Ironless / Ironic of the medians
 * of the runs. Rates must be at least `target` times Ironic's, times at most `target` times.
 */

export interface PeerTarget {
  /** The workload's key in the report. */
  readonly workload: string;
  /** The figure compared (a key of each run's result). */
  readonly metric: string;
  /** 'higher': a rate (the ratio is a speed-up); 'lower': a time. */
  readonly better: 'higher' | 'lower';
  /** The ratio Ironless / Ironic to reach: at least it (higher) or at most it (lower); none: reported only. */
  readonly target?: number;
}

export const PEER_TARGETS: readonly PeerTarget[] = [
  { workload: 'getNode', metric: 'perSecond', better: 'higher', target: 5 },
  { workload: 'createNode', metric: 'perSecond', better: 'higher', target: 6 },
  { workload: 'deploy', metric: 'deploysPerSecond', better: 'higher', target: 5 },
  { workload: 'shardList', metric: 'secondsPerList', better: 'lower', target: 0.2 },
  { workload: 'listAllDetail', metric: 'seconds', better: 'lower' },
];

export interface PeerComparison {
  readonly workload: string;
  readonly metric: string;
  readonly ironless: number;
  readonly ironic: number;
  /** median(Ironless) / median(Ironic), 3 significant digits. */
  readonly ratio: number;
  /** How many times faster Ironless is (the ratio for a rate, its inverse for a time). */
  readonly speedUp: number;
  /** The condition, as text: "≥ 5" or "≤ 0.2"; null when reported only. */
  readonly target: string | null;
  /** null when reported only. */
  readonly pass: boolean | null;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const sig = (n: number) => Number(n.toPrecision(3));

/** One target's comparison from each side's runs (each run's value of the target's metric). */
export function compare(target: PeerTarget, ironless: readonly number[], ironic: readonly number[]): PeerComparison {
  const a = median(ironless);
  const b = median(ironic);
  if (!(a > 0) || !(b > 0)) throw new Error(`${target.workload}: ${target.metric} must be positive (ironless ${a}, ironic ${b})`);
  const ratio = a / b;
  const speedUp = target.better === 'higher' ? ratio : 1 / ratio;
  const has = target.target !== undefined;
  const pass = !has ? null : target.better === 'higher' ? ratio >= target.target! : ratio <= target.target!;
  return {
    workload: target.workload,
    metric: target.metric,
    ironless: sig(a),
    ironic: sig(b),
    ratio: sig(ratio),
    speedUp: sig(speedUp),
    target: has ? `${target.better === 'higher' ? '≥' : '≤'} ${target.target}` : null,
    pass,
  };
}

type Runs = Readonly<Record<string, readonly Readonly<Record<string, unknown>>[]>>;

/** Every target compared (but a reported-only one neither side ran), from each side's runs by workload; `allMet` when no target fails. */
export function compareAll(
  ironless: Runs,
  ironic: Runs,
  targets: readonly PeerTarget[] = PEER_TARGETS,
): { comparisons: PeerComparison[]; allMet: boolean } {
  const values = (runs: Runs, t: PeerTarget) =>
    (runs[t.workload] ?? []).map((run) => {
      const v = run[t.metric];
      if (typeof v !== 'number') throw new Error(`${t.workload}: a run without ${t.metric}`);
      return v;
    });
  // A workload reported without a target may be left out of a run (the large case skips listing
  // every node): then it is not compared. A workload with a target must have runs on both sides.
  const ran = (t: PeerTarget) => t.target !== undefined || values(ironless, t).length > 0 || values(ironic, t).length > 0;
  const comparisons = targets.filter(ran).map((t) => compare(t, values(ironless, t), values(ironic, t)));
  return { comparisons, allMet: comparisons.every((c) => c.pass !== false) };
}
