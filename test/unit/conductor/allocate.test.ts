/** The conductor's allocation process (Ironic's do_allocate) on in-memory stores. */
import { randomUUID } from 'node:crypto';
import { AllocationNotFound } from '../../../functions/common/errors';
import { backfillErrors, verifyNodeForDeallocation } from '../../../functions/common/allocation-rules';
import { doAllocate } from '../../../functions/conductor/flows/allocate';
import type { AllocationStore } from '../../../functions/db/allocations';
import { Allocation } from '../../../functions/objects/allocation';
import { makeConductorContext, makeNode, storesWith } from '../helpers/builders';

/** Allocations kept as plain data; `deleted` makes every later save fail as a deleted item would. */
class MemoryAllocations {
  readonly items = new Map<string, Record<string, unknown>>();
  deleted = false;
  async get(uuid: string): Promise<Allocation> {
    const data = this.items.get(uuid);
    if (!data || this.deleted) throw new AllocationNotFound(uuid);
    return new Allocation(structuredClone(data));
  }
  async save(a: Allocation): Promise<Allocation> {
    if (this.deleted) throw new AllocationNotFound(a.uuid);
    this.items.set(a.uuid, structuredClone(a.toData()));
    a.resetChanges();
    return a;
  }
}

function setup(allocation: Partial<Record<string, unknown>> = {}) {
  const ctx = makeConductorContext();
  const allocations = new MemoryAllocations();
  const uuid = randomUUID();
  allocations.items.set(uuid, {
    ...new Allocation({ uuid, resource_class: 'rc', state: 'allocating', created_at: new Date().toISOString(), extra: {} }).toData(),
    ...allocation,
  });
  const full = { ...ctx, stores: storesWith(ctx.nodes, { allocations: allocations as unknown as AllocationStore }) };
  return { ctx: full, nodes: ctx.nodes, allocations, uuid };
}

const available = (overrides: Record<string, unknown> = {}) =>
  makeNode({ provision_state: 'available', power_state: 'power off', resource_class: 'rc', ...overrides });
const fixedOrder = <T>(items: T[]) => items;

describe('doAllocate', () => {
  it('tries the node named like the allocation first and associates it', async () => {
    const { ctx, nodes, allocations, uuid } = setup({ name: 'web-2', traits: ['CUSTOM_X'] });
    await nodes.create(available({ name: 'web-1', traits: ['CUSTOM_X'] }));
    const named = await nodes.create(available({ name: 'web-2', traits: ['CUSTOM_X', 'CUSTOM_Y'] }));
    await nodes.create(available({ name: 'maint', maintenance: true, traits: ['CUSTOM_X'] }));
    await doAllocate(ctx, { allocation_id: uuid }, { shuffle: fixedOrder });
    expect(allocations.items.get(uuid)).toMatchObject({ state: 'active', node_uuid: named.uuid, last_error: null });
    const node = await nodes.get(named.uuid);
    expect(node).toMatchObject({ instance_uuid: uuid, allocation_uuid: uuid, reservation: null });
    expect(node.instance_info.traits).toEqual(['CUSTOM_X']);
  });

  it('skips unpowered nodes and other owners’ nodes', async () => {
    const { ctx, nodes, allocations, uuid } = setup({ owner: 'p1' });
    await nodes.create(available({ power_state: null, owner: 'p1' }));
    await nodes.create(available({ owner: 'p2' }));
    const leased = await nodes.create(available({ lessee: 'p1' }));
    await doAllocate(ctx, { allocation_id: uuid }, { shuffle: fixedOrder });
    expect(allocations.items.get(uuid)).toMatchObject({ state: 'active', node_uuid: leased.uuid });
  });

  it('retries nodes locked by someone else, then fails with Ironic’s message', async () => {
    const { ctx, nodes, allocations, uuid } = setup();
    const node = await nodes.create(available());
    await nodes.reserve(node.uuid, { host: 'other', token: 'other', ttlSeconds: 300 });
    await doAllocate(ctx, { allocation_id: uuid }, { attempts: 2, retryIntervalMs: 0 });
    expect(allocations.items.get(uuid)).toMatchObject({
      state: 'error',
      node_uuid: null,
      last_error: `Failed to process allocation ${uuid}: could not reserve any of 1 suitable nodes.`,
    });
    expect((await nodes.get(node.uuid)).instance_uuid).toBeNull();
  });

  it('does nothing for an allocation already processed (a redelivered message)', async () => {
    const { ctx, nodes, allocations, uuid } = setup({ state: 'error', last_error: 'x' });
    const node = await nodes.create(available());
    await doAllocate(ctx, { allocation_id: uuid });
    expect(allocations.items.get(uuid)).toMatchObject({ state: 'error', last_error: 'x' });
    expect((await nodes.get(node.uuid)).instance_uuid).toBeNull();
  });

  it('finishes an allocation whose node was associated before a crash, without taking another', async () => {
    const { ctx, nodes, allocations, uuid } = setup();
    const taken = await nodes.create(available({ instance_uuid: uuid, allocation_uuid: uuid }));
    await nodes.create(available());
    await doAllocate(ctx, { allocation_id: uuid });
    expect(allocations.items.get(uuid)).toMatchObject({ state: 'active', node_uuid: taken.uuid });
  });

  it('frees the node again when the allocation was deleted meanwhile', async () => {
    const { ctx, nodes, allocations, uuid } = setup();
    const node = await nodes.create(available());
    const original = nodes.save.bind(nodes);
    nodes.save = async (n, o) => {
      const saved = await original(n, o);
      if (n.instance_uuid === uuid) allocations.deleted = true;
      return saved;
    };
    await doAllocate(ctx, { allocation_id: uuid });
    expect(await nodes.get(node.uuid)).toMatchObject({ instance_uuid: null, allocation_uuid: null, reservation: null });
  });
});

describe('allocation rules', () => {
  const node = (o: Record<string, unknown>) => available(o);
  it('refuse deallocating from an active node or one in transition, unless in maintenance', () => {
    const a = { uuid: 'a-1' };
    expect(() => verifyNodeForDeallocation(node({ provision_state: 'active', uuid: 'n-1' }), a)).toThrow(
      'Cannot remove allocation a-1 for node n-1, because the node is active (and maintenance mode is off)',
    );
    expect(() =>
      verifyNodeForDeallocation(node({ provision_state: 'deploying', target_provision_state: 'active', uuid: 'n-1' }), a),
    ).toThrow(
      'Cannot remove allocation a-1 for node n-1, because the node is in state deploying where updates are not allowed (and maintenance mode is off)',
    );
    expect(() => verifyNodeForDeallocation(node({ provision_state: 'active', maintenance: true }), a)).not.toThrow();
    expect(() => verifyNodeForDeallocation(node({}), a)).not.toThrow();
  });

  it('say every reason a backfill cannot take a node', () => {
    const errors = backfillErrors(node({ uuid: 'n-1', resource_class: 'a', traits: [] }), {
      uuid: 'x',
      resource_class: 'b',
      traits: ['CUSTOM_T'],
      candidate_nodes: ['n-2'],
      owner: null,
    });
    expect(errors).toEqual([
      'Node must be in the "active" state, but the current state is "available"',
      'Resource class a does not match the requested resource class b',
      "List of traits [] does not match the requested traits ['CUSTOM_T']",
      "Candidate nodes must be empty or contain the target node, but got ['n-2']",
    ]);
  });
});
