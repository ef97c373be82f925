/**
 * What an upgrade works on: a running local stack (`--data DIR`, its `stack.json`) or a deployed
 * one (`--stack NAME`, its CloudFormation outputs). Either way the command gets AWS SDK clients
 * and names, and the same code drives both: the local stack's endpoint speaks Lambda's, CloudWatch's
 * and SQS's APIs as AWS does.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SQSClient } from '@aws-sdk/client-sqs';
import { TABLES, type TableName, tableOutputKey } from '../../functions/db/schema';
import { STACK_OUTPUTS } from '../../lib/outputs';
import { type LocalStackInfo, STACK_FILE } from '../../local/stack-info';
import { UpgradeRefused } from './decisions';

export interface UpgradeTarget {
  /** For the operator: what is being upgraded. */
  readonly description: string;
  readonly kind: 'local' | 'aws';
  /** `--data DIR` of a local stack (for in-process dbsync), or `--stack NAME`. */
  readonly where: { readonly data?: string; readonly stack?: string; readonly region?: string };
  readonly lambda: LambdaClient;
  readonly cloudwatch: CloudWatchClient;
  readonly sqs: SQSClient;
  readonly dynamodb: DynamoDBClient;
  /** Function names. */
  readonly functions: { readonly conductor: string; readonly api: string; readonly dbsync: string; readonly others: readonly string[] };
  readonly deadLetterQueues: readonly string[];
  /** API Gateway's ApiName and Stage dimensions. */
  readonly restApi: { readonly name: string; readonly stage: string };
  /** The conductors table (liveness). */
  readonly conductorsTable: string;
  /** The physical name of a table of the new code (new tables get the stack's naming). */
  tableName(logical: string): string | undefined;
  close(): void;
}

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
/** As tools talk to AWS: the SDK's standard retries, a little more patient. */
const RETRIES = { maxAttempts: 5, retryMode: 'standard' } as const;

export async function resolveUpgradeTarget(options: { data?: string; stack?: string; region?: string }): Promise<UpgradeTarget> {
  if (options.stack !== undefined) return stackTarget(options.stack, options.region);
  return localTarget(resolve(options.data ?? '.ironless'));
}

function localTarget(dataDir: string): UpgradeTarget {
  const file = join(dataDir, STACK_FILE);
  if (!existsSync(file))
    throw new UpgradeRefused(
      `No local stack runs from ${dataDir} (no ${STACK_FILE}): start it with \`npx ironless local --data ${dataDir}\``,
    );
  const info = JSON.parse(readFileSync(file, 'utf8')) as LocalStackInfo;
  try {
    process.kill(info.pid, 0);
  } catch {
    throw new UpgradeRefused(`The local stack of ${dataDir} (pid ${info.pid}) is not running: start it again first`);
  }
  const config = { region: info.region, credentials: LOCAL_CREDENTIALS, ...RETRIES };
  const lambda = new LambdaClient({ ...config, endpoint: info.endpoints.aws });
  const cloudwatch = new CloudWatchClient({ ...config, endpoint: info.endpoints.cloudwatch });
  const sqs = new SQSClient({ ...config, endpoint: info.endpoints.sqs });
  const dynamodb = new DynamoDBClient({ ...config, endpoint: info.endpoints.dynamodb });
  const prefix = info.tablePrefix;
  const tables: Record<string, string> = { ...info.tables };
  return {
    description: `the local stack running from ${dataDir} (pid ${info.pid}, ${info.url})`,
    kind: 'local',
    where: { data: dataDir },
    lambda,
    cloudwatch,
    sqs,
    dynamodb,
    functions: {
      conductor: info.lambda.conductor,
      api: info.lambda.api,
      dbsync: info.lambda.dbsync,
      others: [info.lambda.authorizer, info.lambda.ui].filter((f): f is string => f !== undefined),
    },
    deadLetterQueues: info.queues.map((q) => q.dlqUrl),
    restApi: info.api,
    conductorsTable: tables.conductors ?? `${prefix}-conductors`,
    tableName: (logical) => tables[logical] ?? (logical in TABLES ? `${prefix}-${logical}` : undefined),
    close: () => [lambda, cloudwatch, sqs, dynamodb].forEach((c) => c.destroy()),
  };
}

async function stackTarget(stackName: string, region: string | undefined): Promise<UpgradeTarget> {
  const config = { ...(region ? { region } : {}), ...RETRIES };
  const cfn = new CloudFormationClient(config);
  let outputs: Map<string | undefined, string | undefined>;
  try {
    const { Stacks } = await cfn.send(new DescribeStacksCommand({ StackName: stackName }));
    outputs = new Map((Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
  } finally {
    cfn.destroy();
  }
  const need = (key: string): string => {
    const value = outputs.get(key);
    if (!value)
      throw new UpgradeRefused(
        `Stack ${stackName} has no output ${key}: deploy this checkout's stack first (cdk deploy -c rollout=ironless-upgrade)`,
      );
    return value;
  };
  const list = (key: string): string[] => {
    const value = outputs.get(key);
    if (!value) return [];
    return value.trim().startsWith('[')
      ? (JSON.parse(value) as string[])
      : value
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
  };
  const lambda = new LambdaClient(config);
  const cloudwatch = new CloudWatchClient(config);
  const sqs = new SQSClient(config);
  const dynamodb = new DynamoDBClient(config);
  const authorizer = outputs.get(STACK_OUTPUTS.authorizerFunctionName);
  return {
    description: `stack ${stackName}${region ? ` in ${region}` : ''}`,
    kind: 'aws',
    where: { stack: stackName, ...(region ? { region } : {}) },
    lambda,
    cloudwatch,
    sqs,
    dynamodb,
    functions: {
      conductor: need(STACK_OUTPUTS.conductorFunctionName),
      api: need(STACK_OUTPUTS.apiFunctionName),
      dbsync: need(STACK_OUTPUTS.dbsyncFunctionName),
      others: authorizer ? [authorizer] : [],
    },
    deadLetterQueues: list(STACK_OUTPUTS.conductorDeadLetterQueues),
    restApi: { name: need(STACK_OUTPUTS.restApiName), stage: need(STACK_OUTPUTS.restApiStage) },
    conductorsTable: need(tableOutputKey('conductors')),
    tableName: (logical) => outputs.get(tableOutputKey(logical)),
    close: () => [lambda, cloudwatch, sqs, dynamodb].forEach((c) => c.destroy()),
  };
}

export type { TableName };
