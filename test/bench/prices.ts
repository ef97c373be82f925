/**
 * AWS list prices the benchmark's dollar figures use: us-east-1, on-demand, x86, without free tiers,
 * discounts or Savings Plans, as AWS's pricing pages list them. Collected 2026-11-25; compare a
 * figure only with figures computed from the same prices.
 */
export const PRICES = {
  collected: '2026-11-25',
  region: 'us-east-1',
  note: 'AWS list prices (us-east-1, on-demand, x86, no free tier)',
  lambda: {
    /** Per request. $0.20 per million. */
    request: 0.2 / 1e6,
    /** Per GB-second of duration (x86, first pricing tier). */
    gbSecond: 0.0000166667,
  },
  stepFunctions: {
    /** Standard workflows, per state transition. $0.025 per 1,000. */
    stateTransition: 0.025 / 1000,
  },
  dynamodb: {
    /** On-demand, per write request unit (1 KB). $0.625 per million. */
    writeRequestUnit: 0.625 / 1e6,
    /** On-demand, per read request unit (4 KB strongly consistent, 8 KB eventually). $0.125 per million. */
    readRequestUnit: 0.125 / 1e6,
    /** Standard table class, per GB-month. */
    storageGbMonth: 0.25,
  },
  sqs: {
    /** Standard queue, per request (each 64 KB of payload is one). $0.40 per million. */
    request: 0.4 / 1e6,
  },
  apiGateway: {
    /** REST API, per request (first 333 million a month). $3.50 per million. */
    restRequest: 3.5 / 1e6,
  },
  cloudwatchLogs: {
    /** Standard log class, per GB ingested. */
    ingestionGb: 0.5,
    /** Per GB-month archived (stored). */
    storageGbMonth: 0.03,
  },
  eventbridge: {
    /** Scheduled rules (the periodic tasks' schedules) carry no charge. */
    scheduledInvocation: 0,
  },
} as const;

export type Prices = typeof PRICES;
