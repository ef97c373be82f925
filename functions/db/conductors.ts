/**
 * The conductor store (Ironic's conductors table). A conductor is a published version of the
 * conductor function serving one conductor group, registered under its hostname
 * ("conductor:<version>[:<group>]"); `updated_at` is its heartbeat and `online` says whether it
 * has unregistered. Every such registration is an instance of a conductor service (one group of
 * one function, consuming one queue), whose identity — a UUID created once — this store also keeps.
 */
import { DeleteCommand, GetCommand, TransactWriteCommand, UpdateCommand } from './dynamo';
import { ConductorAlreadyRegistered, ConductorNotFound } from '#common/errors';
import { Conductor } from '#objects/conductor';
import { type ObjectCodec, cancellationCodes, isConditionFailure } from './items';
import type { Page, PageOf } from './query';
import { ObjectTable, type StoreContext } from './table';

export interface ConductorRegistration {
  readonly hostname: string;
  readonly conductorGroup?: string;
  readonly drivers?: string[] | null;
}

/**
 * A conductor service's identity (the stable-compute-UUID spec's record): one conductor group of
 * one conductor function, and the queue it consumes. Created once by the first version that
 * serves the group; every later version checks it at its cold start (`#conductor/identity`).
 */
export interface ConductorService {
  readonly uuid: string;
  /** The stable name: `<function>:live` for the default group, `<function>:live:<group>` otherwise. */
  readonly name: string;
  readonly function: string;
  readonly conductorGroup: string;
  /** The queue's name (the last part of its URL, the same on every endpoint). */
  readonly queue: string;
  readonly createdAt: string;
}

/** What the identity records say about a function's group and about a queue (each may be missing). */
export interface ServiceRecords {
  readonly byGroup: ConductorService | undefined;
  readonly byQueue: ConductorService | undefined;
}

// NOTE: the identity lives in the uniques table, as two claims of unique values ("this group of
// this function is service U", "this queue is consumed by service U") written together and only
// once, like a node's name guard. The conductors table holds versioned Conductor objects that
// every release lists and dbsync checks; an item of another shape there would be read by releases
// that do not know it.
const serviceKey = (fn: string, group: string) => `conductor-service/${fn}/${group}`;
const queueKey = (queue: string) => `conductor-queue/${queue}`;

export interface ConductorStore {
  get(hostname: string): Promise<Conductor>;
  /**
   * Register a conductor (Ironic's `register`): ConductorAlreadyRegistered when it is registered
   * and online, unless `updateExisting`; an offline registration is taken over.
   */
  register(registration: ConductorRegistration, options?: { updateExisting?: boolean }): Promise<Conductor>;
  /** The heartbeat: updated_at = now, online again. */
  touch(hostname: string): Promise<void>;
  unregister(hostname: string): Promise<void>;
  /** Conductors in registration order; `online` and `conductorGroup` narrow the list. */
  list(filter: { online?: boolean; conductorGroup?: string }, page: Page): Promise<PageOf<Conductor>>;
  /**
   * Delete a registration whose heartbeat is still `updatedAt` (a stale version retired); false
   * when it is gone or beat since (it came back: keep it).
   */
  retire(hostname: string, updatedAt: string | null): Promise<boolean>;
  /** The identity records of `fn`'s conductor group `group` and of `queue` (consistent reads). */
  findService(fn: string, group: string, queue: string): Promise<ServiceRecords>;
  /** Record a new service's identity (both claims, once); false when any was recorded first. */
  createService(service: ConductorService): Promise<boolean>;
}

export const CONDUCTOR_CODEC: ObjectCodec<Conductor> = {
  cls: Conductor,
  keyName: 'hostname',
  derive: () => ({ _all: 'conductor' }),
  guards: () => [],
};

export class DynamoConductorStore extends ObjectTable<Conductor> implements ConductorStore {
  constructor(ctx: StoreContext) {
    super(ctx, 'conductors', CONDUCTOR_CODEC, {
      notFound: (ident) => new ConductorNotFound(ident),
      alreadyExists: (c) => new ConductorAlreadyRegistered(c.hostname),
      duplicate: (_key, c) => new ConductorAlreadyRegistered(c.hostname),
    });
  }

  async register(registration: ConductorRegistration, options: { updateExisting?: boolean } = {}): Promise<Conductor> {
    const fields = {
      conductor_group: (registration.conductorGroup ?? '').toLowerCase(),
      drivers: registration.drivers ?? null,
      online: true,
    };
    try {
      return await this.createObject(new Conductor({ hostname: registration.hostname, ...fields }));
    } catch (err) {
      if (!(err instanceof ConductorAlreadyRegistered)) throw err;
    }
    const existing = await this.get(registration.hostname);
    if (existing.online && !options.updateExisting) throw new ConductorAlreadyRegistered(registration.hostname);
    Object.assign(existing, fields);
    return this.saveObject(existing);
  }

  async touch(hostname: string): Promise<void> {
    await this.update(hostname, true);
  }

  async unregister(hostname: string): Promise<void> {
    await this.update(hostname, false);
  }

  async list(filter: { online?: boolean; conductorGroup?: string }, page: Page): Promise<PageOf<Conductor>> {
    const narrowed = filter.online !== undefined || filter.conductorGroup !== undefined;
    return this.listFrom(
      { indexes: [{ index: 'byId', keyName: '_all', value: 'conductor' }] },
      page,
      narrowed
        ? (c) =>
            (filter.online === undefined || c.online === filter.online) &&
            (filter.conductorGroup === undefined || c.conductor_group === filter.conductorGroup.toLowerCase())
        : undefined,
    );
  }

  async retire(hostname: string, updatedAt: string | null): Promise<boolean> {
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { hostname },
          ConditionExpression: updatedAt === null ? 'attribute_not_exists(#updated)' : '#updated = :seen',
          ExpressionAttributeNames: { '#updated': 'updated_at' },
          ...(updatedAt === null ? {} : { ExpressionAttributeValues: { ':seen': updatedAt } }),
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  async findService(fn: string, group: string, queue: string): Promise<ServiceRecords> {
    const [byGroup, byQueue] = await Promise.all(
      [serviceKey(fn, group), queueKey(queue)].map(async (key) => {
        const { Item } = await this.client.send(new GetCommand({ TableName: this.uniques, Key: { key }, ConsistentRead: true }));
        return Item === undefined ? undefined : serviceOf(Item);
      }),
    );
    return { byGroup, byQueue };
  }

  async createService(service: ConductorService): Promise<boolean> {
    const item = {
      owner: service.uuid,
      uuid: service.uuid,
      name: service.name,
      function: service.function,
      conductor_group: service.conductorGroup,
      queue: service.queue,
      created_at: service.createdAt,
    };
    const put = (key: string) => ({
      Put: {
        TableName: this.uniques,
        Item: { key, ...item },
        ConditionExpression: 'attribute_not_exists(#key)',
        ExpressionAttributeNames: { '#key': 'key' },
      },
    });
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [put(serviceKey(service.function, service.conductorGroup)), put(queueKey(service.queue))],
        }),
      );
      return true;
    } catch (err) {
      if (cancellationCodes(err) !== undefined) return false;
      throw err;
    }
  }

  /** One conditional UpdateItem: the fields exist in every Conductor version, so no conversion is needed. */
  private async update(hostname: string, online: boolean): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { hostname },
          UpdateExpression: 'SET #updated = :now, #online = :online, #rev = #rev + :one',
          ConditionExpression: 'attribute_exists(#hostname)',
          ExpressionAttributeNames: { '#updated': 'updated_at', '#online': 'online', '#rev': 'rev', '#hostname': 'hostname' },
          ExpressionAttributeValues: { ':now': new Date(this.now()).toISOString(), ':online': online, ':one': 1 },
        }),
      );
    } catch (err) {
      if (isConditionFailure(err)) throw new ConductorNotFound(hostname);
      throw err;
    }
  }
}

function serviceOf(item: Record<string, unknown>): ConductorService {
  const str = (key: string) => (typeof item[key] === 'string' ? (item[key] as string) : '');
  return {
    uuid: str('uuid'),
    name: str('name'),
    function: str('function'),
    conductorGroup: str('conductor_group'),
    queue: str('queue'),
    createdAt: str('created_at'),
  };
}
