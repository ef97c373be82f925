/**
 * Node 1.1's instance_name (Ironic's Node 1.43): computed from instance_info's display_name for
 * Node 1.0 data (items and RPC), kept in step with instance_info by the new code, written by a
 * service pinned to 2026.3 as Node 1.0 without it, and read back by both.
 */
import { selectRelease } from '../../../functions/common/releases';
import { TABLE_CODECS } from '../../../functions/db/codecs';
import { decodeItem, encodeItem } from '../../../functions/db/items';
import { migrateItem } from '../../../functions/db/migrations';
import { NODE_CODEC } from '../../../functions/db/nodes';
import { Node, instanceNameOf } from '../../../functions/objects/node';
import { makeNode } from '../helpers/builders';

const book = { rev: 3, sortId: 'id', guards: [] };
const pinned = selectRelease('2026.3');
const unpinned = selectRelease('');

describe('Node 1.1', () => {
  describe('instanceNameOf', () => {
    it('takes a non-empty display_name, cut to 255 characters; null otherwise', () => {
      expect(instanceNameOf({ display_name: 'vm-1' })).toBe('vm-1');
      expect(instanceNameOf({ display_name: 'é'.repeat(300) })).toBe('é'.repeat(255));
      for (const info of [{}, { display_name: '' }, { display_name: 7 }, null, undefined]) expect(instanceNameOf(info)).toBeNull();
    });
  });

  describe('reading Node 1.0 data', () => {
    it('computes instance_name from display_name and marks it changed, so the next save stores it', () => {
      const item = encodeItem(NODE_CODEC, makeNode({ instance_info: { display_name: 'vm-1' } }), '1.0', book);
      expect(item).toMatchObject({ version: '1.0' });
      expect(item).not.toHaveProperty('instance_name');
      const node = decodeItem(NODE_CODEC, item);
      expect(node.instance_name).toBe('vm-1');
      expect(node.whatChanged().has('instance_name')).toBe(true);
    });

    it('leaves it null without a display name, and takes an RPC primitive of 1.0 the same way', () => {
      expect(decodeItem(NODE_CODEC, encodeItem(NODE_CODEC, makeNode(), '1.0', book)).instance_name).toBeNull();
      const primitive = makeNode({ instance_info: { display_name: 'vm-2' } }).toPrimitive('1.0');
      expect(primitive.data).not.toHaveProperty('instance_name');
      expect(Node.fromPrimitive(primitive).instance_name).toBe('vm-2');
    });
  });

  describe('writing', () => {
    const node = () => makeNode({ instance_info: { display_name: 'vm-3' } });

    it('pinned to 2026.3: Node 1.0 items without instance_name, which both releases read', () => {
      const item = encodeItem(NODE_CODEC, node(), pinned.objectVersion('Node'), book);
      expect(item.version).toBe('1.0');
      expect(item).not.toHaveProperty('instance_name');
      expect(decodeItem(NODE_CODEC, item).instance_name).toBe('vm-3');
    });

    it('unpinned: Node 1.2 items with instance_name, kept as they are when read', () => {
      const stored = node();
      stored.instance_name = 'chosen';
      const item = encodeItem(NODE_CODEC, stored, unpinned.objectVersion('Node'), book);
      expect(item).toMatchObject({ version: '1.2', instance_name: 'chosen' });
      const read = decodeItem(NODE_CODEC, item);
      expect(read.instance_name).toBe('chosen');
      expect(read.whatChanged().size).toBe(0);
    });
  });

  describe('kept in step with instance_info (Ironic API 1.104)', () => {
    it('takes display_name when instance_info changes and the node has no name', () => {
      const node = makeNode();
      node.instance_info = { display_name: 'vm-4' };
      expect(node.instance_name).toBe('vm-4');
      const { instance_name: _name, ...data } = makeNode().toData();
      expect(new Node({ ...data, instance_info: { display_name: 'vm-5' } }).instance_name).toBe('vm-5');
    });

    it('keeps a name already set, and is cleared with the instance', () => {
      const node = makeNode({ instance_info: { display_name: 'vm-6' } });
      node.instance_info = { display_name: 'renamed' };
      expect(node.instance_name).toBe('vm-6');
      node.instance_name = null;
      node.instance_info = {};
      expect(node.instance_name).toBeNull();
    });
  });

  describe('the online data migration of an item', () => {
    it('brings a Node 1.0 item to the latest (1.2) with its instance_name, revision and index keys kept', () => {
      const item = encodeItem(NODE_CODEC, makeNode({ instance_info: { display_name: 'vm-7' } }), '1.0', book);
      const migrated = migrateItem(item, TABLE_CODECS.nodes);
      expect(migrated).toEqual({ ...item, version: '1.2', instance_name: 'vm-7', disable_power_off: false });
    });
  });
});
