/**
 * CloudWatch metrics of a local stack, from what really happened: the Lambda host records each
 * invocation (AWS/Lambda Invocations, Errors), the gateway each request (AWS/ApiGateway Count,
 * 4XXError, 5XXError). Kept per minute, CloudWatch's standard resolution, and read back by
 * GetMetricData (local/cloudwatch-api.ts) with CloudWatch's period alignment and statistics.
 */

export type Dimensions = Readonly<Record<string, string>>;

/** The statistics GetMetricData's MetricStat serves locally. */
export const STATISTICS = ['Sum', 'Average', 'SampleCount', 'Minimum', 'Maximum'] as const;
export type Statistic = (typeof STATISTICS)[number];

interface Bucket {
  sum: number;
  count: number;
  min: number;
  max: number;
}

interface Series {
  readonly buckets: Map<number, Bucket>;
}

const MINUTE = 60_000;

/** A series' key: namespace, name and dimensions (a metric is its exact set of dimensions, as in CloudWatch). */
function seriesKey(namespace: string, name: string, dimensions: Dimensions): string {
  const dims = Object.entries(dimensions).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([namespace, name, dims]);
}

/**
 * The first timestamp of a query: CloudWatch rounds a StartTime within the last 15 days down to
 * the minute (12:32:34 → 12:32:00), 15 to 63 days ago to 5 minutes, older to the hour.
 */
export function alignStart(startMs: number, nowMs = Date.now()): number {
  const age = nowMs - startMs;
  const day = 24 * 60 * MINUTE;
  const unit = age <= 15 * day ? MINUTE : age <= 63 * day ? 5 * MINUTE : 60 * MINUTE;
  return Math.floor(startMs / unit) * unit;
}

/** Whether CloudWatch accepts `period` (seconds) for a standard-resolution metric query. */
export function validPeriod(period: number): boolean {
  return Number.isInteger(period) && period > 0 && (period % 60 === 0 || [1, 5, 10, 30].includes(period));
}

/** The start of the period holding `t`: periods run from the aligned start time, `period` seconds each. */
export function periodStart(t: number, alignedStartMs: number, periodSeconds: number): number {
  const length = periodSeconds * 1000;
  return alignedStartMs + Math.floor((t - alignedStartMs) / length) * length;
}

function statistic(bucket: Bucket, stat: Statistic): number {
  switch (stat) {
    case 'Sum':
      return bucket.sum;
    case 'Average':
      return bucket.sum / bucket.count;
    case 'SampleCount':
      return bucket.count;
    case 'Minimum':
      return bucket.min;
    case 'Maximum':
      return bucket.max;
  }
}

export interface MetricQuery {
  readonly namespace: string;
  readonly name: string;
  readonly dimensions: Dimensions;
  readonly stat: Statistic;
  readonly periodSeconds: number;
  readonly startMs: number;
  readonly endMs: number;
  /** Newest first (CloudWatch's default, TimestampDescending) or oldest first. */
  readonly ascending?: boolean;
}

export class MetricStore {
  private readonly series = new Map<string, Series>();

  /** Record one sample (a count of 1, an error flag of 0 or 1) at `at` (ms). */
  put(namespace: string, name: string, dimensions: Dimensions, value: number, at = Date.now()): void {
    const key = seriesKey(namespace, name, dimensions);
    let series = this.series.get(key);
    if (series === undefined) this.series.set(key, (series = { buckets: new Map() }));
    const minute = Math.floor(at / MINUTE) * MINUTE;
    const bucket = series.buckets.get(minute);
    if (bucket === undefined) series.buckets.set(minute, { sum: value, count: 1, min: value, max: value });
    else {
      bucket.sum += value;
      bucket.count += 1;
      bucket.min = Math.min(bucket.min, value);
      bucket.max = Math.max(bucket.max, value);
    }
  }

  /**
   * One statistic per period in [start, end): only periods with samples have a datapoint, as in
   * CloudWatch. Timestamps are each period's start (ms).
   */
  query(q: MetricQuery, nowMs = Date.now()): { timestamps: number[]; values: number[] } {
    const series = this.series.get(seriesKey(q.namespace, q.name, q.dimensions));
    const start = alignStart(q.startMs, nowMs);
    const periods = new Map<number, Bucket>();
    for (const [minute, b] of series?.buckets ?? []) {
      if (minute < start || minute >= q.endMs) continue;
      const p = periodStart(minute, start, q.periodSeconds);
      const into = periods.get(p);
      if (into === undefined) periods.set(p, { ...b });
      else {
        into.sum += b.sum;
        into.count += b.count;
        into.min = Math.min(into.min, b.min);
        into.max = Math.max(into.max, b.max);
      }
    }
    const timestamps = [...periods.keys()].sort((a, b) => (q.ascending ? a - b : b - a));
    return { timestamps, values: timestamps.map((t) => statistic(periods.get(t) as Bucket, q.stat)) };
  }
}
