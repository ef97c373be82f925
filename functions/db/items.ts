/**
 * Shared plumbing for stores: turning objects into items and back (`ObjectCodec`), splitting
 * stored items into object data and bookkeeping, and telling apart the reasons a conditional
 * write failed.
 */
import type { Dict } from '#objects/fields';
import { type ObjectClass, type StoreMeta, type VersionedObject, objectFromItem } from '#objects/base';

/** Bookkeeping attributes a store writes beside the object's fields. */
export const META_ATTRIBUTES = ['rev', '_id', '_guards', '_lock_owner', '_lock_exp'] as const;

/** Split a stored item into the object's attributes (with `version`) and the store's bookkeeping. */
export function splitItem(item: Dict): { attributes: Dict; meta: StoreMeta } {
  const attributes: Dict = {};
  for (const [name, value] of Object.entries(item)) {
    if (name === 'rev' || name.startsWith('_')) continue;
    attributes[name] = value;
  }
  const meta: StoreMeta = {
    rev: typeof item.rev === 'number' ? item.rev : 0,
    sortId: typeof item._id === 'string' ? item._id : '',
    guards: Array.isArray(item._guards) ? (item._guards as string[]) : [],
  };
  // A copy read while someone holds the lock sees when the lock expires, but does not hold it:
  // only reserve() (or a save that takes the lock) hands out a copy that writes through the lock.
  if (typeof item._lock_owner === 'string' && typeof item._lock_exp === 'number') {
    meta.lockExpiresAt = item._lock_exp;
    meta.lockHolder = item._lock_owner;
  }
  return { attributes, meta };
}

export function isConditionFailure(err: unknown): boolean {
  return (err as { name?: string })?.name === 'ConditionalCheckFailedException';
}

/**
 * Whether DynamoDB refused a write because a transaction was under way on one of its items: a
 * TransactionConflictException (a single-item write), or a transaction cancelled for that alone
 * (every reason None or TransactionConflict). Nothing was applied; the same write may pass when
 * sent again, which AWS advises and the SDK does not do by itself (dynamo.ts marks it retryable).
 */
export function isTransactionConflict(err: unknown): boolean {
  const name = (err as { name?: string })?.name;
  if (name === 'TransactionConflictException') return true;
  const codes = cancellationCodes(err);
  return codes !== undefined && codes.includes('TransactionConflict') && codes.every((c) => c === undefined || c === 'TransactionConflict');
}

/** For a cancelled transaction, the cancellation code of each item, in order; undefined otherwise. */
export function cancellationCodes(err: unknown): (string | undefined)[] | undefined {
  if ((err as { name?: string })?.name !== 'TransactionCanceledException') return undefined;
  const reasons = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.map((reason) => (reason.Code === 'None' ? undefined : reason.Code));
}

/** How one table stores its object: its key, the index keys derived from it, the guards it owns. */
export interface ObjectCodec<T extends VersionedObject> {
  readonly cls: ObjectClass<T>;
  /** The table's partition key: an object field holding a string. */
  readonly keyName: string;
  /** Index attributes derived from the object's latest-version values; undefined ones are left out. */
  derive(values: Readonly<Dict>): Dict;
  /** Keys of the unique-value guards the object owns (in the `uniques` table). */
  guards(values: Readonly<Dict>): string[];
}

/** The store's bookkeeping written beside an object's attributes. */
export interface Bookkeeping {
  readonly rev: number;
  readonly sortId: string;
  readonly guards: readonly string[];
  readonly lockOwner?: string | undefined;
  readonly lockExpiresAt?: number | undefined;
}

/** The item for `obj` written at object version `version`: attributes, `version`, derived keys, bookkeeping. */
export function encodeItem<T extends VersionedObject>(codec: ObjectCodec<T>, obj: T, version: string, book: Bookkeeping): Dict {
  const item = obj.toItem(version);
  for (const [name, value] of Object.entries(codec.derive(obj.values()))) {
    if (value !== undefined) item[name] = value;
  }
  item.rev = book.rev;
  item._id = book.sortId;
  if (book.guards.length > 0) item._guards = [...book.guards];
  if (book.lockOwner !== undefined) {
    item._lock_owner = book.lockOwner;
    item._lock_exp = book.lockExpiresAt;
  }
  return item;
}

/** The object (at the latest version) an item holds, with the item's bookkeeping as its storeMeta. */
export function decodeItem<T extends VersionedObject>(codec: ObjectCodec<T>, item: Dict): T {
  const { attributes, meta } = splitItem(item);
  const obj = objectFromItem(codec.cls, attributes);
  obj.storeMeta = meta;
  return obj;
}
