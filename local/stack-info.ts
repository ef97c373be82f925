/**
 * What a running local stack tells other tools about itself, in `<dataDir>/stack.json`: kept
 * apart from `stack.ts` so tools (the CLI's dbsync) read it without loading the stack's services.
 */
import type { TableName } from '../functions/db/schema';

/** Prefix of the local stack's table names: `ironless-nodes`, … */
export const PREFIX = 'ironless';
/** The API's name and stage, as its AWS/ApiGateway metrics name them. */
export const API_NAME = 'ironless-api';
export const API_STAGE = 'local';
/** File in the data folder describing the running stack. */
export const STACK_FILE = 'stack.json';

/** What `<dataDir>/stack.json` holds. */
export interface LocalStackInfo {
  readonly pid: number;
  readonly startedAt: string;
  readonly url: string;
  readonly region: string;
  /**
   * DynamoDB (direct, not through a request counter), SQS, the endpoint of Lambda (invoke and
   * management), Step Functions and Secrets Manager (`aws`), and CloudWatch's (the same endpoint).
   */
  readonly endpoints: { readonly dynamodb: string; readonly sqs: string; readonly aws: string; readonly cloudwatch: string };
  /** Table names are `<tablePrefix>-<table>`. */
  readonly tablePrefix: string;
  readonly tables: Record<TableName, string>;
  /** The dbsync function's `live` alias ARN. */
  readonly functions: { readonly dbsync: string };
  /** Function names, for the Lambda API (their `live` aliases are what the stack invokes). */
  readonly lambda: {
    readonly api: string;
    readonly conductor: string;
    readonly dbsync: string;
    /** With http_basic only. */
    readonly authorizer?: string;
    /** Absent when the bundles are of a release without the web console. */
    readonly ui?: string;
  };
  /** The conductor groups' queues and their dead-letter queues. */
  readonly queues: readonly { readonly group: string; readonly url: string; readonly dlqUrl: string }[];
  /** The API's CloudWatch dimensions (AWS/ApiGateway ApiName and Stage). */
  readonly api: { readonly name: string; readonly stage: string };
}
