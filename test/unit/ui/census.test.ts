import { type CensusNode, type CensusPage, bucketOf, censusFields, nextCensusDelay, runCensus } from '../../../ui/src/census';

const node = (uuid: string, fields: Record<string, unknown> = {}): CensusNode => ({
  uuid,
  provision_state: 'available',
  power_state: 'power off',
  maintenance: false,
  fault: null,
  shard: null,
  conductor_group: '',
  owner: null,
  ...fields,
});

describe('censusFields', () => {
  it('asks only for the fields the API version has', () => {
    expect(censusFields(87)).toEqual([
      'uuid',
      'provision_state',
      'power_state',
      'maintenance',
      'fault',
      'shard',
      'conductor_group',
      'owner',
      'provision_updated_at',
    ]);
    expect(censusFields(45)).toEqual(['uuid', 'provision_state', 'power_state', 'maintenance', 'fault', 'provision_updated_at']);
  });
});

describe('runCensus', () => {
  it('counts every dimension from one paged pass, following the marker', async () => {
    const pages: CensusPage[] = [
      { nodes: [node('a', { provision_state: 'active', owner: 'web' }), node('b', { maintenance: true })], more: true },
      { nodes: [node('c', { shard: 'rack-a', power_state: null })], more: false },
    ];
    const markers: (string | undefined)[] = [];
    const census = await runCensus(
      async (marker) => {
        markers.push(marker);
        return pages[markers.length - 1] as CensusPage;
      },
      ['provision_state', 'power_state', 'maintenance', 'shard', 'owner'],
    );
    expect(markers).toEqual([undefined, 'b']);
    expect(census?.total).toBe(3);
    expect(census?.requests).toBe(2);
    expect([...(census?.counts.provision_state ?? [])]).toEqual([
      ['active', 1],
      ['available', 2],
    ]);
    expect(Object.fromEntries(census?.counts.maintenance ?? [])).toEqual({ no: 2, yes: 1 });
    expect(Object.fromEntries(census?.counts.power_state ?? [])).toEqual({ 'power off': 2, '(none)': 1 });
    expect(Object.fromEntries(census?.counts.owner ?? [])).toEqual({ web: 1, '(none)': 2 });
    expect(census?.partial).toBe(false);
  });

  it('keeps the nodes changed in the last hour, reports progress and stops when cancelled', async () => {
    const now = Date.parse('2026-11-25T10:00:00Z');
    const progress: number[] = [];
    let cancel = false;
    const list = async (marker: string | undefined): Promise<CensusPage> =>
      marker === undefined
        ? {
            nodes: [
              node('a', { provision_updated_at: '2026-11-25T09:30:00Z' }),
              node('b', { provision_updated_at: '2026-11-25T08:00:00Z' }),
            ],
            more: true,
          }
        : { nodes: [node('c')], more: false };
    const census = await runCensus(list, ['provision_state'], { now: () => now, progress: (c) => progress.push(c.total) });
    expect(census?.recent.map((n) => n.uuid)).toEqual(['a']);
    expect(progress).toEqual([2]);
    const stopped = await runCensus(list, ['provision_state'], { progress: () => (cancel = true), cancelled: () => cancel });
    expect(stopped).toBeUndefined();
  });
});

describe('bucketOf and nextCensusDelay', () => {
  it('names empty values and booleans', () => {
    expect([bucketOf(null), bucketOf(''), bucketOf(true), bucketOf(false), bucketOf('rack-a')]).toEqual([
      '(none)',
      '(none)',
      'yes',
      'no',
      'rack-a',
    ]);
  });

  it('counts a large fleet less often', () => {
    expect(nextCensusDelay(100, 50)).toBe(30_000);
    expect(nextCensusDelay(100_000, 10_000)).toBe(300_000);
    expect(nextCensusDelay(100_000, 60_000)).toBe(1_200_000);
  });
});
