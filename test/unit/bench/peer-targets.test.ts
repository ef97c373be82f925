/**
 * The peer benchmark's comparison: medians of each side's runs, the ratio Ironless / Ironic, and
 * pass or fail against each target (rates at least, times at most).
 */
import { PEER_TARGETS, type PeerTarget, compare, compareAll, median } from '../../bench/peer-targets';

const RATE: PeerTarget = { workload: 'getNode', metric: 'perSecond', better: 'higher', target: 5 };
const TIME: PeerTarget = { workload: 'shardList', metric: 'secondsPerList', better: 'lower', target: 0.2 };

describe('median', () => {
  it('takes the middle value of an odd count, whatever the order', () => {
    expect(median([9, 1, 4])).toBe(4);
  });

  it('averages the two middle values of an even count', () => {
    expect(median([1, 2, 3, 10])).toBe(2.5);
  });

  it('refuses no values', () => {
    expect(() => median([])).toThrow('median of no values');
  });
});

describe('compare', () => {
  it('passes a rate at or above its target ratio, with the speed-up the ratio', () => {
    expect(compare(RATE, [1000, 1200, 1100], [200, 220, 210])).toEqual({
      workload: 'getNode',
      metric: 'perSecond',
      ironless: 1100,
      ironic: 210,
      ratio: 5.24,
      speedUp: 5.24,
      target: '≥ 5',
      pass: true,
    });
    expect(compare(RATE, [1000], [200]).pass).toBe(true);
  });

  it('fails a rate below its target ratio', () => {
    const c = compare(RATE, [900, 950, 990], [200, 200, 200]);
    expect(c.ratio).toBe(4.75);
    expect(c.pass).toBe(false);
  });

  it('passes a time at or below its target ratio, with the speed-up its inverse', () => {
    const c = compare(TIME, [0.3, 0.2, 0.25], [2, 1.5, 1.25]);
    expect(c).toMatchObject({ ironless: 0.25, ironic: 1.5, ratio: 0.167, speedUp: 6, target: '≤ 0.2', pass: true });
  });

  it('fails a time above its target ratio', () => {
    expect(compare(TIME, [0.5], [2]).pass).toBe(false);
  });

  it('reports a workload without a target without passing or failing it', () => {
    const c = compare({ workload: 'listAllDetail', metric: 'seconds', better: 'lower' }, [3], [12]);
    expect(c).toMatchObject({ ratio: 0.25, speedUp: 4, target: null, pass: null });
  });

  it('refuses a figure that is not positive (a rate of 0 has no ratio)', () => {
    expect(() => compare(RATE, [100], [0])).toThrow('getNode: perSecond must be positive');
  });
});

describe('compareAll', () => {
  const runs = (getRate: number, seconds: number) => ({
    getNode: [{ perSecond: getRate }, { perSecond: getRate }, { perSecond: getRate }],
    shardList: [{ secondsPerList: seconds }, { secondsPerList: seconds * 2 }, { secondsPerList: seconds }],
  });

  it('compares every target and is met when none fails', () => {
    const out = compareAll(runs(1000, 0.1), runs(100, 1), [RATE, TIME]);
    expect(out.comparisons.map((c) => [c.workload, c.ratio, c.pass])).toEqual([
      ['getNode', 10, true],
      ['shardList', 0.1, true],
    ]);
    expect(out.allMet).toBe(true);
  });

  it('is not met when one target fails', () => {
    expect(compareAll(runs(1000, 0.5), runs(100, 1), [RATE, TIME]).allMet).toBe(false);
  });

  it('leaves out a reported-only workload that neither side ran, but not one with a target', () => {
    const ALL: PeerTarget = { workload: 'listAllDetail', metric: 'seconds', better: 'lower' };
    const out = compareAll(runs(1000, 0.1), runs(100, 1), [RATE, ALL]);
    expect(out.comparisons.map((c) => c.workload)).toEqual(['getNode']);
    expect(() => compareAll({ getNode: [] }, { getNode: [] }, [RATE])).toThrow('median of no values');
  });

  it('refuses a run that lacks the figure', () => {
    expect(() => compareAll({ getNode: [{}] }, { getNode: [{ perSecond: 1 }] }, [RATE])).toThrow('getNode: a run without perSecond');
  });

  it('has the issue targets: GET ≥ 5×, create ≥ 6×, deploys ≥ 5×, a shard listed in ≤ 0.2× the time', () => {
    expect(PEER_TARGETS.filter((t) => t.target !== undefined).map((t) => `${t.workload} ${t.better} ${t.target}`)).toEqual([
      'getNode higher 5',
      'createNode higher 6',
      'deploy higher 5',
      'shardList lower 0.2',
    ]);
  });
});
