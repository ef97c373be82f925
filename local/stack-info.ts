/**
 * What a running local stack tells other tools about itself, in `<dataDir>/stack.json`: kept
 * apart from `stack.ts` so tools (the CLI's dbsync) read it without loading the stack's services.
 */
import type { TableName } from '../functions/db/schema';

/** Prefix of the local stack's table names: `ironless-nodes`, … */
export const PREFIX = 'ironless';
/** File in the data folder describing the running stack. */
export const STACK_FILE = 'stack.json';

/** What `<dataDir>/stack.json` holds. */
export interface LocalStackInfo {
  readonly pid: number;
  readonly startedAt: string;
  readonly url: string;
  readonly region: string;
  /** DynamoDB (direct, not through a request counter), SQS, and the Lambda/Step Functions endpoint. */
  readonly endpoints: { readonly dynamodb: string; readonly sqs: string; readonly aws: string };
  readonly tables: Record<TableName, string>;
  readonly functions: { readonly dbsync: string };
}
