/**
 * The conductor store (Ironic's conductors table). A conductor is a published version of the
 * conductor function, registered under its hostname ("conductor:<version>"); `updated_at` is its
 * heartbeat and `online` says whether it has unregistered.
 */
import { UpdateCommand } from './dynamo';
import { ConductorAlreadyRegistered, ConductorNotFound } from '#common/errors';
import { Conductor } from '#objects/conductor';
import { type ObjectCodec, isConditionFailure } from './items';
import type { Page, PageOf } from './query';
import { ObjectTable, type StoreContext } from './table';

export interface ConductorRegistration {
  readonly hostname: string;
  readonly conductorGroup?: string;
  readonly drivers?: string[] | null;
}

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
