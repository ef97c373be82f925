/**
 * The node fields and verbs of API 1.95–1.110: disable_power_off (1.95), instance_name (1.104),
 * disable_ramdisk for servicing (1.108), health (1.109), abort from `wait call-back` (1.110) — the
 * views, the request schemas, the version checks, and Node 1.2 against the releases that write 1.1.
 */
import { type ClientSideError, NotAcceptable } from '../../../functions/common/errors';
import * as st from '../../../functions/common/states';
import { checkDisableRamdisk } from '../../../functions/api/controllers/node-states';
import { checkCreateBody } from '../../../functions/api/node-create';
import { NODE_PATCH_SCHEMA, NODE_SCHEMA } from '../../../functions/api/schemas/node';
import { validateSchema } from '../../../functions/api/validation';
import { checkFieldVersions, nodeView } from '../../../functions/api/views/node';
import { matches } from '../../../functions/db/node-filters';
import { Node } from '../../../functions/objects/node';
import { makeNode } from '../helpers/builders';

const v = (minor: number) => ({ major: 1, minor });
const BASE = 'http://api';

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('did not throw');
}

describe('node view', () => {
  const node = makeNode({ disable_power_off: true, instance_name: 'vm-1', health: 'Warning' });

  it.each([
    ['disable_power_off', 95, true],
    ['instance_name', 104, 'vm-1'],
    ['health', 109, 'Warning'],
  ])('shows %s from 1.%i, not below', (field, minor, value) => {
    expect(nodeView(node, { baseUrl: BASE, version: v(minor - 1) })).not.toHaveProperty(field);
    expect(nodeView(node, { baseUrl: BASE, version: v(minor) })).toHaveProperty(field, value);
    expect(() => checkFieldVersions([field], v(minor - 1))).toThrow(NotAcceptable);
    expect(() => checkFieldVersions([field], v(minor))).not.toThrow();
  });

  it('shows a new node as Ironic does: power off allowed, no instance name, health unknown', () => {
    expect(nodeView(makeNode(), { baseUrl: BASE, version: v(115) })).toMatchObject({
      disable_power_off: false,
      instance_name: null,
      health: null,
    });
  });
});

describe('request schemas', () => {
  it('take disable_power_off as a boolean or a boolean string, and refuse it below 1.95 with 406', () => {
    expect(checkCreateBody({ driver: 'fake-hardware', disable_power_off: 'true' }, v(95)).body.disable_power_off).toBe(true);
    expect(thrown(() => checkCreateBody({ driver: 'fake-hardware', disable_power_off: true }, v(94)))).toBeInstanceOf(NotAcceptable);
    expect(thrown(() => checkCreateBody({ driver: 'fake-hardware', disable_power_off: 'maybe' }, v(95))).message).toContain(
      'disable_power_off',
    );
  });

  it('take instance_name of 1 to 255 characters or null, from 1.104', () => {
    for (const schema of [NODE_SCHEMA, NODE_PATCH_SCHEMA]) {
      expect(() => validateSchema('node', schema, { driver: 'd', instance_name: 'x'.repeat(255) })).not.toThrow();
      expect(() => validateSchema('node', schema, { driver: 'd', instance_name: null })).not.toThrow();
      expect(() => validateSchema('node', schema, { driver: 'd', instance_name: '' })).toThrow("'' is too short");
      expect(() => validateSchema('node', schema, { driver: 'd', instance_name: 'x'.repeat(256) })).toThrow('is too long');
    }
    expect(thrown(() => checkCreateBody({ driver: 'fake-hardware', instance_name: 'vm' }, v(103)))).toBeInstanceOf(NotAcceptable);
    expect(checkCreateBody({ driver: 'fake-hardware', instance_name: 'vm' }, v(104)).body.instance_name).toBe('vm');
  });

  it('do not take health, which only the conductor sets', () => {
    expect(() => validateSchema('node', NODE_SCHEMA, { driver: 'd', health: 'OK' })).toThrow(/health/);
    expect(() => validateSchema('node', NODE_PATCH_SCHEMA, { driver: 'd', health: 'OK' })).toThrow(/health/);
  });
});

describe('disable_ramdisk (Ironic check_allow_disable_ramdisk)', () => {
  it('is taken by clean from 1.70 and by service from 1.108; below: 406', () => {
    expect(() => checkDisableRamdisk(v(70), 'clean', true)).not.toThrow();
    expect(thrown(() => checkDisableRamdisk(v(69), 'clean', true)).message).toBe('disable_ramdisk is not acceptable in this API version');
    expect(() => checkDisableRamdisk(v(108), 'service', true)).not.toThrow();
    expect(thrown(() => checkDisableRamdisk(v(107), 'service', false))).toBeInstanceOf(NotAcceptable);
  });

  it('is refused with any other verb (400), and ignored when absent or null', () => {
    const err = thrown(() => checkDisableRamdisk(v(115), 'provide', false)) as ClientSideError;
    expect([err.message, err.code]).toEqual(['disable_ramdisk is supported only with manual cleaning or servicing', 400]);
    expect(() => checkDisableRamdisk(v(1), 'provide', undefined)).not.toThrow();
    expect(() => checkDisableRamdisk(v(1), 'provide', null)).not.toThrow();
  });
});

describe('abort from wait call-back', () => {
  it('fails the deploy: wait call-back → deploy failed, with no cleaning after it', () => {
    expect(st.transition(st.DEPLOYWAIT, 'abort')?.provisionState).toBe(st.DEPLOYFAIL);
    expect(st.isAllowed(st.DEPLOYFAIL, 'clean')).toBe(false);
  });
});

describe('the instance_name filter', () => {
  it('matches the exact name only', () => {
    const node = makeNode({ instance_name: 'vm-1' });
    expect(matches(node, { instanceName: 'vm-1' })).toBe(true);
    expect(matches(node, { instanceName: 'vm' })).toBe(false);
    expect(matches(makeNode(), { instanceName: 'vm-1' })).toBe(false);
  });
});

describe('Node 1.2', () => {
  it('writes disable_power_off and health at 1.2; at 1.1 (a pinned service) drops them as Ironic resets them', () => {
    const node = makeNode({ disable_power_off: true, health: 'Critical' });
    expect(node.toItem('1.2')).toMatchObject({ version: '1.2', disable_power_off: true, health: 'Critical' });
    const older = node.toItem('1.1');
    expect(older).not.toHaveProperty('disable_power_off');
    expect(older).not.toHaveProperty('health');
    expect(node.toPrimitive('1.1').data).not.toHaveProperty('health');
  });

  it('reads 1.1 and 1.0 items with power off allowed and health unknown', () => {
    for (const version of ['1.0', '1.1']) {
      const read = Node.fromItem({ ...makeNode().toItem(version) });
      expect([read.disable_power_off, read.health]).toEqual([false, null]);
    }
  });
});
