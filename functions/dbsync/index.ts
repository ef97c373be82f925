/**
 * The dbsync function: `ironless dbsync` run inside AWS, next to the tables, for operators
 * without direct table access (`ironless dbsync --function <name> …` invokes it). The event names
 * the command; the result carries Ironic's exit code and what the command printed.
 *
 * A migration stops starting new batches 30 s before the function's timeout and answers exit
 * code 1 ("please re-run"); the CLI invokes it again until it answers 0.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { releaseFromEnv } from '#common/releases';
import { createDocumentClient } from '#db/client';
import { versionedTables } from '#db/codecs';
import { type DbsyncContext, type DbsyncOutcome, dbsyncOnlineDataMigrations, dbsyncUpgrade, dbsyncVersion } from '#db/dbsync';
import { tableNamesFromEnv } from '#db/schema';

export type DbsyncCommand = 'version' | 'upgrade' | 'online-data-migrations';

export interface DbsyncEvent {
  readonly command: DbsyncCommand;
  /** For online-data-migrations. */
  readonly maxCount?: number;
}

const release = releaseFromEnv();
const log = new Logger({ serviceName: 'ironless-dbsync', persistentKeys: { release: release.release } });
const ctx: DbsyncContext = {
  client: createDocumentClient('tool'),
  tables: versionedTables(tableNamesFromEnv(process.env)),
  release,
  segments: 8,
};

/** Time kept in hand after the last batch starts. */
const MARGIN_MS = 30_000;

async function dbsync(event: DbsyncEvent, context: Context): Promise<DbsyncOutcome> {
  let outcome: DbsyncOutcome;
  switch (event?.command) {
    case 'version':
      outcome = await dbsyncVersion(ctx);
      break;
    case 'upgrade':
      outcome = await dbsyncUpgrade(ctx);
      break;
    case 'online-data-migrations':
      outcome = await dbsyncOnlineDataMigrations(ctx, {
        ...(event.maxCount !== undefined ? { maxCount: event.maxCount } : {}),
        deadline: Date.now() + Math.max(context.getRemainingTimeInMillis() - MARGIN_MS, 1_000),
      });
      break;
    default:
      outcome = {
        exitCode: 127,
        lines: [],
        errors: [`Unknown command ${JSON.stringify(event?.command)}; use version, upgrade or online-data-migrations`],
      };
  }
  log.info(`dbsync ${String(event?.command)}: exit ${outcome.exitCode}`, { lines: outcome.lines, errors: outcome.errors });
  return outcome;
}

export const handler = middy<DbsyncEvent, DbsyncOutcome>()
  .use(injectLambdaContext(log, { resetKeys: true }))
  .handler(dbsync);
