import { MetricStore, alignStart, periodStart, validPeriod } from '../../../local/metrics';

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);
const MIN = 60_000;

describe('alignStart', () => {
  it('rounds a recent start down to the minute, as CloudWatch (12:32:34 → 12:32:00)', () => {
    expect(alignStart(T0 + 32 * MIN + 34_000, T0 + 60 * MIN)).toBe(T0 + 32 * MIN);
  });

  it('rounds a start 15 to 63 days old down to 5 minutes, and an older one to the hour', () => {
    const day = 24 * 60 * MIN;
    expect(alignStart(T0 + 33 * MIN, T0 + 20 * day)).toBe(T0 + 30 * MIN);
    expect(alignStart(T0 + 33 * MIN, T0 + 70 * day)).toBe(T0);
  });
});

describe('periodStart', () => {
  it('counts periods from the aligned start', () => {
    const start = T0 + 2 * MIN;
    expect(periodStart(T0 + 2 * MIN, start, 300)).toBe(start);
    expect(periodStart(T0 + 6 * MIN + 59_000, start, 300)).toBe(start);
    expect(periodStart(T0 + 7 * MIN, start, 300)).toBe(start + 5 * MIN);
  });
});

describe('validPeriod', () => {
  it.each([
    [60, true],
    [300, true],
    [1, true],
    [30, true],
    [45, false],
    [0, false],
    [90, false],
    [60.5, false],
  ])('period %d is %s', (period, valid) => {
    expect(validPeriod(period)).toBe(valid);
  });
});

describe('MetricStore', () => {
  const store = new MetricStore();
  const dims = { FunctionName: 'conductor' };
  beforeAll(() => {
    // Minute 0: three invocations, one failed; minute 1: one; minute 6: two failed.
    for (const [at, value] of [
      [T0, 0],
      [T0 + 10_000, 1],
      [T0 + 59_999, 0],
      [T0 + MIN, 0],
      [T0 + 6 * MIN, 1],
      [T0 + 6 * MIN + 1, 1],
    ] as const)
      store.put('AWS/Lambda', 'Errors', dims, value, at);
    store.put('AWS/Lambda', 'Errors', { FunctionName: 'conductor', Resource: 'conductor:live' }, 1, T0);
  });

  const query = (stat: 'Sum' | 'Average' | 'SampleCount', periodSeconds: number, ascending = false) =>
    store.query(
      { namespace: 'AWS/Lambda', name: 'Errors', dimensions: dims, stat, periodSeconds, startMs: T0, endMs: T0 + 10 * MIN, ascending },
      T0 + 10 * MIN,
    );

  it('answers one datapoint per period with samples, newest first', () => {
    expect(query('Sum', 60)).toEqual({ timestamps: [T0 + 6 * MIN, T0 + MIN, T0], values: [2, 0, 1] });
  });

  it('sums minutes into longer periods, oldest first when asked', () => {
    expect(query('SampleCount', 300, true)).toEqual({ timestamps: [T0, T0 + 5 * MIN], values: [4, 2] });
    expect(query('Average', 300, true).values).toEqual([0.25, 1]);
  });

  it('keeps a metric to its exact dimensions, as CloudWatch', () => {
    const resource = store.query(
      {
        namespace: 'AWS/Lambda',
        name: 'Errors',
        dimensions: { Resource: 'conductor:live', FunctionName: 'conductor' },
        stat: 'Sum',
        periodSeconds: 60,
        startMs: T0,
        endMs: T0 + MIN,
      },
      T0 + MIN,
    );
    expect(resource).toEqual({ timestamps: [T0], values: [1] });
  });

  it('leaves out samples before the start or at the end', () => {
    const q = store.query(
      { namespace: 'AWS/Lambda', name: 'Errors', dimensions: dims, stat: 'Sum', periodSeconds: 60, startMs: T0 + MIN, endMs: T0 + 6 * MIN },
      T0 + 10 * MIN,
    );
    expect(q).toEqual({ timestamps: [T0 + MIN], values: [0] });
  });
});
