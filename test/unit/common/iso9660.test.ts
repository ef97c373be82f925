/**
 * The ISO 9660 writer (config drives) and the virtual agent's reader: the reader against a config
 * drive genisoimage wrote (test/fixtures/configdrive), the writer through the reader in all three
 * namespaces, and both refusing what they cannot represent or parse. (The compat suite reads the
 * writer's images with Debian's isoinfo too.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { buildIso } from '../../../functions/common/iso9660';
import { PROJECT_ROOT } from '../../../lib/bundling';
import { IsoError, readIso } from '../../../local/fleet/agent/iso9660';

const SECTOR = 2048;
const fixture = () =>
  gunzipSync(Buffer.from(readFileSync(join(PROJECT_ROOT, 'test/fixtures/configdrive/genisoimage.iso.gz.b64'), 'latin1'), 'base64'));

describe('reading a config drive genisoimage wrote', () => {
  it('reads the Rock Ridge names by default, and the same files under Joliet and ISO 9660 names', () => {
    const image = fixture();
    const rr = readIso(image);
    expect(rr.volumeId).toBe('config-2');
    expect(rr.namespace).toBe('rockridge');
    expect([...rr.files.keys()].sort()).toEqual([
      'openstack/2012-08-10/meta_data.json',
      'openstack/2012-08-10/network_data.json',
      'openstack/2012-08-10/user_data',
      'openstack/latest/meta_data.json',
      'openstack/latest/network_data.json',
      'openstack/latest/user_data',
    ]);
    expect(JSON.parse(rr.files.get('openstack/latest/meta_data.json')?.toString() ?? '')).toEqual({
      uuid: '1be26c0b-03f2-4d2e-ae87-c02d7f33c123',
      name: 'node-7',
      hostname: 'hé',
    });
    expect(rr.files.get('openstack/latest/user_data')?.toString()).toBe('#cloud-config\nhostname: node-7\n');

    const joliet = readIso(image, 'joliet');
    expect(joliet.namespace).toBe('joliet');
    expect([...joliet.files.keys()].sort()).toEqual([...rr.files.keys()].sort());
    const plain = readIso(image, 'iso9660');
    // genisoimage's relaxed names: '-' is not allowed (2012_08_10); the `;1` versions are dropped.
    expect([...plain.files.keys()].sort()).toContain('openstack/2012_08_10/user_data');
    expect(plain.files.get('openstack/latest/user_data')).toEqual(rr.files.get('openstack/latest/user_data'));
  });
});

describe('writing ISO 9660 images', () => {
  const files = [
    { path: 'openstack/latest/meta_data.json', data: '{"uuid": "u"}' },
    { path: 'openstack/latest/user_data', data: Buffer.alloc(5000, 7) },
    { path: 'openstack/2012-08-10/meta_data.json', data: '{"uuid": "u"}' },
    { path: 'openstack/content/0000', data: '' },
  ];

  it('writes what genisoimage writes for a config drive: descriptors, names in three namespaces, padding', () => {
    const image = buildIso(files, { volumeId: 'config-2', publisher: 'ironless', date: new Date('2026-11-22T10:00:00Z') });
    expect(image.length % SECTOR).toBe(0);
    expect(image.toString('latin1', 16 * SECTOR + 1, 16 * SECTOR + 6)).toBe('CD001');
    expect(image[16 * SECTOR]).toBe(1); // primary
    expect(image[17 * SECTOR]).toBe(2); // Joliet
    expect(image.toString('latin1', 17 * SECTOR + 88, 17 * SECTOR + 91)).toBe('%/E');
    expect(image[18 * SECTOR]).toBe(255);
    expect(image.readUInt32LE(16 * SECTOR + 80)).toBe(image.length / SECTOR); // volume space size
    expect(image.readUInt32BE(16 * SECTOR + 84)).toBe(image.length / SECTOR);
    expect(image.subarray(image.length - 150 * SECTOR).every((b) => b === 0)).toBe(true);
    expect(image.toString('latin1', 16 * SECTOR + 813, 16 * SECTOR + 827)).toBe('20261122100000');

    for (const ns of ['rockridge', 'joliet'] as const) {
      const read = readIso(image, ns);
      expect(read.namespace).toBe(ns);
      expect(read.volumeId).toBe('config-2');
      expect(Object.fromEntries(read.files)).toEqual(
        Object.fromEntries(files.map((f) => [f.path, Buffer.isBuffer(f.data) ? f.data : Buffer.from(f.data)])),
      );
    }
    expect([...readIso(image, 'iso9660').files.keys()].sort()).toEqual([
      'openstack/2012_08_10/meta_data.json',
      'openstack/content/0000',
      'openstack/latest/meta_data.json',
      'openstack/latest/user_data',
    ]);
  });

  it('round-trips any small tree of files through the reader', () => {
    const segment = fc.stringMatching(/^[a-z0-9][a-z0-9_.-]{0,20}$/).filter((s) => s !== '.' && s !== '..');
    const tree = fc.uniqueArray(
      fc.record({
        path: fc.array(segment, { minLength: 1, maxLength: 4 }).map((p) => p.join('/')),
        data: fc.uint8Array({ maxLength: 6000 }),
      }),
      { maxLength: 12, selector: (f) => f.path },
    );
    fc.assert(
      fc.property(tree, (entries) => {
        let image: Buffer;
        try {
          image = buildIso(
            entries.map((e) => ({ path: e.path, data: Buffer.from(e.data) })),
            { volumeId: 'v' },
          );
        } catch (err) {
          // A file where a directory of the same name goes, or names colliding once relaxed: refused, never mis-written.
          expect((err as Error).message).toMatch(/is a file|twice|collides/);
          return;
        }
        const read = readIso(image);
        expect(read.files.size).toBe(entries.length);
        for (const e of entries) expect(read.files.get(e.path)).toEqual(Buffer.from(e.data));
      }),
      { numRuns: 150 },
    );
  });

  it('refuses paths it cannot represent', () => {
    expect(() => buildIso([{ path: 'a//b', data: '' }], { volumeId: 'v' })).toThrow(/empty/);
    expect(() => buildIso([{ path: '../etc', data: '' }], { volumeId: 'v' })).toThrow(/"\."/);
    expect(() => buildIso([{ path: 'x'.repeat(65), data: '' }], { volumeId: 'v' })).toThrow(/longer than 64/);
    expect(() => buildIso([{ path: 'a/b/c/d/e/f/g/h/i', data: '' }], { volumeId: 'v' })).toThrow(/deeper/);
    expect(() =>
      buildIso(
        [
          { path: 'a', data: '' },
          { path: 'a', data: '' },
        ],
        { volumeId: 'v' },
      ),
    ).toThrow(/twice/);
    expect(() =>
      buildIso(
        [
          { path: 'a-b', data: '' },
          { path: 'a_b', data: '' },
        ],
        { volumeId: 'v' },
      ),
    ).toThrow(/collides/);
  });
});

describe('reading malformed images', () => {
  it('says what is wrong, never crashes or loops', () => {
    expect(() => readIso(Buffer.alloc(100))).toThrow(IsoError);
    expect(() => readIso(Buffer.from('H4sIAAAAAAAAA'))).toThrow(/not an ISO 9660 image/);
    const good = buildIso([{ path: 'a/b', data: 'x' }], { volumeId: 'v' });
    expect(() => readIso(good.subarray(0, 20 * SECTOR))).toThrow(IsoError); // truncated: extents past the end
    // A directory whose entry points back at the root: a loop.
    const looped = Buffer.from(good);
    const rootLba = looped.readUInt32LE(16 * SECTOR + 156 + 2);
    const child = findChildLba(looped, rootLba);
    looped.writeUInt32LE(rootLba, child.at);
    looped.writeUInt32BE(rootLba, child.at + 4);
    expect(() => readIso(looped)).toThrow(/reached twice/);
    fc.assert(
      fc.property(fc.integer({ min: 16 * SECTOR, max: good.length - 1 }), fc.integer({ min: 0, max: 255 }), (at, byte) => {
        const broken = Buffer.from(good);
        broken[at] = byte;
        try {
          readIso(broken);
        } catch (err) {
          expect(err).toBeInstanceOf(IsoError);
        }
      }),
      { numRuns: 300 },
    );
  });
});

/** Where the LBA field of the root directory's third record (its first child) is. */
function findChildLba(image: Buffer, rootLba: number): { at: number } {
  let at = rootLba * SECTOR;
  at += image[at] as number; // "."
  at += image[at] as number; // ".."
  return { at: at + 2 };
}
