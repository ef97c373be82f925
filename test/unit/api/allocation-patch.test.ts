/**
 * PATCH of an allocation racing the conductor: the conductor writes the allocation while it
 * allocates, so the API's conditional save can lose; the patch is applied again to what the
 * conductor wrote instead of answering 409.
 */
import { ConcurrentUpdate } from '../../../functions/common/errors';
import { ALLOCATION_ROUTES } from '../../../functions/api/controllers/allocations';
import type { ApiContext } from '../../../functions/api/context';
import type { ApiRequest } from '../../../functions/api/http';
import { CONFLICT_RETRY } from '../../../functions/api/lookup';
import { Allocation } from '../../../functions/objects/allocation';

const UUID = '22222222-2222-4222-8222-222222222222';
const patchRoute = ALLOCATION_ROUTES.find((r) => r.method === 'PATCH' && r.segments.join('/') === 'v1/allocations/:ident')!;

/** An allocation store whose conductor "wins" the first `losses` saves by changing the state. */
function racingStore(losses: number) {
  let stored = new Allocation({
    uuid: UUID,
    name: 'a1',
    resource_class: 'rc',
    state: 'allocating',
    extra: {},
    created_at: '2026-01-01T00:00:00Z',
  });
  const saves: string[] = [];
  return {
    saves,
    stored: () => stored,
    store: {
      async get() {
        return new Allocation(stored.toData());
      },
      async save(a: Allocation) {
        if (losses > 0) {
          losses--;
          stored = new Allocation({ ...stored.toData(), state: 'error', last_error: 'no nodes' });
          saves.push('lost');
          throw new ConcurrentUpdate(`Allocation ${UUID}`);
        }
        stored = new Allocation(a.toData());
        saves.push('saved');
        return a;
      },
    },
  };
}

function request(): ApiRequest {
  return {
    method: 'PATCH',
    path: `/v1/allocations/${UUID}`,
    query: {},
    headers: {},
    body: JSON.stringify([
      { op: 'add', path: '/extra/a', value: 1 },
      { op: 'replace', path: '/name', value: 'patched' },
    ]),
    requestId: 'req-1',
    baseUrl: 'http://api',
    version: { major: 1, minor: 82 },
  };
}

const context = (store: unknown) => ({ stores: { allocations: store }, log: { info: () => undefined } }) as unknown as ApiContext;

describe('PATCH /v1/allocations racing the conductor', () => {
  it('applies the patch again on top of what the conductor wrote', async () => {
    const race = racingStore(1);
    const reply = await patchRoute.handler(request(), context(race.store), { ident: UUID });
    expect(reply.status).toBe(200);
    expect(race.saves).toEqual(['lost', 'saved']);
    expect(race.stored().toData()).toMatchObject({ name: 'patched', extra: { a: 1 }, state: 'error', last_error: 'no nodes' });
  });

  it('gives up with a 409 when the race is lost at every attempt', async () => {
    const race = racingStore(10);
    await expect(patchRoute.handler(request(), context(race.store), { ident: UUID })).rejects.toMatchObject({ code: 409 });
    expect(race.saves).toEqual(Array.from({ length: CONFLICT_RETRY.attempts }, () => 'lost'));
  });
});
