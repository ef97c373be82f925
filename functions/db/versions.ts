/**
 * Which object versions the tables hold (a parallel Scan that reads only `version`), and whether
 * this release can read all of them: Ironic's `check_versions`, behind `dbsync upgrade` and
 * `dbsync online-data-migrations`.
 */
import type { ReleaseSelection } from '#common/releases';
import type { Dict } from '#objects/fields';
import { type DocumentClient, ScanCommand } from './dynamo';
import type { VersionedTable } from './codecs';

/** Stands for items that carry no version at all (never readable). */
export const NO_VERSION = 'none';

export interface TableVersions {
  readonly object: string;
  readonly table: string;
  /** Version → number of items at it. */
  readonly versions: Record<string, number>;
  /** The table does not exist (yet): only when asked to ignore missing tables. */
  readonly missing?: boolean;
}

/**
 * The versions each table holds. A missing table fails (ResourceNotFoundException) unless
 * `ignoreMissing`, as Ironic's upgrade check tolerates tables it is about to create.
 */
export async function versionsInUse(
  client: DocumentClient,
  tables: readonly VersionedTable[],
  segments = 4,
  ignoreMissing = false,
): Promise<TableVersions[]> {
  return Promise.all(
    tables.map(async ({ table, codec }) => {
      const versions: Record<string, number> = {};
      try {
        await scanVersions(client, table, segments, versions);
      } catch (err) {
        if (!ignoreMissing || (err as { name?: string }).name !== 'ResourceNotFoundException') throw err;
        return { object: codec.cls.objName, table, versions, missing: true };
      }
      return { object: codec.cls.objName, table, versions };
    }),
  );
}

async function scanVersions(client: DocumentClient, table: string, segments: number, versions: Record<string, number>): Promise<void> {
  await Promise.all(
    Array.from({ length: segments }, async (_, segment) => {
      let start: Dict | undefined;
      do {
        const page = await client.send(
          new ScanCommand({
            TableName: table,
            Segment: segment,
            TotalSegments: segments,
            ProjectionExpression: '#v',
            ExpressionAttributeNames: { '#v': 'version' },
            ExclusiveStartKey: start,
          }),
        );
        for (const item of page.Items ?? []) {
          const version = typeof item.version === 'string' ? item.version : NO_VERSION;
          versions[version] = (versions[version] ?? 0) + 1;
        }
        start = page.LastEvaluatedKey;
      } while (start !== undefined);
    }),
  );
}

export interface Incompatibility {
  readonly object: string;
  readonly table: string;
  readonly version: string;
  readonly count: number;
}

/** The versions in use that this release cannot read (empty when the tables are compatible). */
export function incompatibilities(inUse: readonly TableVersions[], release: ReleaseSelection): Incompatibility[] {
  const out: Incompatibility[] = [];
  for (const { object, table, versions } of inUse) {
    for (const [version, count] of Object.entries(versions)) {
      if (version === NO_VERSION || !release.canRead(object, version)) out.push({ object, table, version, count });
    }
  }
  return out;
}
