/**
 * The release mapping, in the spirit of Ironic's test_release_mappings: its structure, that it
 * matches the code (current versions, every persisted object, versions the code can read), that
 * releases and object versions have no gaps; and how a pin selects a row.
 */
import {
  RELEASE_COMMITS,
  RELEASE_MAPPING,
  type ReleaseMappings,
  UnknownReleaseError,
  compareVersionStrings,
  objectVersions,
  releaseFromEnv,
  selectRelease,
} from '../../../functions/common/releases';
import { OBJECT_REGISTRY } from '../../../functions/objects/registry';
import { RPC_API_VERSION } from '../../../functions/rpc/messages';

const VERSION_RE = /^1\.\d+$/;

/** Named releases ("2026.1", "2026.2", "2027.1") must follow each other: Ironic's test_no_gaps_in_release_versions. */
function releaseGaps(mapping: ReleaseMappings): string[] {
  const numeric = Object.keys(mapping)
    .filter((name) => name !== 'master')
    .map((name) => name.split('.').map(Number) as [number, number])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const gaps: string[] = [];
  for (let i = 1; i < numeric.length; i++) {
    const [prev, cur] = [numeric[i - 1]!, numeric[i]!];
    const sequential = (cur[0] === prev[0] && cur[1] === prev[1] + 1) || (cur[0] === prev[0] + 1 && cur[1] === 1);
    if (!sequential) gaps.push(`${prev.join('.')} → ${cur.join('.')}`);
  }
  return gaps;
}

/** Every object's versions over all releases must be consecutive: Ironic's test_no_gaps_in_object_versions. */
function objectVersionGaps(mapping: ReleaseMappings): string[] {
  const gaps: string[] = [];
  for (const [name, versions] of objectVersions(mapping)) {
    const minors = [...versions].map((v) => Number(v.split('.')[1])).sort((a, b) => a - b);
    for (let m = minors[0]!; m <= minors[minors.length - 1]!; m++) if (!minors.includes(m)) gaps.push(`${name} 1.${m}`);
  }
  return gaps;
}

describe('RELEASE_MAPPING', () => {
  it('has a master row, and every row is {api, rpc, objects} with "1.N" versions, newest first', () => {
    expect(RELEASE_MAPPING.master).toBeDefined();
    for (const row of Object.values(RELEASE_MAPPING)) {
      expect(Object.keys(row).sort()).toEqual(['api', 'objects', 'rpc']);
      expect(row.api).toMatch(VERSION_RE);
      expect(row.rpc).toMatch(VERSION_RE);
      for (const versions of Object.values(row.objects)) {
        expect(versions.length).toBeGreaterThan(0);
        for (const v of versions) expect(v).toMatch(VERSION_RE);
        expect([...versions].sort((a, b) => compareVersionStrings(b, a))).toEqual(versions);
      }
    }
  });

  it('has the releases shipped so far, the first at Ironic 21.4’s API, each cut release with its commit', () => {
    expect(Object.keys(RELEASE_MAPPING)).toEqual(['2026.2', '2026.3', 'master']);
    expect(RELEASE_MAPPING['2026.2']).toMatchObject({ api: '1.82', rpc: '1.0' });
    expect(RELEASE_MAPPING['2026.3']).toMatchObject({ api: '1.87', rpc: '1.1' });
    expect(Object.keys(RELEASE_COMMITS)).toEqual(['2026.3']);
    for (const commit of Object.values(RELEASE_COMMITS)) expect(commit).toMatch(/^[0-9a-f]{40}$/);
  });

  it("lists exactly the registered objects in master, each at its class's VERSION first", () => {
    expect(Object.keys(RELEASE_MAPPING.master!.objects).sort()).toEqual(Object.keys(OBJECT_REGISTRY).sort());
    for (const [name, cls] of Object.entries(OBJECT_REGISTRY)) expect(RELEASE_MAPPING.master!.objects[name]![0]).toBe(cls.VERSION);
  });

  it('names only registered objects, at versions their classes can convert, in every row', () => {
    for (const row of Object.values(RELEASE_MAPPING)) {
      for (const [name, versions] of Object.entries(row.objects)) {
        const cls = OBJECT_REGISTRY[name];
        expect(cls).toBeDefined();
        const known = cls!.history.map((step) => step.version);
        for (const v of versions) expect(known).toContain(v);
      }
    }
  });

  it('has master at the current RPC version, and no row above it', () => {
    expect(RELEASE_MAPPING.master!.rpc).toBe(RPC_API_VERSION);
    for (const row of Object.values(RELEASE_MAPPING)) expect(compareVersionStrings(row.rpc, RPC_API_VERSION)).toBeLessThanOrEqual(0);
  });

  it('has the next release in master: API 1.115, RPC 1.5 (console, indicators, vendor passthru; virtual media; their work after the answer), Node 1.2 (disable_power_off, health) and 1.1 (instance_name), Port 1.1 and Portgroup 1.1 (the 1.97–1.111 fields) beside the 1.0 that 2026.3 writes', () => {
    expect(RELEASE_MAPPING.master).toMatchObject({ api: '1.115', rpc: '1.5' });
    expect(RELEASE_MAPPING.master!.objects).toMatchObject({ Node: ['1.2', '1.1', '1.0'], Port: ['1.1', '1.0'], Portgroup: ['1.1', '1.0'] });
    const [pinned, latest] = [selectRelease('2026.3'), selectRelease('')];
    expect([pinned.apiMaxVersion, pinned.objectVersion('Node'), pinned.objectVersion('Port')]).toEqual(['1.87', '1.0', '1.0']);
    expect([latest.apiMaxVersion, latest.objectVersion('Node'), latest.objectVersion('Port')]).toEqual(['1.115', '1.2', '1.1']);
    expect([pinned.objectVersion('Portgroup'), latest.objectVersion('Portgroup')]).toEqual(['1.0', '1.1']);
    for (const release of [pinned, latest]) {
      expect(release.readableVersions('Node')).toEqual(['1.2', '1.1', '1.0']);
      for (const name of ['Port', 'Portgroup']) expect(release.readableVersions(name)).toEqual(['1.1', '1.0']);
    }
  });

  it('has no gaps between releases nor in object versions', () => {
    expect(releaseGaps(RELEASE_MAPPING)).toEqual([]);
    expect(objectVersionGaps(RELEASE_MAPPING)).toEqual([]);
  });
});

// Fixture mappings for the machinery: the shipped mapping has no past release to pin to.
const FIXTURE: ReleaseMappings = {
  '2026.1': { api: '1.80', rpc: '1.0', objects: { Node: ['1.0'] } },
  '2026.2': { api: '1.81', rpc: '1.1', objects: { Node: ['1.1', '1.0'], Port: ['1.0'] } },
  master: { api: '1.82', rpc: '1.2', objects: { Node: ['1.2'], Port: ['1.0'], Chassis: ['1.0'] } },
};

describe('the gap checks', () => {
  it('see a missing release and a missing object version', () => {
    expect(releaseGaps(FIXTURE)).toEqual([]);
    expect(releaseGaps({ ...FIXTURE, '2026.4': FIXTURE.master! })).toEqual(['2026.2 → 2026.4']);
    expect(releaseGaps({ ...FIXTURE, '2027.1': FIXTURE.master! })).toEqual([]);
    expect(objectVersionGaps({ ...FIXTURE, master: { ...FIXTURE.master!, objects: { Node: ['1.3'] } } })).toEqual(['Node 1.2']);
  });
});

describe('selectRelease', () => {
  it('unpinned: master, latest everything', () => {
    const release = selectRelease('', FIXTURE);
    expect(release).toMatchObject({ release: 'master', pinned: false, apiMaxVersion: '1.82', rpcVersionCap: '1.2' });
    expect(release.objectVersion('Node')).toBe('1.2');
  });

  it("pinned: the row's API maximum, RPC cap and object versions; objects the row lacks at their latest", () => {
    const release = selectRelease('2026.1', FIXTURE);
    expect(release).toMatchObject({ release: '2026.1', pinned: true, apiMaxVersion: '1.80', rpcVersionCap: '1.0' });
    expect(release.objectVersion('Node')).toBe('1.0');
    expect(release.objectVersion('Chassis')).toBe('1.0');
    expect(() => release.objectVersion('Widget')).toThrow('The release mapping does not list object Widget');
  });

  it('reads every version any release uses, newest first', () => {
    const release = selectRelease('2026.2', FIXTURE);
    expect(release.readableVersions('Node')).toEqual(['1.2', '1.1', '1.0']);
    expect(release.canRead('Node', '1.1')).toBe(true);
    expect(release.canRead('Node', '1.3')).toBe(false);
    expect(release.canRead('Allocation', '1.0')).toBe(false);
  });

  it('fails on an unknown pin with a message that says what is allowed', () => {
    expect(() => selectRelease('2025.2', FIXTURE)).toThrow(UnknownReleaseError);
    expect(() => selectRelease('2025.2', FIXTURE)).toThrow(
      'PIN_RELEASE_VERSION "2025.2" is not a known release; use "" for the latest or one of: 2026.1, 2026.2',
    );
    expect(() => selectRelease('2025.2')).toThrow(
      'PIN_RELEASE_VERSION "2025.2" is not a known release; use "" for the latest or one of: 2026.2, 2026.3',
    );
    expect(() => selectRelease('2025.2', { master: FIXTURE.master! })).toThrow(
      'PIN_RELEASE_VERSION "2025.2" is not a known release; use "" for the latest (no release has shipped yet)',
    );
  });

  it('reads PIN_RELEASE_VERSION from the environment', () => {
    expect(releaseFromEnv({}).release).toBe('master');
    expect(releaseFromEnv({ PIN_RELEASE_VERSION: '' }).pinned).toBe(false);
    expect(() => releaseFromEnv({ PIN_RELEASE_VERSION: 'zed' })).toThrow('PIN_RELEASE_VERSION "zed" is not a known release');
  });
});
