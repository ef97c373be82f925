/**
 * CloudWatch's GetMetricData over the local stack's metrics (metrics.ts), in the protocol the
 * installed `@aws-sdk/client-cloudwatch` speaks: JSON 1.0, `X-Amz-Target:
 * GraniteServiceVersion20100801.GetMetricData`, timestamps as epoch seconds, query-compatible
 * errors (the awsQuery code in `x-amzn-query-error`). Queries are MetricStat queries; metric math
 * expressions are not served locally and are refused as such.
 */
import { type Dimensions, type MetricStore, STATISTICS, type Statistic, validPeriod } from './metrics';

export const CLOUDWATCH_TARGET = 'GraniteServiceVersion20100801.';

export class CloudWatchError extends Error {
  constructor(
    /** The awsQuery error code, e.g. InvalidParameterValue. */
    readonly code: string,
    message: string,
    readonly statusCode = 400,
  ) {
    super(message);
  }

  /** The error's shape name in the JSON protocol (the SDK's exception class). */
  get type(): string {
    return SHAPES[this.code] ?? this.code;
  }
}

/** CloudWatch's error shapes by their awsQuery code. */
const SHAPES: Record<string, string> = {
  InvalidParameterValue: 'InvalidParameterValueException',
  MissingParameter: 'MissingRequiredParameterException',
  InvalidParameterCombination: 'InvalidParameterCombinationException',
};

/** GetMetricData's limit on queries per call. */
const MAX_QUERIES = 500;
const QUERY_ID = /^[a-z][a-zA-Z0-9_]*$/;

interface MetricStatInput {
  readonly Metric?: {
    readonly Namespace?: string;
    readonly MetricName?: string;
    readonly Dimensions?: { Name?: string; Value?: string }[];
  };
  readonly Period?: number;
  readonly Stat?: string;
}

interface QueryInput {
  readonly Id?: string;
  readonly MetricStat?: MetricStatInput;
  readonly Expression?: string;
  readonly Label?: string;
  readonly ReturnData?: boolean;
}

interface GetMetricDataInput {
  readonly MetricDataQueries?: QueryInput[];
  readonly StartTime?: number;
  readonly EndTime?: number;
  readonly ScanBy?: string;
}

function bad(message: string): CloudWatchError {
  return new CloudWatchError('InvalidParameterValue', message);
}

function dimensionsOf(list: readonly { Name?: string; Value?: string }[] | undefined): Dimensions {
  const dims: Record<string, string> = {};
  for (const d of list ?? []) {
    if (typeof d.Name !== 'string' || typeof d.Value !== 'string')
      throw new CloudWatchError('MissingParameter', 'A dimension needs a Name and a Value');
    dims[d.Name] = d.Value;
  }
  return dims;
}

/** GetMetricData: one result per query that returns data, in the order asked. */
export function getMetricData(store: MetricStore, input: GetMetricDataInput, nowMs = Date.now()): Record<string, unknown> {
  const queries = input.MetricDataQueries ?? [];
  if (queries.length === 0) throw new CloudWatchError('MissingParameter', 'The parameter MetricDataQueries is required.');
  if (queries.length > MAX_QUERIES) throw bad(`The collection MetricDataQueries must not have a size greater than ${MAX_QUERIES}.`);
  if (typeof input.StartTime !== 'number' || typeof input.EndTime !== 'number')
    throw new CloudWatchError('MissingParameter', 'The parameters StartTime and EndTime are required.');
  const [startMs, endMs] = [input.StartTime * 1000, input.EndTime * 1000];
  if (startMs >= endMs) throw bad('The parameter StartTime must be less than the parameter EndTime.');
  const results: Record<string, unknown>[] = [];
  for (const query of queries) {
    if (typeof query.Id !== 'string' || !QUERY_ID.test(query.Id))
      throw bad(
        `The value ${String(query.Id)} for parameter MetricDataQueries.member.Id is not valid: it must start with a lowercase letter and hold only letters, digits and _.`,
      );
    if (query.Expression !== undefined) throw bad(`Metric math expressions are not served by the local stack (query ${query.Id}).`);
    const stat = query.MetricStat;
    const metric = stat?.Metric;
    if (stat === undefined || metric?.Namespace === undefined || metric.MetricName === undefined)
      throw new CloudWatchError('MissingParameter', `Query ${query.Id} needs a MetricStat with a Metric's Namespace and MetricName.`);
    if (typeof stat.Period !== 'number' || !validPeriod(stat.Period))
      throw bad(
        `The parameter MetricDataQueries.member.MetricStat.Period must be 1, 5, 10, 30 or a multiple of 60: ${String(stat.Period)}`,
      );
    if (!STATISTICS.includes(stat.Stat as Statistic))
      throw bad(`The statistic ${String(stat.Stat)} is not served by the local stack (${STATISTICS.join(', ')}).`);
    if (query.ReturnData === false) continue;
    const { timestamps, values } = store.query(
      {
        namespace: metric.Namespace,
        name: metric.MetricName,
        dimensions: dimensionsOf(metric.Dimensions),
        stat: stat.Stat as Statistic,
        periodSeconds: stat.Period,
        startMs,
        endMs,
        ascending: input.ScanBy === 'TimestampAscending',
      },
      nowMs,
    );
    results.push({
      Id: query.Id,
      Label: query.Label ?? metric.MetricName,
      Timestamps: timestamps.map((t) => t / 1000),
      Values: values,
      StatusCode: 'Complete',
      Messages: [],
    });
  }
  return { MetricDataResults: results, Messages: [] };
}

/** Serve a CloudWatch action (the part of X-Amz-Target after the service's prefix). */
export function cloudWatchApi(store: MetricStore, action: string, body: string): Record<string, unknown> {
  let input: unknown;
  try {
    input = JSON.parse(body || '{}');
  } catch {
    throw new CloudWatchError('SerializationException', 'Invalid JSON');
  }
  if (action !== 'GetMetricData')
    throw new CloudWatchError('InvalidAction', `CloudWatch action ${action} is not served by the local stack`);
  return getMetricData(store, input as GetMetricDataInput);
}
