/**
 * `dbsync` (Ironic's `ironic-dbsync`), shared by the CLI (`ironless dbsync`) and the `dbsync`
 * Lambda function: each command returns its exit code and what to print, so both front ends say
 * the same thing.
 *
 * Exit codes, as Ironic's: 0 done; 1 online migrations remain (re-run); 2 the tables hold items
 * this release cannot read (run online-data-migrations with the previous release first); 127 bad
 * arguments (--max-count below 1).
 */
import type { ReleaseSelection } from '#common/releases';
import type { DocumentClient } from './dynamo';
import type { VersionedTable } from './codecs';
import { type MigrationResult, countToMigrate, migrateToLatest } from './migrations';
import { type Incompatibility, type TableVersions, incompatibilities, versionsInUse } from './versions';

export interface DbsyncContext {
  readonly client: DocumentClient;
  /** The tables of versioned objects (`versionedTables(names)`, or a test's fixtures). */
  readonly tables: readonly VersionedTable[];
  readonly release: ReleaseSelection;
  /**
   * Create what the schema has and the tables lack (local stacks: missing tables and indexes);
   * returns what it did. Undefined on AWS, where the CDK stack owns tables and indexes.
   */
  readonly applySchema?: () => Promise<string[]>;
  /** Parallel Scan segments per table. @default 4 */
  readonly segments?: number;
  readonly onProgress?: (results: readonly MigrationResult[]) => void;
}

export interface DbsyncOutcome<T = unknown> {
  readonly exitCode: number;
  /** For stdout. */
  readonly lines: string[];
  /** For stderr. */
  readonly errors: string[];
  readonly data?: T;
}

export interface VersionReport {
  readonly release: string;
  readonly pinned: boolean;
  readonly api: string;
  readonly rpc: string;
  readonly objects: {
    object: string;
    table: string;
    writes: string;
    reads: string[];
    inUse: Record<string, number>;
    /** The version online-data-migrations brings items to (this code's newest). */
    latest: string;
    /** Items not at the latest version: what `online-data-migrations` has left to do. */
    pending: number;
    missing: boolean;
  }[];
}

/** `version`: the release, the versions it writes and reads, and the versions the tables hold. */
export async function dbsyncVersion(ctx: DbsyncContext): Promise<DbsyncOutcome<VersionReport>> {
  const inUse = await versionsInUse(ctx.client, ctx.tables, ctx.segments, true);
  const data: VersionReport = {
    release: ctx.release.release,
    pinned: ctx.release.pinned,
    api: ctx.release.apiMaxVersion,
    rpc: ctx.release.rpcVersionCap,
    objects: inUse.map(({ object, table, versions, missing }, i) => ({
      object,
      table,
      writes: ctx.release.objectVersion(object),
      reads: ctx.release.readableVersions(object),
      inUse: versions,
      latest: ctx.tables[i]!.codec.cls.VERSION,
      pending: notAt(versions, ctx.tables[i]!.codec.cls.VERSION),
      missing: missing === true,
    })),
  };
  const lines = [
    `Release: ${data.release}${data.pinned ? ' (pinned by PIN_RELEASE_VERSION)' : ''}; API maximum version ${data.api}; RPC version ${data.rpc}`,
    ...data.objects.map(
      (o) =>
        `${o.object}: writes ${o.writes}, reads ${o.reads.join(', ')}; in ${o.table}: ${o.missing ? 'no such table' : describe(o.inUse)}` +
        (o.pending > 0 ? `; ${o.pending} to migrate to ${o.latest}` : ''),
    ),
  ];
  const pending = data.objects.reduce((n, o) => n + o.pending, 0);
  if (pending > 0) lines.push(`Online data migrations pending: ${pending} item(s); run "ironless dbsync online-data-migrations".`);
  return { exitCode: 0, lines, errors: [], data };
}

/** `upgrade`: refuse tables this release cannot read (exit 2), then apply what the schema lacks. */
export async function dbsyncUpgrade(ctx: DbsyncContext): Promise<DbsyncOutcome<{ applied?: string[]; incompatible?: Incompatibility[] }>> {
  const refused = await checkVersions(ctx, true);
  if (refused) return refused;
  if (ctx.applySchema === undefined) {
    return {
      exitCode: 0,
      lines: ['Tables and indexes are managed by the CDK stack (cdk deploy): nothing to apply.'],
      errors: [],
      data: { applied: [] },
    };
  }
  const applied = await ctx.applySchema();
  return {
    exitCode: 0,
    lines: applied.length === 0 ? ['Tables and indexes are up to date.'] : applied,
    errors: [],
    data: { applied },
  };
}

export interface MigrationOptions {
  /** At most this many items; undefined = all (in passes until nothing is left). */
  readonly maxCount?: number;
  /** Stop starting batches at this time (epoch ms). */
  readonly deadline?: number;
  /** Items per conditional batch write. */
  readonly batchSize?: number;
}

/** `online-data-migrations [--max-count N]`: bring items to their latest versions. */
export async function dbsyncOnlineDataMigrations(
  ctx: DbsyncContext,
  options: MigrationOptions = {},
): Promise<DbsyncOutcome<{ migrations?: MigrationResult[]; incompatible?: Incompatibility[] }>> {
  if (options.maxCount !== undefined && (!Number.isInteger(options.maxCount) || options.maxCount < 1)) {
    return { exitCode: 127, lines: [], errors: ['"max-count" must be a positive value.'] };
  }
  // One census answers both questions Ironic asks first: can this release read everything, and
  // how much is there to migrate (the "total" of each migration).
  const inUse = await versionsInUse(ctx.client, ctx.tables, ctx.segments);
  const refused = refusal(ctx, inUse);
  if (refused) return refused;
  const totals = inUse.map(({ versions }, i) => notAt(versions, ctx.tables[i]!.codec.cls.VERSION));
  let results = await run(ctx, options, options.maxCount, totals);
  let remaining = await remainingAfter(ctx, results, options.maxCount);
  // Without --max-count, items a service changed mid-run are looked at again, a few times.
  for (let pass = 1; options.maxCount === undefined && remaining > 0 && pass < 5 && !pastDeadline(options); pass++) {
    const again = await run(ctx, options, undefined);
    results = results.map((r, i) => ({ ...r, migrated: r.migrated + again[i]!.migrated, conflicts: r.conflicts + again[i]!.conflicts }));
    remaining = await remainingAfter(ctx, again, undefined);
  }
  const lines = results.map((r) => `update_to_latest_versions(${r.object}) migrated ${r.migrated} of ${r.total} objects.`);
  const unreadable = results.reduce((n, r) => n + r.unreadable, 0);
  if (unreadable > 0) {
    return {
      exitCode: 2,
      lines,
      errors: [`${unreadable} items appeared at versions this release cannot read; run "ironless dbsync upgrade" to see which.`],
      data: { migrations: results },
    };
  }
  lines.push(remaining === 0 ? 'Data migrations have completed.' : 'Data migrations have not completed. Please re-run.');
  return { exitCode: remaining === 0 ? 0 : 1, lines, errors: [], data: { migrations: results } };
}

function run(ctx: DbsyncContext, options: MigrationOptions, maxCount: number | undefined, totals?: number[]): Promise<MigrationResult[]> {
  return migrateToLatest({
    client: ctx.client,
    tables: ctx.tables,
    ...(maxCount !== undefined ? { maxCount } : {}),
    ...(totals !== undefined ? { totals } : {}),
    ...(ctx.segments !== undefined ? { segments: ctx.segments } : {}),
    ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
    ...(options.deadline !== undefined ? { deadline: options.deadline } : {}),
    ...(ctx.onProgress ? { onProgress: ctx.onProgress } : {}),
  });
}

/**
 * How many items are still not at their latest version. A run that migrated everything it
 * counted, without conflicts, left none; otherwise (stopped by --max-count or the deadline, or
 * raced by a service) the tables are counted again, so "done" is never a guess.
 */
async function remainingAfter(ctx: DbsyncContext, results: readonly MigrationResult[], maxCount: number | undefined): Promise<number> {
  const clean = results.every((r) => r.migrated === r.total && r.conflicts === 0 && r.unreadable === 0);
  const budgetLeft = maxCount === undefined || results.reduce((n, r) => n + r.migrated, 0) < maxCount;
  if (clean && budgetLeft) return 0;
  let remaining = 0;
  for (const r of results) remaining += await countToMigrate(ctx.client, r.table, r.latest, ctx.segments);
  return remaining;
}

function pastDeadline(options: MigrationOptions): boolean {
  return options.deadline !== undefined && Date.now() >= options.deadline;
}

/** Ironic's check_versions: exit 2 and its message when any item is unreadable by this release. */
async function checkVersions(
  ctx: DbsyncContext,
  ignoreMissing = false,
): Promise<DbsyncOutcome<{ incompatible: Incompatibility[] }> | undefined> {
  return refusal(ctx, await versionsInUse(ctx.client, ctx.tables, ctx.segments, ignoreMissing));
}

function refusal(ctx: DbsyncContext, inUse: readonly TableVersions[]): DbsyncOutcome<{ incompatible: Incompatibility[] }> | undefined {
  const incompatible = incompatibilities(inUse, ctx.release);
  if (incompatible.length === 0) return undefined;
  return {
    exitCode: 2,
    lines: [],
    errors: [
      `The database is not compatible with this release of Ironless (${ctx.release.release}). ` +
        'Please run "ironless dbsync online-data-migrations" using the previous release.',
      ...incompatible.map(
        (i) =>
          `  ${i.count} ${i.object} item(s) in ${i.table} at version ${i.version}; this release reads ${ctx.release.readableVersions(i.object).join(', ') || 'none'}`,
      ),
    ],
    data: { incompatible },
  };
}

/** How many of the items counted by version are not at `latest`. */
function notAt(versions: Record<string, number>, latest: string): number {
  return Object.entries(versions).reduce((n, [version, count]) => (version === latest ? n : n + count), 0);
}

function describe(versions: Record<string, number>): string {
  const entries = Object.entries(versions);
  return entries.length === 0 ? 'no items' : entries.map(([v, n]) => `${n} at ${v}`).join(', ');
}
