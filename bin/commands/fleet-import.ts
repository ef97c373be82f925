/**
 * `ironless fleet import --file nodes.json`: enroll a fleet's nodes (and their ports) by writing
 * the tables directly: 100,000 nodes in minutes, where one `POST /v1/nodes` each takes hours.
 * Every node is checked first as the API checks a create, and against the tables; any refusal
 * writes nothing (exit 2). Write failures exit 1 and name the nodes; importing the same file again
 * skips what was written.
 */
import { readFileSync } from 'node:fs';
import { SingleBar } from 'cli-progress';
import Table from 'cli-table3';
import { type Command, Option } from 'commander';
import { releaseFromEnv } from '../../functions/common/releases';
import { DynamoNodeStore } from '../../functions/db/nodes';
import { DynamoPortStore } from '../../functions/db/ports';
import { parseVersion } from '../../functions/api/microversion';
import { dynamoLookups } from '../import/lookups';
import { type NodeError, checkFileNodes, parseNodesFile } from '../import/nodes-file';
import { planImport } from '../import/plan';
import { buildUnits, writeUnits } from '../import/write';
import { resolveTarget } from './dbsync-target';
import { positiveInteger } from './options';

interface ImportOptions {
  readonly file: string;
  readonly data: string;
  readonly stack?: string;
  readonly endpoint?: string;
  readonly region?: string;
  readonly concurrency: number;
  readonly dryRun?: boolean;
  readonly writes?: 'batch' | 'transact';
}

/** Colours only on a terminal: piped output stays plain text. */
const plain = (stream: NodeJS.WriteStream) => (stream.isTTY ? {} : { style: { head: [], border: [] } });

export function errorTable(errors: readonly NodeError[], limit = 50): string {
  const table = new Table({ head: ['#', 'Node', 'Error'], colWidths: [8, 30, 90], wordWrap: true, ...plain(process.stderr) });
  for (const e of errors.slice(0, limit)) table.push([e.index, e.ident, e.message]);
  const more = errors.length > limit ? `\n… and ${errors.length - limit} more` : '';
  return table.toString() + more;
}

/** Progress on stderr: a bar on a terminal, a line every few seconds otherwise (logs, CI). */
function progressReporter(total: number): { update(done: number): void; stop(): void } {
  const started = Date.now();
  if (process.stderr.isTTY) {
    const bar = new SingleBar({ format: 'importing [{bar}] {value}/{total} nodes {percentage}% | {eta_formatted} left', etaBuffer: 50 });
    bar.start(total, 0);
    return { update: (done) => bar.update(done), stop: () => bar.stop() };
  }
  let last = started;
  return {
    update: (done) => {
      const now = Date.now();
      if (now - last < 5000 && done < total) return;
      last = now;
      const rate = done / Math.max(0.001, (now - started) / 1000);
      console.error(`imported ${done}/${total} nodes (${Math.round(rate)} nodes/s)`);
    },
    stop: () => undefined,
  };
}

export function registerFleetImport(fleet: Command): void {
  fleet
    .command('import')
    .description('create nodes and their ports from a file by writing the tables directly (for whole fleets)')
    .requiredOption('--file <path>', 'JSON list of POST /v1/nodes bodies, each with optional "ports": [{address, …}]')
    .option('--data <dir>', "a local stack's data folder (running or not)", '.ironless')
    .option('--stack <name>', 'a deployed stack: table names from its CloudFormation outputs')
    .option('--endpoint <url>', 'DynamoDB endpoint for --stack (default: the AWS SDK’s)')
    .option('--region <region>', 'AWS region (default: the AWS SDK’s)')
    .option('--concurrency <n>', 'DynamoDB requests in flight at once', positiveInteger, 16)
    .option('--dry-run', 'check every node against the file and the tables, write nothing')
    .addOption(
      new Option(
        '--writes <api>',
        'nodes without a name or ports: BatchWriteItem (default on AWS) or transactions (default on a local stack)',
      ).choices(['batch', 'transact']),
    )
    .action(async (opts: ImportOptions) => {
      process.exitCode = await runImport(opts);
    });
}

async function runImport(opts: ImportOptions): Promise<number> {
  const started = Date.now();
  let raw: unknown[];
  try {
    raw = parseNodesFile(readFileSync(opts.file, 'utf8'));
  } catch (err) {
    console.error(`${opts.file}: ${(err as Error).message}`);
    return 2;
  }
  const release = releaseFromEnv();
  // Nodes are created as a client at the API's highest version would create them (enroll, shard…).
  const version = parseVersion(release.apiMaxVersion)!;
  const checked = checkFileNodes(raw, version);

  const target = await resolveTarget({ data: opts.data, segments: 1, ...pick(opts) });
  try {
    const ctx = { client: target.ctx.client, tables: target.tables, release };
    const stores = { nodes: new DynamoNodeStore(ctx), ports: new DynamoPortStore(ctx) };
    console.error(`Checking ${raw.length} nodes against ${target.description}…`);
    let plan: Awaited<ReturnType<typeof planImport>>;
    try {
      plan = await planImport(checked.nodes, dynamoLookups(ctx, stores, opts.concurrency));
    } catch (err) {
      if ((err as { name?: string }).name !== 'ResourceNotFoundException') throw err;
      console.error(`${(err as Error).message} (${target.description}): start the stack once, or deploy it, before importing.`);
      return 1;
    }
    for (const warning of plan.warnings) console.error(`Warning: ${warning}`);
    const errors = [...checked.errors, ...plan.errors].sort((a, b) => a.index - b.index);
    if (errors.length > 0) {
      console.error(errorTable(errors));
      console.error(
        `${errors.length} of ${raw.length} nodes are refused; nothing was written. Fix them (or leave them out) and import the file again.`,
      );
      return 2;
    }
    const nodesToWrite = plan.writes.filter((w) => !w.exists).length;
    const portsToWrite = plan.writes.reduce((n, w) => n + w.ports.length, 0);
    if (opts.dryRun) {
      console.log(
        `All ${raw.length} nodes are valid: ${nodesToWrite} nodes and ${portsToWrite} ports would be created, ${plan.skippedNodes} nodes and ${plan.skippedPorts} ports are there already. Nothing was written (--dry-run).`,
      );
      return 0;
    }
    const checkedIn = (Date.now() - started) / 1000;
    const writing = Date.now();
    const units = buildUnits(stores, plan.writes, writing);
    const progress = progressReporter(units.length);
    const outcome = await writeUnits({ client: target.ctx.client, ...stores }, units, {
      concurrency: opts.concurrency,
      // DynamoDB Local commits each put of a batch on its own: transactions are faster there.
      batchWrites: (opts.writes ?? (opts.stack === undefined && !process.env.NODES_TABLE ? 'transact' : 'batch')) === 'batch',
      onProgress: (done) => progress.update(done),
    });
    progress.stop();
    const seconds = (Date.now() - writing) / 1000;
    const summary = new Table({ head: ['Import', 'Count'], ...plain(process.stdout) });
    summary.push(
      ['Nodes created', outcome.createdNodes],
      ['Ports created', outcome.createdPorts],
      ['Nodes skipped (already there)', plan.skippedNodes],
      ['Ports skipped (already there)', plan.skippedPorts],
      ['Nodes failed', outcome.failed.length],
      ['Checking (s)', checkedIn.toFixed(1)],
      ['Writing (s)', seconds.toFixed(1)],
      ['Items written', outcome.items],
      ['Items/s (writing)', Math.round(outcome.items / Math.max(0.001, seconds))],
    );
    console.log(summary.toString());
    if (outcome.failed.length > 0) {
      console.error(errorTable(outcome.failed));
      console.error(
        `${outcome.failed.length} nodes were not written (each is all or nothing). Import the same file again: nodes with a UUID or a name that are in the table are skipped, the others are written.`,
      );
      return 1;
    }
    return 0;
  } finally {
    await target.close();
  }
}

function pick(opts: ImportOptions): { stack?: string; endpoint?: string; region?: string } {
  return {
    ...(opts.stack !== undefined ? { stack: opts.stack } : {}),
    ...(opts.endpoint !== undefined ? { endpoint: opts.endpoint } : {}),
    ...(opts.region !== undefined ? { region: opts.region } : {}),
  };
}
