/**
 * The runbook store. Names are unique (guards), so a runbook is found by name with one consistent
 * read of its guard; its steps and traits are lists on its item, so changing either is one
 * conditional write of the runbook.
 */
import { RunbookAlreadyExists, RunbookDuplicateName, RunbookNotFound } from '#common/errors';
import { isUuidLike } from '#common/ids';
import { Runbook } from '#objects/runbook';
import type { ObjectCodec } from './items';
import { guard } from './keys';
import type { Page, PageOf } from './query';
import { ObjectTable, type StoreContext } from './table';

export interface RunbookFilters {
  /**
   * Ironic's `project` filter: runbooks owned by that project or public. Every Ironless caller is
   * Ironic's system admin, whose `project=true` asks for an owner that is no project: public ones.
   */
  readonly publicOnly?: boolean;
}

export interface RunbookStore {
  get(uuid: string): Promise<Runbook>;
  getByName(name: string): Promise<Runbook>;
  /** A UUID or a name. */
  getByIdent(ident: string): Promise<Runbook>;
  create(runbook: Runbook): Promise<Runbook>;
  save(runbook: Runbook): Promise<Runbook>;
  destroy(runbook: Runbook): Promise<void>;
  list(page: Page, filters?: RunbookFilters): Promise<PageOf<Runbook>>;
}

export const RUNBOOK_CODEC: ObjectCodec<Runbook> = {
  cls: Runbook,
  keyName: 'uuid',
  derive: () => ({ _all: 'runbook' }),
  guards: (v) => (typeof v.name === 'string' && v.name !== '' ? [guard.runbookName(v.name)] : []),
};

export class DynamoRunbookStore extends ObjectTable<Runbook> implements RunbookStore {
  constructor(ctx: StoreContext) {
    super(ctx, 'runbooks', RUNBOOK_CODEC, {
      notFound: (ident) => new RunbookNotFound(ident),
      alreadyExists: (r) => new RunbookAlreadyExists(r.uuid),
      duplicate: (_key, r) => new RunbookDuplicateName(r.name),
    });
  }

  getByName(name: string): Promise<Runbook> {
    return this.getByGuard(guard.runbookName(name), name);
  }

  getByIdent(ident: string): Promise<Runbook> {
    return isUuidLike(ident) ? this.get(ident) : this.getByName(ident);
  }

  create(runbook: Runbook): Promise<Runbook> {
    return this.createObject(runbook);
  }

  save(runbook: Runbook): Promise<Runbook> {
    return this.saveObject(runbook);
  }

  destroy(runbook: Runbook): Promise<void> {
    return this.destroyObject(runbook);
  }

  list(page: Page, filters: RunbookFilters = {}): Promise<PageOf<Runbook>> {
    const from = { indexes: [{ index: 'byId', keyName: '_all', value: 'runbook' }] };
    return filters.publicOnly ? this.listFrom(from, page, (r) => r.public === true) : this.listFrom(from, page);
  }
}
