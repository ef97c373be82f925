/**
 * A create that claims its unique values first, one conditional put each, and then puts its item
 * (see `table.ts` for why not one transaction). A claim is a guard in the `uniques` table naming
 * the item's key as its owner, with the time it was claimed.
 *
 * A write whose answer is lost (a timeout, a 5xx after DynamoDB applied it) must leave nothing
 * inconsistent:
 * - A claim put of unknown outcome counts as held: if the create then fails before its item is
 *   sent, it is given back like the others.
 * - An item put of unknown outcome is read back (consistently). Found with this create's own sort
 *   id, it was written: the create succeeded. Not found, or unreadable, it may still land, so the
 *   claims stay: a guard must never go while its item may exist. They are taken over once
 *   abandoned (`ABANDONED_CLAIM_MS`), and only if the item never appeared.
 * - A retried put failing its condition on its own earlier attempt is told apart the same way.
 *   Likewise a claim found naming this item with this create's own claim time is this create's.
 *
 * Claims are given back only when the item was certainly not written, and only the claims this
 * very create wrote (owner and claim time): never a guard of a repeat of the same create.
 */
import { DeleteCommand, type DocumentClient, GetCommand, PutCommand, outcomeUnknown } from './dynamo';
import type { Dict } from '#objects/fields';
import { isConditionFailure } from './items';

/**
 * How long a claimed unique value waits for its object before another create may take it over:
 * Lambda's longest timeout, so the invocation that claimed it has certainly ended.
 */
export const ABANDONED_CLAIM_MS = 15 * 60 * 1000;

export interface ClaimTarget {
  readonly client: DocumentClient;
  /** The `uniques` table. */
  readonly uniques: string;
  /** The table the item goes to, and its key attribute. */
  readonly table: string;
  readonly keyName: string;
  /** The error for a value another item owns (or claims). */
  duplicate(key: string): Error;
}

/** What became of an item put that failed. */
type PutOutcome =
  | { readonly kind: 'written' }
  | { readonly kind: 'not-written' }
  | { readonly kind: 'unknown' }
  /** Another item has the key; it owns `guards`. */
  | { readonly kind: 'exists'; readonly guards: readonly string[] };

/**
 * Claim each value of `guards` for the item of `put`, then put the item (with its bookkeeping
 * `_id`, a sort id unique to this create). Throws the put's error, or a claim's duplicate error,
 * after giving back what it claimed where that is safe; returns when the item was written.
 */
export async function createClaimed(target: ClaimTarget, put: { readonly Item: Dict } & Dict, guards: readonly string[], now: number) {
  const owner = String(put.Item[target.keyName]);
  /** Values this create claimed, or may have (a claim put whose answer was lost). */
  const claimed: string[] = [];
  try {
    for (const key of guards) await claim(target, key, owner, now, claimed);
  } catch (err) {
    // The item was never sent: whatever this create may hold goes back.
    await giveBack(target, claimed, owner, now);
    throw err;
  }
  try {
    await target.client.send(new PutCommand(put as never));
  } catch (err) {
    const outcome = await putOutcome(target, owner, put.Item._id, err);
    if (outcome.kind === 'written') return;
    if (outcome.kind === 'not-written') await giveBack(target, claimed, owner, now);
    // A create repeated with the same key (racing this one) wrote the item: the values it owns stay.
    if (outcome.kind === 'exists')
      await giveBack(
        target,
        claimed.filter((key) => !outcome.guards.includes(key)),
        owner,
        now,
      );
    throw err;
  }
}

/** Whether a failed put of the item with sort id `sortId` was applied, by reading the item back when that is in doubt. */
async function putOutcome(target: ClaimTarget, owner: string, sortId: unknown, err: unknown): Promise<PutOutcome> {
  const conditionFailed = isConditionFailure(err);
  if (!conditionFailed && !outcomeUnknown(err)) return { kind: 'not-written' };
  let stored: Dict | undefined;
  try {
    stored = await storedItem(target, owner, ['_id', '_guards']);
  } catch {
    return { kind: 'unknown' };
  }
  if (stored !== undefined && stored._id === sortId) return { kind: 'written' };
  if (stored !== undefined) return { kind: 'exists', guards: Array.isArray(stored._guards) ? (stored._guards as string[]) : [] };
  // Not there: a put of unknown outcome may still land; a refused one (its condition failed on an
  // item deleted since) did not.
  return outcomeUnknown(err) ? { kind: 'unknown' } : { kind: 'not-written' };
}

/**
 * Make `owner` the owner of the unique value `key`, recording in `claimed` a claim this call wrote
 * or may have written. Returns as well when the guard already names `owner` (a create repeated
 * with the same key). Throws the value's duplicate error when another item owns it, or while
 * another create of it is under way.
 */
async function claim(target: ClaimTarget, key: string, owner: string, now: number, claimed: string[]): Promise<void> {
  // The claim written under `condition`: true, or false when the condition does not hold.
  const claimIf = async (condition: Dict): Promise<boolean> => {
    try {
      await target.client.send(new PutCommand({ TableName: target.uniques, Item: { key, owner, claimed_at: now }, ...condition }));
      claimed.push(key);
      return true;
    } catch (err) {
      // A failed condition is settled by reading the guard (it may be this put's own earlier attempt).
      if (isConditionFailure(err)) return false;
      if (outcomeUnknown(err)) claimed.push(key);
      throw err;
    }
  };
  if (await claimIf({ ConditionExpression: 'attribute_not_exists(#key)', ExpressionAttributeNames: { '#key': 'key' } })) return;
  const { Item: held } = await target.client.send(new GetCommand({ TableName: target.uniques, Key: { key }, ConsistentRead: true }));
  if (held?.owner === owner) {
    // Claimed at this very time: this create's own claim, written by an attempt whose answer was lost.
    if (held.claimed_at === now) claimed.push(key);
    return;
  }
  // A guard written by a transaction has no claim time: its owner was written with it.
  const claimedAt = held?.claimed_at;
  if (held === undefined || typeof claimedAt !== 'number' || now - claimedAt < ABANDONED_CLAIM_MS) throw target.duplicate(key);
  if ((await storedItem(target, held.owner, [target.keyName])) !== undefined) throw target.duplicate(key);
  const abandoned = {
    ConditionExpression: '#owner = :owner AND #at = :at',
    ExpressionAttributeNames: { '#owner': 'owner', '#at': 'claimed_at' },
    ExpressionAttributeValues: { ':owner': held.owner, ':at': claimedAt },
  };
  if (await claimIf(abandoned)) return;
  const { Item: after } = await target.client.send(new GetCommand({ TableName: target.uniques, Key: { key }, ConsistentRead: true }));
  if (after?.owner === owner && after.claimed_at === now) {
    claimed.push(key);
    return;
  }
  throw target.duplicate(key);
}

/** Delete the claims this create wrote (owner and claim time); failures leave them to be taken over once abandoned. */
async function giveBack(target: ClaimTarget, keys: readonly string[], owner: string, now: number): Promise<void> {
  await Promise.all(
    keys.map((key) =>
      target.client
        .send(
          new DeleteCommand({
            TableName: target.uniques,
            Key: { key },
            ConditionExpression: '#owner = :owner AND #at = :at',
            ExpressionAttributeNames: { '#owner': 'owner', '#at': 'claimed_at' },
            ExpressionAttributeValues: { ':owner': owner, ':at': now },
          }),
        )
        .catch(() => {
          // Gone already, or left behind: a claim left behind is taken over once abandoned.
        }),
    ),
  );
}

/** The stored item with this key, read consistently with only `attributes`; undefined when there is none. */
export async function storedItem(target: Pick<ClaimTarget, 'client' | 'table' | 'keyName'>, key: unknown, attributes: readonly string[]) {
  const names = Object.fromEntries(attributes.map((a, i) => [`#a${i}`, a]));
  const { Item } = await target.client.send(
    new GetCommand({
      TableName: target.table,
      Key: { [target.keyName]: key },
      ConsistentRead: true,
      ProjectionExpression: Object.keys(names).join(', '),
      ExpressionAttributeNames: names,
    }),
  );
  return Item as Dict | undefined;
}
