/**
 * Derived key attributes: the index plumbing written beside an object's fields on every save.
 * Empty strings cannot be key values, so optional values get a prefix that keeps them non-empty.
 */
import { randomBytes } from 'node:crypto';

/** A creation-ordered id: milliseconds since the epoch, then randomness to order ties uniquely. */
export function newSortId(now: number = Date.now()): string {
  return `${now.toString(36).padStart(10, '0')}${randomBytes(5).toString('hex')}`;
}

export const ALL_NODES = 'node';

export function shardKey(shard: string | null | undefined): string {
  return shard ? `s#${shard}` : 'n#';
}

export function groupKey(group: string | null | undefined): string {
  return `g#${group ?? ''}`;
}

/** Keys of the unique-value guards in the `uniques` table. */
export const guard = {
  nodeName: (name: string) => `node/name/${name}`,
  nodeInstance: (instanceUuid: string) => `node/instance/${instanceUuid}`,
};
