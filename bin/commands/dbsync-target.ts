/**
 * Which tables `ironless dbsync` works on: a running local stack (its `<data>/stack.json`), the
 * data folder of a stopped one (DynamoDB Local is started on it for the command), a deployed stack
 * (table names from its CloudFormation outputs), or tables named outright.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { releaseFromEnv } from '../../functions/common/releases';
import { createDocumentClient } from '../../functions/db/client';
import { profileConfig } from '../../functions/db/dynamo';
import { versionedTables } from '../../functions/db/codecs';
import type { DbsyncContext } from '../../functions/db/dbsync';
import { TABLES, type TableName, tableNamesFromEnv, tableOutputKey } from '../../functions/db/schema';
import { createTables, startDynamoDbLocal } from '../../local/dynamodb';
import { type LocalStackInfo, PREFIX, STACK_FILE } from '../../local/stack-info';

export interface TargetOptions {
  readonly data: string;
  readonly stack?: string;
  readonly tables?: string;
  readonly endpoint?: string;
  readonly region?: string;
  readonly segments: number;
}

export interface Target {
  /** For the user: what the command works on. */
  readonly description: string;
  readonly ctx: DbsyncContext;
  /** Physical table names (for stores: `ironless fleet import`). */
  readonly tables: Record<TableName, string>;
  close(): Promise<void>;
}

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

export async function resolveTarget(options: TargetOptions): Promise<Target> {
  const release = releaseFromEnv();
  const make = (client: DynamoDBClient, tables: Record<TableName, string>, description: string): Target => {
    const documents = createDocumentClient(client);
    return {
      description,
      tables,
      ctx: { client: documents, tables: versionedTables(tables), release, segments: options.segments },
      close: async () => {
        documents.destroy();
        client.destroy();
      },
    };
  };
  // dbsync's retries and timeouts (a long batch job, patient under throttling).
  const aws: DynamoDBClientConfig = {
    ...profileConfig('tool'),
    ...(options.region ? { region: options.region } : {}),
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
  };

  if (options.stack !== undefined) {
    const tables = await stackTables(options.stack, options.region);
    return make(new DynamoDBClient(aws), tables, `stack ${options.stack}`);
  }
  if (options.tables !== undefined) return make(new DynamoDBClient(aws), parseTables(options.tables), 'the tables named by --tables');
  if (process.env[TABLES.nodes.envVar])
    return make(new DynamoDBClient(aws), tableNamesFromEnv(process.env), 'the tables named by the environment');

  const dataDir = resolve(options.data);
  const running = runningStack(dataDir);
  if (running) {
    const client = localClient(running.endpoints.dynamodb);
    // A stack of an earlier release names only its own tables; a newer table has the local name
    // (`upgrade` creates it, and until then it holds nothing to check).
    const target = make(client, { ...localNames(), ...running.tables }, `the local stack running from ${dataDir} (pid ${running.pid})`);
    return { ...target, ctx: { ...target.ctx, applySchema: () => applySchema(client) } };
  }
  // A stopped stack: its tables are files under <data>/dynamodb; serve them for this command.
  const dynamo = await startDynamoDbLocal({ dataDir: join(dataDir, 'dynamodb') });
  const client = localClient(dynamo.endpoint);
  const target = make(client, localNames(), `the local data in ${dataDir} (the stack is not running)`);
  return {
    ...target,
    ctx: { ...target.ctx, applySchema: () => applySchema(client) },
    close: async () => {
      await target.close();
      await dynamo.stop();
    },
  };
}

/** The table names of a local stack (`createTables`). */
function localNames(): Record<TableName, string> {
  return Object.fromEntries(Object.keys(TABLES).map((name) => [name, `${PREFIX}-${name}`])) as Record<TableName, string>;
}

function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
}

/** What `upgrade` applies on a local stack: tables and indexes the schema has and the data lacks. */
async function applySchema(client: DynamoDBClient): Promise<string[]> {
  const applied: string[] = [];
  await createTables(client, PREFIX, (line) => applied.push(line));
  return applied;
}

/** The stack described by `<data>/stack.json`, if its process still runs. */
function runningStack(dataDir: string): LocalStackInfo | undefined {
  const file = join(dataDir, STACK_FILE);
  if (!existsSync(file)) return undefined;
  const info = JSON.parse(readFileSync(file, 'utf8')) as LocalStackInfo;
  try {
    process.kill(info.pid, 0);
    return info;
  } catch {
    return undefined; // left behind by a stack that died
  }
}

/** `nodes=NAME,ports=NAME,…`: every table of the schema must be named. */
export function parseTables(list: string): Record<TableName, string> {
  const names: Partial<Record<TableName, string>> = {};
  for (const pair of list.split(',').filter((p) => p.trim() !== '')) {
    const [key, value] = pair.split('=').map((s) => s.trim());
    if (!key || !value || !(key in TABLES))
      throw new Error(`--tables: "${pair}" is not <table>=<name> with a table of ${Object.keys(TABLES).join(', ')}`);
    names[key as TableName] = value;
  }
  const missing = Object.keys(TABLES).filter((name) => names[name as TableName] === undefined);
  if (missing.length > 0) throw new Error(`--tables: missing ${missing.join(', ')}`);
  return names as Record<TableName, string>;
}

/** Table names from a deployed stack's outputs (`tableOutputKey`). */
async function stackTables(stackName: string, region: string | undefined): Promise<Record<TableName, string>> {
  const cfn = new CloudFormationClient(region ? { region } : {});
  try {
    const { Stacks } = await cfn.send(new DescribeStacksCommand({ StackName: stackName }));
    const outputs = new Map((Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
    const names: Partial<Record<TableName, string>> = {};
    for (const name of Object.keys(TABLES) as TableName[]) {
      const value = outputs.get(tableOutputKey(name));
      if (!value) throw new Error(`Stack ${stackName} has no output ${tableOutputKey(name)}: deploy this release's stack first`);
      names[name] = value;
    }
    return names as Record<TableName, string>;
  } finally {
    cfn.destroy();
  }
}
