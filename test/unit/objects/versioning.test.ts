/**
 * The versioning machinery over a real two-version object. As in the rolling-upgrades spec's
 * example, version 1.1 renamed `extra` to `meta`; the four boundaries (storage read and write,
 * RPC out and in) are exercised pinned (to 1.0) and unpinned: on the object, and as the services
 * cross them (the store's codec, the RPC serializer).
 */
import { IncompatibleObjectVersion } from '../../../functions/common/errors';
import { selectRelease, type ReleaseMapping } from '../../../functions/common/releases';
import { VersionedObject, convertData, type VersionStep } from '../../../functions/objects/base';
import { type FieldValues, t } from '../../../functions/objects/fields';
import type { ObjectRegistry } from '../../../functions/objects/registry';
import { type ObjectCodec, decodeItem, encodeItem } from '../../../functions/db/items';
import { deserializeObject, serializeObject } from '../../../functions/rpc/serializer';

const WIDGET_FIELDS = {
  uuid: t.uuid(),
  meta: t.dict({ default: {} }),
  colour: t.string({ nullable: true }),
} as const;

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
interface Widget extends FieldValues<typeof WIDGET_FIELDS> {}
// Version 1.0: uuid, extra
// Version 1.1: extra renamed to meta; colour added
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
class Widget extends VersionedObject {
  static override readonly objName = 'Widget';
  static override readonly VERSION = '1.1';
  static override readonly fields = WIDGET_FIELDS;
  static override readonly history: readonly VersionStep[] = [
    { version: '1.0' },
    {
      version: '1.1',
      added: ['meta', 'colour'],
      up: (data) => {
        data.meta = data.extra ?? {};
        delete data.extra;
      },
      down: (data) => {
        data.extra = data.meta ?? {};
      },
    },
  ];
}

const MAPPING: Record<string, ReleaseMapping> = {
  '1.0': { api: '1.80', rpc: '1.0', objects: { Widget: ['1.0'] } },
  master: { api: '1.82', rpc: '1.0', objects: { Widget: ['1.1', '1.0'] } },
};

const widget = () => new Widget({ uuid: 'b1f2a9e4-0000-4000-8000-000000000001', meta: { rack: 'r1' }, colour: 'blue' });

describe.each([
  ['unpinned', '', '1.1'],
  ['pinned to 1.0', '1.0', '1.0'],
])('Widget %s', (_label, pin, target) => {
  const release = selectRelease(pin, MAPPING);

  it(`writes items at ${target}, with version, and reads them back at the latest version`, () => {
    const item = widget().toItem(release.objectVersion('Widget'));
    expect(item.version).toBe(target);
    if (target === '1.0') {
      expect(item).toEqual({ version: '1.0', uuid: widget().uuid, extra: { rack: 'r1' } });
    } else {
      expect(item).toEqual({ version: '1.1', uuid: widget().uuid, meta: { rack: 'r1' }, colour: 'blue' });
    }
    const read = Widget.fromItem(item);
    expect(read.meta).toEqual({ rack: 'r1' });
    expect(read.colour).toBe(target === '1.0' ? null : 'blue');
  });

  it(`sends RPC primitives at ${target} and receives them as latest`, () => {
    const w = widget();
    w.resetChanges();
    w.meta = { rack: 'r2' };
    const primitive = w.toPrimitive(release.objectVersion('Widget'));
    expect(primitive.version).toBe(target);
    expect(primitive.name).toBe('Widget');
    if (target === '1.0') {
      expect(primitive.data).toEqual({ uuid: w.uuid, extra: { rack: 'r2' } });
      expect(primitive.changes).toEqual([]);
    } else {
      expect(primitive.data).toEqual({ uuid: w.uuid, meta: { rack: 'r2' }, colour: 'blue' });
      expect(primitive.changes).toEqual(['meta']);
    }
    const received = Widget.fromPrimitive(primitive);
    expect(received.meta).toEqual({ rack: 'r2' });
    expect(received.whatChanged().has('meta')).toBe(true);
  });
});

describe('Widget across a rolling upgrade', () => {
  it('an item saved newer and then older (steps 3.1–3.4) stays readable by both releases', () => {
    const newer = widget().toItem('1.1');
    const byNew = Widget.fromItem(newer);
    byNew.meta = { rack: 'r3' };
    const older = byNew.toItem('1.0'); // a pinned service saves it back at 1.0
    expect(older).toEqual({ version: '1.0', uuid: byNew.uuid, extra: { rack: 'r3' } });
    expect(Widget.fromItem(older).meta).toEqual({ rack: 'r3' });
  });

  it('records the conversion of an old item as changes, so the next save writes the new version', () => {
    const read = Widget.fromItem({ version: '1.0', uuid: 'x', extra: { a: 1 } });
    expect([...read.whatChanged()].sort()).toEqual(['meta']);
  });

  it('reads an item into fields in declared order, defaults filled fresh, attributes of no field dropped', () => {
    // DynamoDB hands attributes back in any order, and an item may carry one a field no longer has.
    const a = Widget.fromItem({ colour: 'red', version: '1.1', uuid: 'x', gone: 1 });
    const b = Widget.fromItem({ version: '1.1', uuid: 'y' });
    expect(Object.keys(a.values())).toEqual(['uuid', 'meta', 'colour']);
    expect(a.toData()).toEqual({ uuid: 'x', meta: {}, colour: 'red' });
    expect(Object.keys(b.values())).toEqual(['uuid', 'meta', 'colour']);
    expect(b.colour).toBeNull();
    // A default is never shared: filling one object's dict leaves the next one's empty.
    (a.meta as Record<string, unknown>).rack = 'r9';
    expect(b.meta).toEqual({});
    expect(Widget.fromItem({ version: '1.1', uuid: 'z' }).meta).toEqual({});
    expect([...a.whatChanged()]).toEqual([]);
    // A constructor after a read still fills its own defaults.
    expect(new Widget({ uuid: 'w' }).toData()).toEqual({ uuid: 'w', meta: {}, colour: null });
  });

  it('refuses a version it does not know, naming it', () => {
    expect(() => Widget.fromItem({ version: '1.7', uuid: 'x' })).toThrow(IncompatibleObjectVersion);
    expect(() => Widget.fromItem({ uuid: 'x' })).toThrow('Version none of Widget is not supported');
  });

  it('drops fields the target does not know for RPC, and nulls them for storage', () => {
    expect(convertData(Widget, widget().toData(), '1.1', '1.0', { removeUnavailable: true })).not.toHaveProperty('colour');
    expect(convertData(Widget, widget().toData(), '1.1', '1.0', { removeUnavailable: false }).colour).toBeNull();
  });

  it('tells which versions a release can read', () => {
    const master = selectRelease('', MAPPING);
    expect(master.canRead('Widget', '1.0')).toBe(true);
    expect(master.canRead('Widget', '1.2')).toBe(false);
    expect(() => selectRelease('0.9', MAPPING)).toThrow(
      'PIN_RELEASE_VERSION "0.9" is not a known release; use "" for the latest or one of: 1.0',
    );
  });
});

// The same four boundaries as the services cross them: the store's codec (DynamoDB items with
// bookkeeping and index keys) and the RPC serializer, each given the release selection.
const WIDGET_CODEC: ObjectCodec<Widget> = {
  cls: Widget,
  keyName: 'uuid',
  derive: (v) => ({ _all: 'widget', _colour: typeof v.colour === 'string' ? `v#${v.colour}` : undefined }),
  guards: () => [],
};
const REGISTRY = { Widget } as unknown as ObjectRegistry;

describe.each([
  ['unpinned', '', '1.1'],
  ['pinned to 1.0', '1.0', '1.0'],
])('Widget through the store codec and the RPC serializer, %s', (_label, pin, target) => {
  const release = selectRelease(pin, MAPPING);
  const book = { rev: 3, sortId: '00000000010000000000', guards: [] };

  it(`stores items at ${target} with version, bookkeeping and index keys derived from the latest data`, () => {
    const item = encodeItem(WIDGET_CODEC, widget(), release.objectVersion('Widget'), book);
    expect(item).toMatchObject({ version: target, rev: 3, _id: book.sortId, _all: 'widget', _colour: 'v#blue' });
    expect(item).toHaveProperty(target === '1.0' ? 'extra' : 'meta', { rack: 'r1' });
    expect(item).not.toHaveProperty(target === '1.0' ? 'meta' : 'extra');
    const read = decodeItem(WIDGET_CODEC, item);
    expect(read.meta).toEqual({ rack: 'r1' });
    expect(read.storeMeta).toEqual({ rev: 3, sortId: book.sortId, guards: [] });
    // Read from an older item, the object carries the conversion as changes: the next save rewrites it.
    expect([...read.whatChanged()]).toEqual(target === '1.0' ? ['meta'] : []);
  });

  it(`serializes for RPC at ${target} and deserializes to the latest version`, () => {
    const w = widget();
    const primitive = serializeObject(w, release);
    expect(primitive).toMatchObject({ name: 'Widget', version: target });
    const back = deserializeObject(JSON.parse(JSON.stringify(primitive)), REGISTRY) as Widget;
    expect(back).toBeInstanceOf(Widget);
    expect(back.meta).toEqual({ rack: 'r1' });
    expect(back.colour).toBe(target === '1.0' ? null : 'blue');
  });
});

describe('RPC deserialization', () => {
  it('refuses objects it does not know and versions it cannot read', () => {
    expect(() => deserializeObject({ name: 'Gadget', version: '1.0', data: {}, changes: [] }, REGISTRY)).toThrow('Unknown object Gadget');
    expect(() => deserializeObject({ name: 'Widget', version: '2.0', data: {}, changes: [] }, REGISTRY)).toThrow(
      'Version 2.0 of Widget is not supported, supported version is 1.1',
    );
    expect(() => deserializeObject({ name: 'Widget' }, REGISTRY)).toThrow('Expected a serialized object');
  });
});
