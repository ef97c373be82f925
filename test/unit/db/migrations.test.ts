/**
 * One item through an online migration, without DynamoDB: converted to the latest version, its
 * bookkeeping (revision, lock, guards) kept, its index keys derived again.
 */
import { IncompatibleObjectVersion } from '../../../functions/common/errors';
import type { VersionedTable } from '../../../functions/db/codecs';
import { migrateItem } from '../../../functions/db/migrations';
import { VersionedObject, type VersionStep } from '../../../functions/objects/base';
import { t } from '../../../functions/objects/fields';

class Widget extends VersionedObject {
  static override readonly objName = 'Widget';
  static override readonly VERSION = '1.1';
  static override readonly fields = { uuid: t.uuid(), meta: t.dict({ default: {} }), colour: t.string({ nullable: true }) };
  static override readonly history: readonly VersionStep[] = [
    { version: '1.0' },
    {
      version: '1.1',
      added: ['meta', 'colour'],
      up: (d) => {
        d.meta = d.extra ?? {};
        delete d.extra;
      },
      down: (d) => {
        d.extra = d.meta ?? {};
      },
    },
  ];
}

const table: VersionedTable = {
  table: 'widgets',
  codec: {
    cls: Widget,
    keyName: 'uuid',
    derive: (v) => ({
      _all: 'widget',
      _rack: typeof (v.meta as { rack?: string }).rack === 'string' ? `v#${(v.meta as { rack: string }).rack}` : undefined,
    }),
    guards: () => [],
  },
};

describe('migrateItem', () => {
  it('converts to the latest version and keeps revision, lock and guards', () => {
    const old = {
      version: '1.0',
      uuid: 'w1',
      extra: { rack: 'r9' },
      rev: 7,
      _id: 'id1',
      _all: 'widget',
      _guards: ['widget/name/x'],
      _lock_owner: 'tok',
      _lock_exp: 123,
      _stale: 'x',
    };
    expect(migrateItem(old, table.codec)).toEqual({
      version: '1.1',
      uuid: 'w1',
      meta: { rack: 'r9' },
      rev: 7,
      _id: 'id1',
      _all: 'widget',
      _rack: 'v#r9',
      _guards: ['widget/name/x'],
      _lock_owner: 'tok',
      _lock_exp: 123,
      _stale: 'x',
    });
  });

  it('drops index keys the latest data no longer derives', () => {
    expect(migrateItem({ version: '1.0', uuid: 'w2', extra: {}, rev: 1, _id: 'i', _rack: 'v#old' }, table.codec)).not.toHaveProperty(
      '_rack',
    );
  });

  it('refuses an item at a version it cannot read', () => {
    expect(() => migrateItem({ version: '2.0', uuid: 'w3', rev: 1 }, table.codec)).toThrow(IncompatibleObjectVersion);
  });
});
