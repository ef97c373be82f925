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
