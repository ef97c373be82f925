/**
 * The DynamoDB side every object store shares: one table of one versioned object, items written
 * at the release's target version, every write conditional, unique values kept unique by guard
 * items (in the `uniques` table) that name the object owning them.
 *
 * Costs (round trips): get 1 read; get by a unique value 2 reads (guard, item; both consistent);
 * create 1 write, plus 1 per unique value the object owns (a single transaction instead when it
 * also checks another item); save 1 write (a transaction when unique values change); destroy 1
 * write (likewise).
 *
 * A create claims its unique values first, one conditional put each, and then puts its item. A
 * transaction of the same items would cost DynamoDB twice the write units (and DynamoDB Local
 * serves it at under half the rate). Between the writes a guard names an object that does not
 * exist yet: a lookup by that value finds nothing, and another create of the value is refused as a
 * duplicate. A claim whose object never appeared within ABANDONED_CLAIM_MS belonged to a create
 * that died between its writes; the next create of the value takes it over. How a claim survives a
 * write whose answer was lost is in `claims.ts`.
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { createClaimed } from './claims';
import { DeleteCommand, type DocumentClient, GetCommand, PutCommand, TransactWriteCommand } from './dynamo';
import { ConcurrentUpdate } from '#common/errors';
import type { ReleaseSelection } from '#common/releases';
import type { StoreMeta, VersionedObject } from '#objects/base';
import type { Dict } from '#objects/fields';
import {
  type Bookkeeping,
  type ObjectCodec,
  cancellationCodes,
  decodeItem,
  encodeItem,
  isConditionFailure,
  isTransactionConflict,
} from './items';
import { newSortId } from './keys';
import { type IndexSource, type Page, type PageOf, batchGet, listObjects } from './query';
import type { TableName } from './schema';

/** What every store is built from, once per cold start. */
export interface StoreContext {
  readonly client: DocumentClient;
  /** Physical table names (`tableNamesFromEnv`). */
  readonly tables: Readonly<Record<TableName, string>>;
  /** Decides the object version items are written at. */
  readonly release: ReleaseSelection;
  readonly now?: () => number;
}

/** A condition on another item, checked in the same transaction as a write (a foreign key). */
export interface ItemCheck {
  readonly table: string;
  readonly key: Dict;
  readonly condition: string;
  readonly names: Record<string, string>;
  readonly values?: Dict;
  /** The error when the condition does not hold. */
  readonly error: () => Error;
}

/** Ironic's errors for one kind of object. */
export interface TableErrors<T> {
  notFound(ident: string): Error;
  alreadyExists(obj: T): Error;
  /** `guardKey` (one of the object's unique values) is owned by another item. */
  duplicate(guardKey: string, obj: T): Error;
}

export interface WriteCondition {
  readonly ConditionExpression: string;
  readonly ExpressionAttributeNames: Record<string, string>;
  readonly ExpressionAttributeValues?: Dict;
}

const CONDITION_FAILED = 'ConditionalCheckFailed';

export { ABANDONED_CLAIM_MS } from './claims';

/** How many times a transaction cancelled for a conflict alone is sent (`transact`): about 0.3 s of pauses at most. */
const TRANSACTION_CONFLICT_ATTEMPTS = 4;

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export class ObjectTable<T extends VersionedObject> {
  protected readonly client: DocumentClient;
  readonly tableName: string;
  protected readonly uniques: string;
  protected readonly releaseSelection: ReleaseSelection;
  protected readonly now: () => number;

  constructor(
    ctx: StoreContext,
    table: TableName,
    readonly codec: ObjectCodec<T>,
    protected readonly errors: TableErrors<T>,
  ) {
    this.client = ctx.client;
    this.tableName = ctx.tables[table];
    this.uniques = ctx.tables.uniques;
    this.releaseSelection = ctx.release;
    this.now = ctx.now ?? Date.now;
  }

  /** The object, or undefined; one consistent read. */
  async find(key: string): Promise<T | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { [this.codec.keyName]: key }, ConsistentRead: true }),
    );
    return Item ? this.decode(Item) : undefined;
  }

  async get(key: string): Promise<T> {
    const found = await this.find(key);
    if (found === undefined) throw this.errors.notFound(key);
    return found;
  }

  /** The object owning a unique value (guard key); `ident` names it in the NotFound. */
  protected async getByGuard(guardKey: string, ident: string): Promise<T> {
    const owner = await this.guardOwner(guardKey);
    const found = owner === undefined ? undefined : await this.find(owner);
    if (found === undefined) throw this.errors.notFound(ident);
    return found;
  }

  /**
   * The item a create of `obj` writes (stamped at `now`, with a new sort id unless given), with its
   * bookkeeping: what `createObject` puts, and what a bulk import (`ironless fleet import`) writes.
   */
  newItem(obj: T, now: number = this.now(), sortId: string = newSortId(now)): { item: Dict; book: Bookkeeping } {
    this.stamp(obj, 'created_at', now);
    if ('updated_at' in this.codec.cls.fields) (obj as unknown as Dict).updated_at = null;
    const book: Bookkeeping = { rev: 1, sortId, guards: this.codec.guards(obj.values()) };
    return { item: this.encode(obj, book), book };
  }

  /** A put of a unique value's guard naming `owner`, refused when the value is taken (as a transaction writes it). */
  guardPutFor(key: string, owner: string): TransactItem {
    return {
      Put: {
        TableName: this.uniques,
        Item: { key, owner },
        ConditionExpression: 'attribute_not_exists(#key)',
        ExpressionAttributeNames: { '#key': 'key' },
      },
    };
  }

  /** Put a new object, stamped and sorted at `at` (epoch ms; now by default). */
  protected async createObject(obj: T, checks: readonly ItemCheck[] = [], at?: number): Promise<T> {
    const now = this.now();
    const { item, book } = this.newItem(obj, at ?? now);
    const guards = book.guards;
    const put = {
      TableName: this.tableName,
      Item: item,
      ConditionExpression: 'attribute_not_exists(#key)',
      ExpressionAttributeNames: { '#key': this.codec.keyName },
    };
    try {
      if (guards.length === 0 && checks.length === 0) await this.client.send(new PutCommand(put));
      else if (checks.length === 0)
        await createClaimed(
          {
            client: this.client,
            uniques: this.uniques,
            table: this.tableName,
            keyName: this.codec.keyName,
            duplicate: (key) => this.errors.duplicate(key, obj),
          },
          put,
          guards,
          now,
        );
      else await this.transact([{ Put: put }, ...guards.map((key) => this.guardPut(key, obj)), ...checks.map(checkItem)]);
    } catch (err) {
      if (isConditionFailure(err)) throw this.errors.alreadyExists(obj);
      if (isTransactionConflict(err)) throw new ConcurrentUpdate(`${this.codec.cls.objName} ${this.keyOf(obj)}`);
      const codes = cancellationCodes(err);
      if (codes === undefined) throw err;
      if (codes[0] === CONDITION_FAILED) throw this.errors.alreadyExists(obj);
      throw this.transactionError(obj, codes, guards, checks);
    }
    obj.storeMeta = { ...book, guards: [...guards] };
    obj.resetChanges();
    return obj;
  }

  /** Write the object back; conditional on the revision it was read at (no lost updates). */
  protected async saveObject(obj: T, checks: readonly ItemCheck[] = []): Promise<T> {
    const meta = this.metaOf(obj);
    const now = this.now();
    this.stamp(obj, 'updated_at', now);
    return this.write(
      obj,
      { rev: meta.rev + 1, sortId: meta.sortId, guards: this.codec.guards(obj.values()) },
      this.writeCondition(meta, now),
      checks,
    );
  }

  protected async destroyObject(obj: T): Promise<void> {
    const meta = this.metaOf(obj);
    const key = { [this.codec.keyName]: this.keyOf(obj) };
    const condition = this.writeCondition(meta, this.now());
    try {
      if (meta.guards.length === 0) {
        await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: key, ...condition }));
      } else {
        await this.transact([
          { Delete: { TableName: this.tableName, Key: key, ...condition } },
          ...meta.guards.map((guardKey) => this.guardDelete(guardKey, obj)),
        ]);
      }
    } catch (err) {
      if (isConditionFailure(err) || isTransactionConflict(err) || cancellationCodes(err))
        throw await this.conflictCause(this.keyOf(obj), meta);
      throw err;
    }
  }

  /** A page of objects from index partitions or known keys (see `query.ts`). */
  protected listFrom(
    from: { readonly indexes: readonly IndexSource[] } | { readonly keys: readonly string[] },
    page: Page,
    matches?: (obj: T) => boolean,
  ): Promise<PageOf<T>> {
    return listObjects({
      client: this.client,
      table: this.tableName,
      codec: this.codec,
      from,
      page,
      ...(matches ? { matches } : {}),
      markerNotFound: (marker) => this.errors.notFound(marker),
    });
  }

  /** Objects by key, in the given order; missing ones are left out. */
  getMany(keys: readonly string[]): Promise<T[]> {
    return batchGet({ client: this.client, table: this.tableName, codec: this.codec }, keys);
  }

  // --- for subclasses -------------------------------------------------------------------------

  /**
   * Put the item with `book` under `condition`, moving unique-value guards that changed, in one
   * transaction when anything besides the item is involved (`alsoPut`: other new items, last).
   */
  protected async write(
    obj: T,
    book: Bookkeeping,
    condition: WriteCondition,
    checks: readonly ItemCheck[] = [],
    alsoPut: readonly TransactItem[] = [],
  ): Promise<T> {
    const meta = this.metaOf(obj);
    const item = this.encode(obj, book);
    const removed = meta.guards.filter((key) => !book.guards.includes(key));
    const added = book.guards.filter((key) => !meta.guards.includes(key));
    try {
      if (removed.length === 0 && added.length === 0 && checks.length === 0 && alsoPut.length === 0) {
        await this.client.send(new PutCommand({ TableName: this.tableName, Item: item, ...condition }));
      } else {
        await this.transact([
          { Put: { TableName: this.tableName, Item: item, ...condition } },
          ...added.map((key) => this.guardPut(key, obj)),
          ...removed.map((key) => this.guardDelete(key, obj)),
          ...checks.map(checkItem),
          ...alsoPut,
        ]);
      }
    } catch (err) {
      // A transaction under way on the item (past the SDK's retries): lost like a race.
      if (isConditionFailure(err) || isTransactionConflict(err)) throw await this.conflictCause(this.keyOf(obj), meta);
      const codes = cancellationCodes(err);
      if (codes === undefined) throw err;
      if (codes[0] === CONDITION_FAILED) throw await this.conflictCause(this.keyOf(obj), meta);
      const failedCheck = checks.findIndex((_, i) => codes[1 + added.length + removed.length + i] === CONDITION_FAILED);
      if (failedCheck >= 0) throw checks[failedCheck]!.error();
      throw this.transactionError(obj, codes, added, []);
    }
    const next: StoreMeta = { rev: book.rev, sortId: book.sortId, guards: [...book.guards] };
    if (book.lockOwner !== undefined) next.lockOwner = next.lockHolder = book.lockOwner;
    if (book.lockExpiresAt !== undefined) next.lockExpiresAt = book.lockExpiresAt;
    obj.storeMeta = next;
    obj.resetChanges();
    return obj;
  }

  /** The condition of every save and destroy: the revision the object was read at. */
  protected writeCondition(meta: StoreMeta, _now: number): WriteCondition {
    return {
      ConditionExpression: '#rev = :rev',
      ExpressionAttributeNames: { '#rev': 'rev' },
      ExpressionAttributeValues: { ':rev': meta.rev },
    };
  }

  /** Why a conditional write failed: the item is gone, or it changed since it was read. */
  protected async conflictCause(key: string, _meta: StoreMeta): Promise<Error> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { [this.codec.keyName]: key }, ConsistentRead: true }),
    );
    if (!Item) return this.errors.notFound(key);
    return new ConcurrentUpdate(`${this.codec.cls.objName} ${key}`);
  }

  protected encode(obj: T, book: Bookkeeping): Dict {
    return encodeItem(this.codec, obj, this.releaseSelection.objectVersion(this.codec.cls.objName), book);
  }

  protected decode(item: Dict): T {
    return decodeItem(this.codec, item);
  }

  protected keyOf(obj: T): string {
    return String(obj.values()[this.codec.keyName]);
  }

  protected metaOf(obj: T): StoreMeta {
    if (obj.storeMeta === undefined) {
      throw new Error(`${this.codec.cls.objName}: save() and destroy() need an object read from the store; use create() for new ones`);
    }
    return obj.storeMeta;
  }

  protected async guardOwner(key: string): Promise<string | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.uniques, Key: { key }, ConsistentRead: true }));
    return typeof Item?.owner === 'string' ? Item.owner : undefined;
  }

  /**
   * One TransactWriteItems. Cancelled only because another transaction or write was under way on
   * one of its items (TransactionConflict: nothing applied, AWS advises sending it again; the SDK
   * does not), it is sent again after a short jittered pause, up to TRANSACTION_CONFLICT_ATTEMPTS
   * times in all; then the cancellation goes to the caller, as a lost race.
   */
  protected async transact(items: TransactItem[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.client.send(new TransactWriteCommand({ TransactItems: items }));
        return;
      } catch (err) {
        if (!isTransactionConflict(err) || attempt >= TRANSACTION_CONFLICT_ATTEMPTS) throw err;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 20 * 2 ** attempt)));
    }
  }

  private stamp(obj: T, field: 'created_at' | 'updated_at', now: number): void {
    if (field in this.codec.cls.fields) (obj as unknown as Dict)[field] = new Date(now).toISOString();
  }

  private guardPut(key: string, obj: T): TransactItem {
    return this.guardPutFor(key, this.keyOf(obj));
  }

  /** Delete a guard we own; a guard already gone is fine, one owned by another item is not touched. */
  private guardDelete(key: string, obj: T): TransactItem {
    return this.guardDeleteFor(key, this.keyOf(obj));
  }

  protected guardDeleteFor(key: string, owner: string): TransactItem {
    return {
      Delete: {
        TableName: this.uniques,
        Key: { key },
        ConditionExpression: 'attribute_not_exists(#key) OR #owner = :owner',
        ExpressionAttributeNames: { '#key': 'key', '#owner': 'owner' },
        ExpressionAttributeValues: { ':owner': owner },
      },
    };
  }

  /**
   * The error for a cancelled transaction whose own item condition held: a unique value taken, a
   * check that failed, or (TransactionConflict: another transaction on the same items) a race.
   */
  private transactionError(obj: T, codes: (string | undefined)[], guards: readonly string[], checks: readonly ItemCheck[]): Error {
    for (let i = 0; i < guards.length; i++) {
      if (codes[1 + i] === CONDITION_FAILED) return this.errors.duplicate(guards[i]!, obj);
    }
    for (let i = 0; i < checks.length; i++) {
      if (codes[1 + guards.length + i] === CONDITION_FAILED) return checks[i]!.error();
    }
    return new ConcurrentUpdate(`${this.codec.cls.objName} ${this.keyOf(obj)}`);
  }
}

function checkItem(check: ItemCheck): TransactItem {
  return {
    ConditionCheck: {
      TableName: check.table,
      Key: check.key,
      ConditionExpression: check.condition,
      ExpressionAttributeNames: check.names,
      ...(check.values ? { ExpressionAttributeValues: check.values } : {}),
    },
  };
}
