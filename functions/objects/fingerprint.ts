/**
 * Fingerprints of object schemas (oslo.versionedobjects' ObjectVersionChecker): the version and a
 * hash of the field table. A field added, removed, renamed or retyped changes the hash; the
 * fingerprint test then fails until the version is bumped and the release mapping updated.
 */
import { createHash } from 'node:crypto';
import type { ObjectClass } from './base';

/** The canonical form of a field table: fields sorted by name, each with everything that defines it. */
export function schemaOf(cls: ObjectClass): unknown[] {
  return Object.keys(cls.fields)
    .sort()
    .map((name) => {
      const def = cls.fields[name]!;
      return [name, def.kind, def.items ?? null, def.nullable, def.default === undefined ? null : def.default];
    });
}

/** "<VERSION>-<first 32 hex digits of the SHA-256 of the schema>". */
export function fingerprintOf(cls: ObjectClass): string {
  const hash = createHash('sha256')
    .update(JSON.stringify(schemaOf(cls)))
    .digest('hex');
  return `${cls.VERSION}-${hash.slice(0, 32)}`;
}

/** The release mapping as the check needs it: `master`'s versions of each object, newest first. */
type Mapping = Readonly<Record<string, { readonly objects: Readonly<Record<string, readonly string[]>> }>>;

function nextMinor(version: string): string {
  const [major = '1', minor = '0'] = version.split('.');
  return `${major}.${Number(minor) + 1}`;
}

/**
 * What is wrong between the objects, the fingerprints recorded for them and the release mapping,
 * each problem with what to do about it; empty when all agree.
 */
export function fingerprintProblems(
  registry: Readonly<Record<string, ObjectClass>>,
  recorded: Readonly<Record<string, string>>,
  mapping: Mapping,
): string[] {
  const problems: string[] = [];
  for (const [name, cls] of Object.entries(registry)) {
    const actual = fingerprintOf(cls);
    const expected = recorded[name];
    const [expectedVersion] = (expected ?? '').split('-');
    const file = `functions/objects/${name.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase()}.ts`;
    if (expected === undefined) {
      problems.push(`${name} has no recorded fingerprint: record ${name}: '${actual}'.`);
    } else if (actual !== expected && expectedVersion === cls.VERSION) {
      const next = nextMinor(cls.VERSION);
      problems.push(
        `${name}'s fields changed but ${name}.VERSION is still ${cls.VERSION} (fingerprint ${actual}, recorded ${expected}). ` +
          `To change an object's fields: (1) in ${file}, set VERSION = '${next}', add a '// Version ${next}: …' line and a ` +
          `history step { version: '${next}', added: [...], up, down } converting to and from ${cls.VERSION}; ` +
          `(2) in functions/common/releases.ts, put '${next}' first in RELEASE_MAPPING.master.objects.${name} ` +
          `(keep the versions older releases write); (3) record the new fingerprint here: ${name}: '${next}-${actual.split('-')[1]}'.`,
      );
    } else if (actual !== expected) {
      problems.push(
        `${name} is now ${cls.VERSION} (fingerprint ${actual}); recorded ${expected}. If the new version's history step and ` +
          `release mapping are in place, record ${name}: '${actual}'.`,
      );
    }
    const last = cls.history[cls.history.length - 1]?.version;
    if (last !== cls.VERSION)
      problems.push(`${name}.VERSION is ${cls.VERSION} but its history ends at ${last}: add the history step for ${cls.VERSION}.`);
    const master = mapping.master?.objects[name];
    if (master?.[0] !== cls.VERSION) {
      problems.push(
        `RELEASE_MAPPING.master.objects.${name} is ${JSON.stringify(master ?? null)}: put '${cls.VERSION}' (${name}.VERSION) first.`,
      );
    }
  }
  return problems;
}
