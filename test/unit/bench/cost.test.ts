/**
 * The benchmark's dollar figures: counted work priced at the list prices of test/bench/prices.ts.
 */
import {
  LAMBDA_PLATFORM_LOG_BYTES,
  NO_WORK,
  SECONDS_PER_MONTH,
  SQS_IDLE_POLLS_PER_MONTH,
  SQS_REQUESTS_PER_MESSAGE,
  type Work,
  costOf,
  dollars,
  idleMonthCost,
  plus,
  times,
} from '../../bench/cost';
import { PRICES } from '../../bench/prices';

const DEPLOY: Work = {
  lambda: { api: { invocations: 1, durationMs: 9.5, memoryMb: 1024 }, conductor: { invocations: 2, durationMs: 59, memoryMb: 512 } },
  stateTransitions: 4,
  dynamodbReadUnits: 3,
  dynamodbWriteUnits: 10,
  sqsMessages: 1,
  apiRequests: 1,
  logBytes: 1000,
};

describe('costOf', () => {
  it('prices each service from its count', () => {
    const cost = costOf(DEPLOY);
    expect(cost.lambdaRequests).toBeCloseTo(3 * 0.2e-6, 12);
    // (9.5 + 0.5) ms at 1 GB and (59 + 1) ms at 0.5 GB: 0.04 GB-s.
    expect(cost.lambdaDuration).toBeCloseTo(0.04 * PRICES.lambda.gbSecond, 12);
    expect(cost.stepFunctions).toBeCloseTo(4 * 0.000025, 12);
    expect(cost.dynamodbReads).toBeCloseTo(3 * 0.125e-6, 12);
    expect(cost.dynamodbWrites).toBeCloseTo(10 * 0.625e-6, 12);
    expect(cost.sqs).toBeCloseTo(SQS_REQUESTS_PER_MESSAGE * 0.4e-6, 12);
    expect(cost.apiGateway).toBeCloseTo(3.5e-6, 12);
    expect(cost.logsIngestion).toBeCloseTo(((1000 + 3 * LAMBDA_PLATFORM_LOG_BYTES) / 1024 ** 3) * 0.5, 12);
    expect(cost.dynamodbStorage).toBe(0);
    const { total, ...parts } = cost;
    expect(total).toBeCloseTo(
      Object.values(parts).reduce((a, b) => a + b, 0),
      12,
    );
  });

  it('costs nothing for no work', () => {
    expect(costOf(NO_WORK).total).toBe(0);
  });

  it('scales linearly: a thousand deploys cost a thousand times one', () => {
    expect(costOf(times(DEPLOY, 1000)).total).toBeCloseTo(1000 * costOf(DEPLOY).total, 9);
  });
});

describe('plus', () => {
  it('adds counts and each function’s invocations and durations', () => {
    const sum = plus(DEPLOY, { ...NO_WORK, lambda: { conductor: { invocations: 1, durationMs: 1, memoryMb: 512 } }, sqsMessages: 2 });
    expect(sum.lambda.conductor).toEqual({ invocations: 3, durationMs: 60, memoryMb: 512 });
    expect(sum.lambda.api).toEqual(DEPLOY.lambda.api);
    expect(sum.sqsMessages).toBe(3);
  });
});

describe('idleMonthCost', () => {
  const run: Work = { ...NO_WORK, lambda: { conductor: { invocations: 1, durationMs: 99.5, memoryMb: 1024 } }, dynamodbReadUnits: 2 };

  it('runs each periodic task as often as its schedule says for 30 days', () => {
    const month = idleMonthCost({ periodic: [{ work: run, everySeconds: 60 }], dynamodbBytes: 0, queues: 0, logRetentionMonths: 0 });
    const runs = SECONDS_PER_MONTH / 60;
    expect(month.lambdaRequests).toBeCloseTo(runs * 0.2e-6, 9);
    expect(month.lambdaDuration).toBeCloseTo(runs * 0.1 * PRICES.lambda.gbSecond, 9);
    expect(month.dynamodbReads).toBeCloseTo(runs * 2 * 0.125e-6, 9);
  });

  it('adds storage, the queues’ idle polls and the logs kept', () => {
    const month = idleMonthCost({ periodic: [], dynamodbBytes: 2 * 1024 ** 3, queues: 2, logRetentionMonths: 12 });
    expect(month.dynamodbStorage).toBeCloseTo(0.5, 9);
    expect(month.sqs).toBeCloseTo(2 * SQS_IDLE_POLLS_PER_MONTH * 0.4e-6, 9);
    expect(month.lambdaRequests + month.lambdaDuration).toBe(0);
    expect(month.total).toBeCloseTo(month.dynamodbStorage + month.sqs, 9);
  });
});

describe('dollars', () => {
  it('keeps four significant digits', () => {
    expect(dollars(costOf(times(DEPLOY, 1000))).stepFunctions).toBe(0.1);
    expect(dollars({ ...costOf(NO_WORK), total: 0.123456 }).total).toBe(0.1235);
  });
});
