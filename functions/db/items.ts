/**
 * Shared plumbing for stores: splitting stored items into object data and bookkeeping, and
 * telling apart the reasons a conditional write failed.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { Dict } from '#objects/fields';
import type { StoreMeta } from '#objects/base';

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
  if (typeof item._lock_owner === 'string') meta.lockOwner = item._lock_owner;
  if (typeof item._lock_exp === 'number') meta.lockExpiresAt = item._lock_exp;
  return { attributes, meta };
}

export function isConditionFailure(err: unknown): boolean {
  return err instanceof ConditionalCheckFailedException || (err as { name?: string })?.name === 'ConditionalCheckFailedException';
}

/** For a cancelled transaction, the cancellation code of each item, in order; undefined otherwise. */
export function cancellationCodes(err: unknown): (string | undefined)[] | undefined {
  if (!(err instanceof TransactionCanceledException) && (err as { name?: string })?.name !== 'TransactionCanceledException') {
    return undefined;
  }
  const reasons = (err as TransactionCanceledException).CancellationReasons ?? [];
  return reasons.map((reason) => (reason.Code === 'None' ? undefined : reason.Code));
}
