/**
 * The allocation store. Names are unique (guards); allocations are found by node (a node has at
 * most one) and by state (the conductor processes `allocating` ones).
 */
import { AllocationAlreadyExists, AllocationDuplicateName, AllocationNotFound, NodeNotFound } from '#common/errors';
import { isUuidLike } from '#common/ids';
import { Allocation } from '#objects/allocation';
import type { ObjectCodec } from './items';
import { guard, sparseKey } from './keys';
import { exists } from './ports';
import type { IndexSource, Page, PageOf } from './query';
import { type ItemCheck, ObjectTable, type StoreContext } from './table';

export interface AllocationFilter {
  readonly nodeUuid?: string;
  readonly state?: string;
  readonly resourceClass?: string;
  readonly owner?: string;
}

export interface AllocationStore {
  get(uuid: string): Promise<Allocation>;
  getByName(name: string): Promise<Allocation>;
  /** A UUID or a name. */
  getByIdent(ident: string): Promise<Allocation>;
  create(allocation: Allocation): Promise<Allocation>;
  save(allocation: Allocation): Promise<Allocation>;
  destroy(allocation: Allocation): Promise<void>;
  list(filter: AllocationFilter, page: Page): Promise<PageOf<Allocation>>;
}

export const ALLOCATION_CODEC: ObjectCodec<Allocation> = {
  cls: Allocation,
  keyName: 'uuid',
  derive: (v) => ({ _all: 'allocation', _node: sparseKey(v.node_uuid), _state: sparseKey(v.state) }),
  guards: (v) => (typeof v.name === 'string' && v.name !== '' ? [guard.allocationName(v.name)] : []),
};

export class DynamoAllocationStore extends ObjectTable<Allocation> implements AllocationStore {
  private readonly nodesTable: string;

  constructor(ctx: StoreContext) {
    super(ctx, 'allocations', ALLOCATION_CODEC, {
      notFound: (ident) => new AllocationNotFound(ident),
      alreadyExists: (a) => new AllocationAlreadyExists(a.uuid),
      duplicate: (_key, a) => new AllocationDuplicateName(a.name ?? ''),
    });
    this.nodesTable = ctx.tables.nodes;
  }

  getByName(name: string): Promise<Allocation> {
    return this.getByGuard(guard.allocationName(name), name);
  }

  getByIdent(ident: string): Promise<Allocation> {
    return isUuidLike(ident) ? this.get(ident) : this.getByName(ident);
  }

  create(allocation: Allocation): Promise<Allocation> {
    return this.createObject(allocation, this.nodeCheck(allocation, true));
  }

  save(allocation: Allocation): Promise<Allocation> {
    return this.saveObject(allocation, this.nodeCheck(allocation, false));
  }

  destroy(allocation: Allocation): Promise<void> {
    return this.destroyObject(allocation);
  }

  list(filter: AllocationFilter, page: Page): Promise<PageOf<Allocation>> {
    let source: IndexSource = { index: 'byId', keyName: '_all', value: 'allocation' };
    let answered: keyof AllocationFilter | undefined;
    if (filter.nodeUuid !== undefined) {
      source = { index: 'byNode', keyName: '_node', value: sparseKey(filter.nodeUuid)! };
      answered = 'nodeUuid';
    } else if (filter.state !== undefined) {
      source = { index: 'byState', keyName: '_state', value: sparseKey(filter.state)! };
      answered = 'state';
    }
    const rest = (Object.keys(filter) as (keyof AllocationFilter)[]).filter((k) => filter[k] !== undefined && k !== answered);
    const matches = (a: Allocation) =>
      (filter.nodeUuid === undefined || a.node_uuid === filter.nodeUuid) &&
      (filter.state === undefined || a.state === filter.state) &&
      (filter.resourceClass === undefined || a.resource_class === filter.resourceClass) &&
      (filter.owner === undefined || a.owner === filter.owner);
    return this.listFrom({ indexes: [source] }, page, rest.length > 0 ? matches : undefined);
  }

  private nodeCheck(allocation: Allocation, creating: boolean): ItemCheck[] {
    const node = allocation.node_uuid;
    if (node === null || (!creating && !allocation.whatChanged().has('node_uuid'))) return [];
    return [exists(this.nodesTable, node, () => new NodeNotFound(node))];
  }
}
