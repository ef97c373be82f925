/**
 * The benchmark run's dollar report: which counted work it prices, and how an idle fleet scales.
 */
import { NO_WORK, type Work, costOf, times } from '../../bench/cost';
import { costReport, idleMonthAt } from '../../bench/cost-report';

const RUN: Work = { ...NO_WORK, lambda: { conductor: { invocations: 1, durationMs: 50, memoryMb: 512 } }, dynamodbReadUnits: 10 };

describe('costReport', () => {
  it('prices 1,000 deploys and 1,000,000 reads from the work the benches counted', () => {
    const report = costReport({
      deploy: { perDeploy: { work: RUN } },
      api: { dynamodbRoundTripsPerRequest: { getNodeWork: RUN } },
    })!;
    expect((report.per1000FakeHardwareDeploys as { total: number }).total).toBeCloseTo(costOf(times(RUN, 1000)).total, 6);
    expect((report.per1000000ApiReads as { total: number }).total).toBeCloseTo(costOf(times(RUN, 1e6)).total, 3);
    expect(report.per1000AgentDeploys).toBeUndefined();
    expect((report.prices as { collected: string }).collected).toBe('2026-11-25');
  });

  it('reports nothing without counted work', () => {
    expect(costReport({ 'cold-start': {} })).toBeUndefined();
  });
});

describe('idleMonthAt', () => {
  const idle = {
    nodes: 100,
    periodicRuns: {
      sync_power_states: { everySeconds: 60, work: RUN },
      conductor_heartbeat: { everySeconds: 60, work: RUN },
    },
    tableBytesPerNode: 2000,
    queues: 1,
  };

  it('scales the tasks that page through the fleet, and storage, with the fleet; not the others', () => {
    const small = idleMonthAt(idle, 100);
    const large = idleMonthAt(idle, 10_000);
    // Reads: power sync ×100, the stuck-node check unchanged: (100 + 1) / 2 of the small fleet's.
    expect(large.dynamodbReads / small.dynamodbReads).toBeCloseTo(101 / 2, 6);
    expect(large.dynamodbStorage / small.dynamodbStorage).toBeCloseTo(100, 6);
  });
});
