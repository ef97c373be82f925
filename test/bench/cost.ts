/**
 * Dollars from counted work, at the list prices of prices.ts. Pure: the benchmarks count (Lambda
 * invocations and their durations, state transitions, DynamoDB capacity units, SQS messages, API
 * requests, log bytes) and this prices what they counted.
 *
 * Two figures are estimates, not counts, and say so where they are reported:
 * - SQS requests: each message is sent once, received once and deleted once (`SQS_REQUESTS_PER_MESSAGE`),
 *   as Lambda's event source mapping does at low load; at high load it receives and deletes in
 *   batches of up to 10, so this is an upper bound. An idle queue still costs the mapping's long
 *   polls (`SQS_IDLE_POLLS_PER_MONTH`).
 * - Log bytes Lambda adds itself (START, END and REPORT lines, `LAMBDA_PLATFORM_LOG_BYTES`).
 */
import { PRICES, type Prices } from './prices';

/** Sent, received, deleted. */
export const SQS_REQUESTS_PER_MESSAGE = 3;
/** Bytes of Lambda's START, END and REPORT lines per invocation (their usual length in text format). */
export const LAMBDA_PLATFORM_LOG_BYTES = 280;
/**
 * Lambda's SQS event source mapping long-polls an empty queue with 5 pollers, each a 20-second
 * ReceiveMessage: 5 × 3 a minute for 30 days.
 */
export const SQS_IDLE_POLLS_PER_MONTH = 5 * 3 * 60 * 24 * 30;
export const SECONDS_PER_MONTH = 30 * 24 * 3600;
const GB = 1024 ** 3;

export interface FunctionWork {
  readonly invocations: number;
  /** Summed duration of the invocations, milliseconds. */
  readonly durationMs: number;
  /** The function's configured memory. */
  readonly memoryMb: number;
}

/** Work counted for some unit (one deploy, one read, one run of a periodic task). */
export interface Work {
  readonly lambda: Readonly<Record<string, FunctionWork>>;
  readonly stateTransitions: number;
  readonly dynamodbReadUnits: number;
  readonly dynamodbWriteUnits: number;
  readonly sqsMessages: number;
  readonly apiRequests: number;
  /** Bytes the functions logged (their own lines; Lambda's platform lines are added here). */
  readonly logBytes: number;
}

export const NO_WORK: Work = {
  lambda: {},
  stateTransitions: 0,
  dynamodbReadUnits: 0,
  dynamodbWriteUnits: 0,
  sqsMessages: 0,
  apiRequests: 0,
  logBytes: 0,
};

export interface Cost {
  readonly lambdaRequests: number;
  readonly lambdaDuration: number;
  readonly stepFunctions: number;
  readonly dynamodbReads: number;
  readonly dynamodbWrites: number;
  readonly dynamodbStorage: number;
  readonly sqs: number;
  readonly apiGateway: number;
  readonly logsIngestion: number;
  readonly logsStorage: number;
  readonly total: number;
}

function withTotal(parts: Omit<Cost, 'total'>): Cost {
  return { ...parts, total: Object.values(parts).reduce((a, b) => a + b, 0) };
}

/** What `work` costs. Lambda bills each invocation's duration rounded up to the millisecond: half a millisecond more on average. */
export function costOf(work: Work, prices: Prices = PRICES): Cost {
  let invocations = 0;
  let gbSeconds = 0;
  for (const fn of Object.values(work.lambda)) {
    invocations += fn.invocations;
    gbSeconds += ((fn.durationMs + 0.5 * fn.invocations) / 1000) * (fn.memoryMb / 1024);
  }
  return withTotal({
    lambdaRequests: invocations * prices.lambda.request,
    lambdaDuration: gbSeconds * prices.lambda.gbSecond,
    stepFunctions: work.stateTransitions * prices.stepFunctions.stateTransition,
    dynamodbReads: work.dynamodbReadUnits * prices.dynamodb.readRequestUnit,
    dynamodbWrites: work.dynamodbWriteUnits * prices.dynamodb.writeRequestUnit,
    dynamodbStorage: 0,
    sqs: work.sqsMessages * SQS_REQUESTS_PER_MESSAGE * prices.sqs.request,
    apiGateway: work.apiRequests * prices.apiGateway.restRequest,
    logsIngestion: ((work.logBytes + invocations * LAMBDA_PLATFORM_LOG_BYTES) / GB) * prices.cloudwatchLogs.ingestionGb,
    logsStorage: 0,
  });
}

/** `work` done `times` times. */
export function times(work: Work, n: number): Work {
  const lambda: Record<string, FunctionWork> = {};
  for (const [name, fn] of Object.entries(work.lambda))
    lambda[name] = { invocations: fn.invocations * n, durationMs: fn.durationMs * n, memoryMb: fn.memoryMb };
  return {
    lambda,
    stateTransitions: work.stateTransitions * n,
    dynamodbReadUnits: work.dynamodbReadUnits * n,
    dynamodbWriteUnits: work.dynamodbWriteUnits * n,
    sqsMessages: work.sqsMessages * n,
    apiRequests: work.apiRequests * n,
    logBytes: work.logBytes * n,
  };
}

/** The sum of two pieces of work (a function's memory is the first one's). */
export function plus(a: Work, b: Work): Work {
  const lambda: Record<string, FunctionWork> = { ...a.lambda };
  for (const [name, fn] of Object.entries(b.lambda)) {
    const mine = lambda[name];
    lambda[name] = mine
      ? { invocations: mine.invocations + fn.invocations, durationMs: mine.durationMs + fn.durationMs, memoryMb: mine.memoryMb }
      : fn;
  }
  return {
    lambda,
    stateTransitions: a.stateTransitions + b.stateTransitions,
    dynamodbReadUnits: a.dynamodbReadUnits + b.dynamodbReadUnits,
    dynamodbWriteUnits: a.dynamodbWriteUnits + b.dynamodbWriteUnits,
    sqsMessages: a.sqsMessages + b.sqsMessages,
    apiRequests: a.apiRequests + b.apiRequests,
    logBytes: a.logBytes + b.logBytes,
  };
}

export interface IdleFleet {
  /** Each periodic task: the work of one run at this fleet's size, and how often it runs. */
  readonly periodic: readonly { readonly work: Work; readonly everySeconds: number }[];
  /** Bytes the tables hold. */
  readonly dynamodbBytes: number;
  /** Conductor queues (each long-polled by its event source mapping while idle). */
  readonly queues: number;
  /** Months logs are kept: the stored bytes of a steady month are this many months' ingestion. */
  readonly logRetentionMonths: number;
}

/** A month of an idle fleet: its periodic tasks, the tables' storage, the queues' polls, the logs kept. */
export function idleMonthCost(fleet: IdleFleet, prices: Prices = PRICES): Cost {
  let work = NO_WORK;
  for (const task of fleet.periodic) work = plus(work, times(task.work, SECONDS_PER_MONTH / task.everySeconds));
  const { total: _, ...running } = costOf(work, prices);
  let invocations = 0;
  for (const fn of Object.values(work.lambda)) invocations += fn.invocations;
  const loggedGb = (work.logBytes + invocations * LAMBDA_PLATFORM_LOG_BYTES) / GB;
  return withTotal({
    ...running,
    sqs: running.sqs + fleet.queues * SQS_IDLE_POLLS_PER_MONTH * prices.sqs.request,
    dynamodbStorage: (fleet.dynamodbBytes / GB) * prices.dynamodb.storageGbMonth,
    logsStorage: loggedGb * fleet.logRetentionMonths * prices.cloudwatchLogs.storageGbMonth,
  });
}

/** Dollars rounded for a report: 4 significant digits. */
export function dollars(cost: Cost): Record<keyof Cost, number> {
  return Object.fromEntries(Object.entries(cost).map(([k, v]) => [k, Number(v.toPrecision(4))])) as Record<keyof Cost, number>;
}
