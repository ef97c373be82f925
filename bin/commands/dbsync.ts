/**
 * `ironless dbsync`: Ironic's `ironic-dbsync` for Ironless tables, with its exit codes (0 done,
 * 1 migrations remain, 2 tables this release cannot read, 127 bad --max-count).
 *
 *   ironless dbsync version                      release, object versions written/read/in the tables
 *   ironless dbsync upgrade                      refuse unreadable items; create missing local tables/indexes
 *   ironless dbsync online-data-migrations [--max-count N]
 *
 * Where: a local stack by default (`--data DIR`), `--stack NAME` (a deployed stack), `--tables`
 * or NODES_TABLE… in the environment; `--function ARN` runs the command in the deployed dbsync
 * function instead. PIN_RELEASE_VERSION selects the release, as for the functions.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { SingleBar } from 'cli-progress';
import Table from 'cli-table3';
import { type Command, InvalidArgumentError } from 'commander';
import type { DbsyncContext, DbsyncOutcome, VersionReport } from '../../functions/db/dbsync';
import { dbsyncOnlineDataMigrations, dbsyncUpgrade, dbsyncVersion } from '../../functions/db/dbsync';
import type { MigrationResult } from '../../functions/db/migrations';
import type { DbsyncCommand, DbsyncEvent } from '../../functions/dbsync/index';
import { type TargetOptions, resolveTarget } from './dbsync-target';
import { positiveInteger } from './options';

interface GlobalOptions extends TargetOptions {
  readonly function?: string;
  readonly json?: boolean;
}

/** Any integer: Ironic's own check turns values below 1 into exit code 127 with its message. */
function integer(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new InvalidArgumentError('expected a whole number');
  return n;
}

export function registerDbsync(program: Command): void {
  const dbsync = program
    .command('dbsync')
    .description("check and migrate the tables' object versions (Ironic's ironic-dbsync)")
    .option('--data <dir>', "a local stack's data folder (running or not)", '.ironless')
    .option('--stack <name>', 'a deployed stack: table names from its CloudFormation outputs')
    .option('--tables <list>', 'physical table names: nodes=NAME,ports=NAME,… (default: NODES_TABLE… from the environment)')
    .option('--endpoint <url>', 'DynamoDB endpoint for --stack/--tables (default: the AWS SDK’s)')
    .option('--region <region>', 'AWS region (default: the AWS SDK’s)')
    .option('--function <name>', 'run the command in the deployed dbsync function (name or ARN) instead of here')
    .option('--segments <n>', 'parallel Scan segments per table', positiveInteger, 4)
    .option('--json', 'print the outcome as JSON');

  dbsync
    .command('version')
    .description('print the release, the object versions it writes and reads, and those in the tables')
    .action((_opts: object, cmd: Command) => run(cmd, 'version', {}));
  dbsync
    .command('upgrade')
    .description('exit 2 if any item is at a version this release cannot read; then apply table changes that are not CDK’s')
    .action((_opts: object, cmd: Command) => run(cmd, 'upgrade', {}));
  dbsync
    .command('online-data-migrations')
    .description('bring items to the latest object versions: exit 0 when done, 1 when more remain')
    .option('--max-count <n>', 'migrate at most this many items (default: all)', integer)
    .action((opts: { maxCount?: number }, cmd: Command) => run(cmd, 'online-data-migrations', opts));
}

async function run(cmd: Command, command: DbsyncCommand, opts: { maxCount?: number }): Promise<void> {
  const options = cmd.optsWithGlobals<GlobalOptions>();
  let outcome: DbsyncOutcome;
  if (options.function !== undefined) {
    outcome = await viaFunction(options, { command, ...(opts.maxCount !== undefined ? { maxCount: opts.maxCount } : {}) });
  } else {
    const target = await resolveTarget(options);
    try {
      outcome = await locally(target.ctx, command, opts, options.json === true);
    } catch (err) {
      if ((err as { name?: string }).name === 'ResourceNotFoundException') {
        outcome = {
          exitCode: 1,
          lines: [],
          errors: [`${(err as Error).message} (${target.description}): run "ironless dbsync upgrade" first.`],
        };
      } else throw err;
    } finally {
      await target.close();
    }
  }
  print(command, outcome, options.json === true);
  process.exitCode = outcome.exitCode;
}

async function locally(ctx: DbsyncContext, command: DbsyncCommand, opts: { maxCount?: number }, json: boolean): Promise<DbsyncOutcome> {
  switch (command) {
    case 'version':
      return dbsyncVersion(ctx);
    case 'upgrade':
      return dbsyncUpgrade(ctx);
    case 'online-data-migrations': {
      const bar =
        json || !process.stderr.isTTY ? undefined : new SingleBar({ format: 'migrating [{bar}] {value}/{total} items {percentage}%' });
      let started = false;
      const onProgress = (results: readonly MigrationResult[]) => {
        if (!bar) return;
        const total = results.reduce((n, r) => n + r.total, 0);
        const done = results.reduce((n, r) => n + r.migrated, 0);
        if (!started) {
          bar.start(Math.min(total, opts.maxCount ?? total), 0);
          started = true;
        }
        bar.update(done);
      };
      try {
        return await dbsyncOnlineDataMigrations({ ...ctx, onProgress }, opts.maxCount !== undefined ? { maxCount: opts.maxCount } : {});
      } finally {
        if (started) bar?.stop();
      }
    }
  }
}

/** The deployed function, invoked until it is done when no --max-count limits the run. */
async function viaFunction(options: GlobalOptions, event: DbsyncEvent): Promise<DbsyncOutcome> {
  const lambda = new LambdaClient(options.region ? { region: options.region } : {});
  try {
    for (;;) {
      const reply = await lambda.send(new InvokeCommand({ FunctionName: options.function, Payload: JSON.stringify(event) }));
      const text = Buffer.from(reply.Payload ?? new Uint8Array()).toString('utf8');
      if (reply.FunctionError) return { exitCode: 1, lines: [], errors: [`The dbsync function failed: ${text}`] };
      const outcome = JSON.parse(text) as DbsyncOutcome<{ migrations?: MigrationResult[] }>;
      const progressed = (outcome.data?.migrations ?? []).some((m) => m.migrated > 0);
      if (event.command !== 'online-data-migrations' || event.maxCount !== undefined || outcome.exitCode !== 1 || !progressed)
        return outcome;
      for (const line of outcome.lines) console.log(line);
    }
  } finally {
    lambda.destroy();
  }
}

function print(command: DbsyncCommand, outcome: DbsyncOutcome, json: boolean): void {
  if (json) {
    console.log(JSON.stringify(outcome, null, 2));
    return;
  }
  for (const line of outcome.errors) console.error(line);
  if (command === 'version' && outcome.exitCode === 0) {
    const report = outcome.data as VersionReport;
    console.log(outcome.lines[0]);
    const table = new Table({ head: ['Object', 'Table', 'Writes', 'Reads', 'In the tables', 'To migrate'], style: tableStyle() });
    for (const o of report.objects) {
      const inUse = Object.entries(o.inUse).map(([v, n]) => `${v}: ${n}`);
      table.push([
        o.object,
        o.table,
        o.writes,
        o.reads.join(', '),
        o.missing ? 'no such table' : inUse.length > 0 ? inUse.join('\n') : '-',
        o.pending > 0 ? `${o.pending} (to ${o.latest})` : '-',
      ]);
    }
    console.log(table.toString());
    // What follows the per-object lines: whether online data migrations are pending.
    for (const line of outcome.lines.slice(1 + report.objects.length)) console.log(line);
    return;
  }
  for (const line of outcome.lines) console.log(line);
  const migrations = (outcome.data as { migrations?: MigrationResult[] } | undefined)?.migrations;
  if (command === 'online-data-migrations' && migrations) {
    const table = new Table({ head: ['Migration', 'Total needed', 'Completed', 'Changed meanwhile'], style: tableStyle() });
    for (const m of migrations) table.push([`update_to_latest_versions(${m.object})`, m.total, m.migrated, m.conflicts]);
    console.log(table.toString());
  }
}

/** Colours only on a terminal: piped output stays plain text. */
function tableStyle() {
  return process.stdout.isTTY ? {} : { head: [], border: [] };
}
