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
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { VersionedTable } from './codecs';
import { type MigrationResult, migrateToLatest } from './migrations';
import { type Incompatibility, type TableVersions, incompatibilities, versionsInUse } from './versions';

export interface DbsyncContext {
  readonly client: DynamoDBDocumentClient;
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
  readonly objects: { object: string; table: string; writes: string; reads: string[]; inUse: Record<string, number>; missing: boolean }[];
}

/** `version`: the release, the versions it writes and reads, and the versions the tables hold. */
export async function dbsyncVersion(ctx: DbsyncContext): Promise<DbsyncOutcome<VersionReport>> {
  const inUse = await versionsInUse(ctx.client, ctx.tables, ctx.segments, true);
  const data: VersionReport = {
    release: ctx.release.release,
    pinned: ctx.release.pinned,
    api: ctx.release.apiMaxVersion,
    rpc: ctx.release.rpcVersionCap,
    objects: inUse.map(({ object, table, versions, missing }) => ({
      object,
      table,
      writes: ctx.release.objectVersion(object),
      reads: ctx.release.readableVersions(object),
      inUse: versions,
      missing: missing === true,
    })),
  };
  const lines = [
    `Release: ${data.release}${data.pinned ? ' (pinned by PIN_RELEASE_VERSION)' : ''}; API maximum version ${data.api}; RPC version ${data.rpc}`,
    ...data.objects.map(
      (o) =>
        `${o.object}: writes ${o.writes}, reads ${o.reads.join(', ')}; in ${o.table}: ${o.missing ? 'no such table' : describe(o.inUse)}`,
    ),
  ];
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
  const refused = await checkVersions(ctx);
  if (refused) return refused;
  const lines: string[] = [];
  let results = await run(ctx, options, options.maxCount);
  if (options.maxCount === undefined) {
    // Items a service changed mid-run are looked at again, a few times, before giving up.
    for (let pass = 1; pass < 5 && results.some((r) => r.conflicts > 0) && !pastDeadline(options); pass++) {
      const again = await run(ctx, options, undefined);
      results = results.map((r, i) => ({ ...r, migrated: r.migrated + again[i]!.migrated, conflicts: again[i]!.conflicts }));
    }
  }
  for (const r of results) lines.push(`update_to_latest_versions(${r.object}) migrated ${r.migrated} of ${r.total} objects.`);
  const migrated = results.reduce((n, r) => n + r.migrated, 0);
  const total = results.reduce((n, r) => n + r.total, 0);
  const unreadable = results.reduce((n, r) => n + r.unreadable, 0);
  if (unreadable > 0) {
    return {
      exitCode: 2,
      lines,
      errors: [`${unreadable} items appeared at versions this release cannot read; run "ironless dbsync upgrade" to see which.`],
      data: { migrations: results },
    };
  }
  const done = migrated >= total && results.every((r) => r.conflicts === 0);
  lines.push(done ? 'Data migrations have completed.' : 'Data migrations have not completed. Please re-run.');
  return { exitCode: done ? 0 : 1, lines, errors: [], data: { migrations: results } };
}

function run(ctx: DbsyncContext, options: MigrationOptions, maxCount: number | undefined): Promise<MigrationResult[]> {
  return migrateToLatest({
    client: ctx.client,
    tables: ctx.tables,
    ...(maxCount !== undefined ? { maxCount } : {}),
    ...(ctx.segments !== undefined ? { segments: ctx.segments } : {}),
    ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
    ...(options.deadline !== undefined ? { deadline: options.deadline } : {}),
    ...(ctx.onProgress ? { onProgress: ctx.onProgress } : {}),
  });
}

function pastDeadline(options: MigrationOptions): boolean {
  return options.deadline !== undefined && Date.now() >= options.deadline;
}

/** Ironic's check_versions: exit 2 and its message when any item is unreadable by this release. */
async function checkVersions(
  ctx: DbsyncContext,
  ignoreMissing = false,
): Promise<DbsyncOutcome<{ incompatible: Incompatibility[] }> | undefined> {
  const inUse: TableVersions[] = await versionsInUse(ctx.client, ctx.tables, ctx.segments, ignoreMissing);
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

function describe(versions: Record<string, number>): string {
  const entries = Object.entries(versions);
  return entries.length === 0 ? 'no items' : entries.map(([v, n]) => `${n} at ${v}`).join(', ');
}
