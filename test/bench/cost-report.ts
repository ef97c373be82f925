/**
 * The dollar figures of a benchmark run, from the work the benches counted (their `work` fields):
 * per 1,000 deploys (fake-hardware, agent), per 1,000,000 API reads (GET node), and per month of an
 * idle fleet of 1,000 and 100,000 nodes. Pure: it reads the results, prices them with cost.ts.
 */
import { type Cost, type Work, costOf, dollars, idleMonthCost, times } from './cost';
import { PRICES } from './prices';

/**
 * Periodic tasks whose work grows with the fleet: they page through every node (power sync; the
 * stuck-node check, which the idle bench measured reading about one unit per node) or every
 * history record (history trimming). The others read an index of nodes waiting on a callback,
 * which an idle fleet leaves empty, or register the conductor.
 */
export const PER_NODE_TASKS: ReadonlySet<string> = new Set(['sync_power_states', 'fail_stuck_nodes', 'manage_node_history']);
/** The stack's default log retention (lib/ironless-stack.ts: one year). */
export const LOG_RETENTION_MONTHS = 12;
export const FLEETS = [1_000, 100_000] as const;

interface IdleResult {
  readonly nodes: number;
  readonly periodicRuns: Record<string, { everySeconds: number; work: Work }>;
  readonly tableBytesPerNode: number;
  readonly queues: number;
}

type Results = Record<string, unknown>;

function workAt(results: Results, path: readonly string[]): Work | undefined {
  let value: unknown = results;
  for (const key of path) value = (value as Record<string, unknown> | undefined)?.[key];
  return value as Work | undefined;
}

/** An idle month at `fleet` nodes, from one run of each task at `idle.nodes` nodes. */
export function idleMonthAt(idle: IdleResult, fleet: number): Cost {
  const periodic = Object.entries(idle.periodicRuns).map(([task, run]) => ({
    everySeconds: run.everySeconds,
    work: PER_NODE_TASKS.has(task) ? times(run.work, fleet / idle.nodes) : run.work,
  }));
  return idleMonthCost({
    periodic,
    dynamodbBytes: idle.tableBytesPerNode * fleet,
    queues: idle.queues,
    logRetentionMonths: LOG_RETENTION_MONTHS,
  });
}

export function costReport(results: Results): Record<string, unknown> | undefined {
  const report: Record<string, unknown> = {};
  const fake = workAt(results, ['deploy', 'perDeploy', 'work']);
  const agent = workAt(results, ['agent-deploy', 'perDeploy', 'work']);
  const read = workAt(results, ['api', 'dynamodbRoundTripsPerRequest', 'getNodeWork']);
  const idle = results.idle as IdleResult | undefined;
  if (fake) report.per1000FakeHardwareDeploys = dollars(costOf(times(fake, 1000)));
  if (agent) report.per1000AgentDeploys = dollars(costOf(times(agent, 1000)));
  if (read) report.per1000000ApiReads = dollars(costOf(times(read, 1_000_000)));
  if (idle)
    for (const fleet of FLEETS) {
      report[`idleMonth${fleet}Nodes`] = dollars(idleMonthAt(idle, fleet));
    }
  if (Object.keys(report).length === 0) return undefined;
  return {
    prices: { collected: PRICES.collected, region: PRICES.region, note: PRICES.note },
    ...report,
    note: `Dollars at the list prices of test/bench/prices.ts. Lambda durations are as the local host measured them (worker threads sharing this machine's cores: more than one Lambda execution environment would take). Estimated, not counted: SQS requests (3 per message: send, receive, delete; the event source mapping's 5 long polls per queue when idle) and Lambda's own log lines (START/END/REPORT). Idle fleets scale ${[...PER_NODE_TASKS].join(' and ')} and table bytes linearly from the idle bench's fleet; the other periodic tasks are taken as measured. Log storage: ${LOG_RETENTION_MONTHS} months kept.`,
  };
}
