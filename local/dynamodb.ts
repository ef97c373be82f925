/**
 * DynamoDB on one machine: Amazon's DynamoDB Local (the jar shipped in the npm package
 * amplify-dynamodb-simulator) under the machine's Java, and the tables of `functions/db/schema.ts`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  UpdateTableCommand,
  type GlobalSecondaryIndexDescription,
} from '@aws-sdk/client-dynamodb';
import { INDEX_PROJECTION, TABLES, type TableDef, type TableName } from '../functions/db/schema';

/** Where the DynamoDB Local jar is. */
export function dynamoDbLocalDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('amplify-dynamodb-simulator/package.json')), 'emulator');
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface DynamoDbLocal {
  readonly endpoint: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

/** Start DynamoDB Local, in memory or persisting under `dataDir`; resolves once it answers. */
export async function startDynamoDbLocal(options: { dataDir?: string; port?: number } = {}): Promise<DynamoDbLocal> {
  const port = options.port ?? (await freePort());
  const dir = dynamoDbLocalDir();
  const args = [
    `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
    '-Xms256m',
    '-jar',
    join(dir, 'DynamoDBLocal.jar'),
    '-port',
    String(port),
    '-sharedDb',
  ];
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true });
    args.push('-dbPath', options.dataDir);
  } else {
    args.push('-inMemory');
  }
  const child = spawn('java', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<never>((_, reject) => {
    child.once('error', (err) => reject(new Error(`Could not start Java for DynamoDB Local (is Java 17 installed?): ${err.message}`)));
    child.once('exit', (code) => reject(new Error(`DynamoDB Local exited with code ${code}:\n${output}`)));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const ready = (async () => {
    // Up to a minute: a JVM starting beside a loaded stack (the grenade test) takes its time.
    for (let i = 0; i < 1200; i++) {
      try {
        await client.send(new DescribeTableCommand({ TableName: '__ironless_probe' }));
        return;
      } catch (err) {
        if (err instanceof ResourceNotFoundException) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    throw new Error(`DynamoDB Local did not answer on ${endpoint}:\n${output}`);
  })();
  await Promise.race([ready, exited]);
  client.destroy();
  return {
    endpoint,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      }),
  };
}

/** Key attributes (all strings) of a table and its indexes. */
function attributeDefinitions(def: TableDef) {
  const names = new Set<string>([def.partitionKey]);
  if (def.sortKey) names.add(def.sortKey);
  for (const index of def.indexes) {
    names.add(index.partitionKey);
    if (index.sortKey) names.add(index.sortKey);
  }
  return [...names].map((AttributeName) => ({ AttributeName, AttributeType: 'S' as const }));
}

function keySchema(partitionKey: string, sortKey?: string) {
  return [
    { AttributeName: partitionKey, KeyType: 'HASH' as const },
    ...(sortKey ? [{ AttributeName: sortKey, KeyType: 'RANGE' as const }] : []),
  ];
}

/**
 * Create the tables of the schema or of `tables` (or add indexes a persisted table lacks). Returns physical
 * names; `report` hears each table and index created.
 */
export async function createTables(
  client: DynamoDBClient,
  prefix: string,
  report: (line: string) => void = () => {},
  /** The tables to create: the schema's (default), or a release's (its build manifest's `tables`). */
  tables: Readonly<Record<string, TableDef>> = TABLES,
): Promise<Record<TableName, string>> {
  const names = {} as Record<TableName, string>;
  for (const [name, def] of Object.entries(tables) as [TableName, TableDef][]) {
    const tableName = `${prefix}-${name}`;
    names[name] = tableName;
    let existing: GlobalSecondaryIndexDescription[] | undefined;
    try {
      existing = (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table?.GlobalSecondaryIndexes ?? [];
    } catch (err) {
      if (!(err instanceof ResourceNotFoundException)) throw err;
    }
    if (existing === undefined) {
      await client.send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: attributeDefinitions(def),
          KeySchema: keySchema(def.partitionKey, def.sortKey),
          GlobalSecondaryIndexes:
            def.indexes.length === 0
              ? undefined
              : def.indexes.map((index) => ({
                  IndexName: index.name,
                  KeySchema: keySchema(index.partitionKey, index.sortKey),
                  Projection: { ProjectionType: INDEX_PROJECTION },
                })),
        }),
      );
      report(`Created table ${tableName}${def.indexes.length > 0 ? ` with indexes ${def.indexes.map((i) => i.name).join(', ')}` : ''}`);
      continue;
    }
    for (const index of def.indexes) {
      if (existing.some((e) => e.IndexName === index.name)) continue;
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: attributeDefinitions(def),
          GlobalSecondaryIndexUpdates: [
            {
              Create: {
                IndexName: index.name,
                KeySchema: keySchema(index.partitionKey, index.sortKey),
                Projection: { ProjectionType: INDEX_PROJECTION },
              },
            },
          ],
        }),
      );
      report(`Created index ${index.name} on table ${tableName}`);
    }
  }
  return names;
}
