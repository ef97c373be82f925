/**
 * Inspection rules' pure parts (Ironic's inspection_rules operators, base and validation):
 * Python-format interpolation of inspection data, every condition operator, loops with `multiple`,
 * inversion, masking of secrets, and the validation of a rule's operators and arguments.
 */
import { checkCondition, checkConditions } from '../../../functions/common/inspection-rules/conditions';
import { InspectionRuleExecutionFailure, RuleConditionCheckFailure } from '../../../functions/common/inspection-rules/errors';
import { interpolate, maskSecrets, pythonFormat } from '../../../functions/common/inspection-rules/interpolate';
import { PythonError } from '../../../functions/common/inspection-rules/operators';
import { normalizeArgs, OPERATORS, parseInvertedOperator } from '../../../functions/common/inspection-rules/signatures';
import { validateRule } from '../../../functions/common/inspection-rules/validation';
import { makeNode } from '../helpers/builders';

const node = makeNode({ name: 'node-1', properties: { cpu_arch: 'x86_64' }, driver_info: { redfish_address: 'https://bmc' } });
const inventory = {
  cpu: { count: 8, architecture: 'x86_64' },
  memory: { physical_mb: 16384 },
  interfaces: [
    { name: 'eth0', mac_address: '52:54:00:12:00:01', ipv4_address: '10.0.0.5' },
    { name: 'eth1', mac_address: '52:54:00:12:00:02', ipv4_address: '192.168.1.9' },
  ],
  bmc_address: '10.1.0.20',
  system_vendor: { manufacturer: 'Dell Inc.', product_name: 'PowerEdge R640' },
  disks: [],
  bmc_password: 'secret',
};
const data = { node, inventory, plugin_data: { extra: { a: 1 } } };
const check = (op: string, args: unknown, extra: Record<string, unknown> = {}) => checkCondition({ op, args, ...extra }, data);

describe('pythonFormat', () => {
  it('reads dict keys, list indexes and node attributes, printing non-strings as Python does', () => {
    expect(pythonFormat('{inventory[cpu][count]}', data)).toBe('8');
    expect(pythonFormat('{inventory[interfaces][1][mac_address]}', data)).toBe('52:54:00:12:00:02');
    expect(pythonFormat('{node.name} on {node.properties[cpu_arch]}', data)).toBe('node-1 on x86_64');
    expect(pythonFormat('{inventory[cpu]}', data)).toBe("{'count': 8, 'architecture': 'x86_64'}");
    expect(pythonFormat('{inventory[disks]}|{{literal}}', data)).toBe('[]|{literal}');
    expect(pythonFormat('{inventory[cpu][architecture]!r}', data)).toBe("'x86_64'");
  });

  it('raises Python lookup errors for missing keys, bad indexes, unknown attributes and bad syntax', () => {
    expect(() => pythonFormat('{inventory[gpu]}', data)).toThrow("'gpu'");
    expect(() => pythonFormat('{inventory[interfaces][5]}', data)).toThrow('list index out of range');
    expect(() => pythonFormat('{inventory[interfaces][name]}', data)).toThrow('list indices must be integers');
    expect(() => pythonFormat('{node.nothing}', data)).toThrow("'Node' object has no attribute 'nothing'");
    expect(() => pythonFormat('{inventory', data)).toThrow("expected '}'");
    expect(() => pythonFormat('a } b', data)).toThrow("Single '}'");
    expect(() => pythonFormat('{item}', data)).toThrow("'item'");
  });
});

describe('interpolate', () => {
  it('formats strings inside dicts (keys too) and lists, and leaves other values alone', () => {
    expect(interpolate({ '{inventory[cpu][architecture]}': ['{inventory[cpu][count]}', 4, null] }, data)).toEqual({
      x86_64: ['8', 4, null],
    });
  });

  it('leaves an argument that cannot be formatted as written, except a missing key for is-empty (None)', () => {
    expect(interpolate('{inventory[gpu]}', data)).toBe('{inventory[gpu]}');
    expect(interpolate('{inventory[gpu]}', data, 'is-empty')).toBeNull();
    expect(interpolate('{inventory[interfaces][9]}', data, 'is-empty')).toBe('{inventory[interfaces][9]}');
  });

  it('masks sensitive keys at any depth', () => {
    expect(maskSecrets({ bmc_password: 'x', a: [{ password: 'y', auth_token: 'z', keep: 1 }] })).toEqual({
      bmc_password: '***',
      a: [{ password: '***', auth_token: '***', keep: 1 }],
    });
  });
});

describe('condition operators', () => {
  it('eq, lt and gt compare every neighbouring pair as Python does', () => {
    expect(check('eq', { values: ['{inventory[cpu][architecture]}', 'x86_64'] })).toBe(true);
    expect(check('eq', { values: ['{inventory[cpu][count]}', 8] })).toBe(false); // '8' != 8
    expect(check('eq', { values: [1, 1.0, true] })).toBe(true);
    expect(check('eq', { values: [{ a: [1] }, { a: [1] }] })).toBe(true);
    expect(check('eq', { values: [1] })).toBe(true);
    expect(check('lt', { values: [1, 2, 3] })).toBe(true);
    expect(check('lt', { values: [1, 3, 2] })).toBe(false);
    expect(check('gt', { values: ['b', 'a'] })).toBe(true);
    expect(check('gt', { values: ['{inventory[memory][physical_mb]}', '2048'], force_strings: true })).toBe(false); // '16384' < '2048'
    expect(() => check('lt', { values: ['{inventory[cpu][count]}', 4] })).toThrow(
      new PythonError("'<' not supported between instances of 'str' and 'int'"),
    );
    expect(() => check('eq', { values: 'abc' })).toThrow(RuleConditionCheckFailure);
    expect(() => check('eq', { values: 'abc' })).toThrow(
      "Inspection rule condition check failed. Reason: Failed to check condition: 'eq' on values: abc: Expected list for 'values', got: str",
    );
  });

  it('is-empty, is-none, is-true and is-false', () => {
    expect(check('is-empty', { value: '{inventory[disks]}' })).toBe(true);
    expect(check('is-empty', { value: '{inventory[gpu]}' })).toBe(true);
    expect(check('is-empty', { value: '{inventory[cpu]}' })).toBe(false);
    expect(check('is-empty', { value: {} })).toBe(true);
    expect(check('is-none', { value: null })).toBe(true);
    expect(check('is-none', { value: '' })).toBe(false);
    expect([true, 1, 'Yes', 'TRUE'].map((value) => check('is-true', { value }))).toEqual([true, true, true, true]);
    expect([false, 0, 'no', 'x', null].map((value) => check('is-true', { value }))).toEqual([false, false, false, false, false]);
    expect([false, 0, 'No', 'false', null].map((value) => check('is-false', { value }))).toEqual([true, true, true, true, true]);
    expect([true, 2, 'maybe', []].map((value) => check('is-false', { value }))).toEqual([false, false, false, false]);
  });

  it('in-net checks an address against a network, IPv4 and IPv6', () => {
    expect(check('in-net', { address: '{inventory[bmc_address]}', subnet: '10.1.0.0/16' })).toBe(true);
    expect(check('in-net', { address: '{inventory[bmc_address]}', subnet: '10.2.0.0/16' })).toBe(false);
    expect(check('in-net', { address: '2001:db8::5', subnet: '2001:db8::/64' })).toBe(true);
    expect(check('in-net', { address: '10.1.0.20', subnet: '2001:db8::/64' })).toBe(false);
    expect(check('in-net', { address: '10.1.0.20', subnet: '10.1.0.20' })).toBe(true);
    expect(() => check('in-net', { address: '10.1.0.20', subnet: 'nonsense' })).toThrow(InspectionRuleExecutionFailure);
    expect(() => check('in-net', { address: 'nope', subnet: '10.0.0.0/8' })).toThrow(PythonError);
  });

  it('matches anchors the expression at both ends, contains searches; a bad expression fails', () => {
    expect(check('matches', { value: '{inventory[system_vendor][manufacturer]}', regex: 'Dell.*' })).toBe(true);
    expect(check('matches', { value: 'Dell Inc.', regex: 'Dell' })).toBe(false);
    expect(check('matches', { value: 'abc', regex: 'x|abc' })).toBe(true);
    expect(check('contains', { value: '{inventory[system_vendor][product_name]}', regex: 'Edge R6' })).toBe(true);
    expect(check('contains', { value: 'PowerEdge', regex: '^Edge' })).toBe(false);
    expect(check('matches', { value: 'ab12', regex: '(?P<word>[a-z]+)\\d+' })).toBe(true);
    expect(() => check('contains', { value: 'x', regex: '(' })).toThrow(
      'Inspection rule execution failed. Reason: invalid regular expression',
    );
  });

  it('one-of is Python membership: in a list, a substring of a string', () => {
    expect(check('one-of', { value: '{inventory[cpu][architecture]}', values: ['aarch64', 'x86_64'] })).toBe(true);
    expect(check('one-of', { value: 'ppc64le', values: ['aarch64', 'x86_64'] })).toBe(false);
    expect(check('one-of', { value: '86', values: 'x86_64' })).toBe(true);
    expect(check('one-of', { value: 'x' })).toBe(false);
  });

  it('a leading ! inverts; the list form of arguments still works', () => {
    expect(check('!eq', { values: ['a', 'b'] })).toBe(true);
    expect(check('!is-empty', ['{inventory[cpu]}'])).toBe(true);
    expect(parseInvertedOperator(' ! eq ')).toEqual({ op: 'eq', inverted: true });
    expect(() => parseInvertedOperator('!!eq')).toThrow('Multiple exclamation marks are not allowed');
  });
});

describe('loops', () => {
  const macs = ['52:54:00:12:00:01', '52:54:00:12:00:02', 'aa:bb:cc:dd:ee:ff'];
  const byMac = (multiple?: string) =>
    check('contains', { value: '{item}', regex: '^52:54' }, { loop: macs, ...(multiple ? { multiple } : {}) });

  it('checks each item; multiple says any (default), all, first or last', () => {
    expect(byMac()).toBe(true);
    expect(byMac('any')).toBe(true);
    expect(byMac('all')).toBe(false);
    expect(byMac('first')).toBe(true);
    expect(byMac('last')).toBe(false);
    expect(check('eq', { values: ['{item}', 'x'] }, { loop: ['a', 'b'], multiple: 'first' })).toBe(false);
  });

  it('compares as strings in a loop, and takes a dict as one item', () => {
    expect(check('eq', { values: ['{item[n]}', 8] }, { loop: [{ n: 8 }] })).toBe(true);
    expect(check('eq', { values: ['{item[n]}', '{inventory[cpu][count]}'] }, { loop: { n: 8 }, multiple: 'last' })).toBe(true);
  });

  it('a rule holds only when all its conditions do, and always without any', () => {
    expect(checkConditions([], data)).toBe(true);
    expect(checkConditions(null, data)).toBe(true);
    expect(
      checkConditions(
        [
          { op: 'eq', args: { values: [1, 1] } },
          { op: 'eq', args: { values: [1, 2] } },
        ],
        data,
      ),
    ).toBe(false);
  });
});

describe('validateRule', () => {
  const action = { op: 'add-trait', args: { name: 'CUSTOM_X' } };

  it('accepts every operator and action with its arguments, in dict and list form', () => {
    expect(() =>
      validateRule({
        conditions: [
          { op: 'eq', args: { values: [1, 1], force_strings: true } },
          { op: '!one-of', args: { value: 'x', values: ['y'] } },
          { op: 'in-net', args: ['10.0.0.1', '10.0.0.0/8'] },
        ],
        actions: [
          action,
          { op: 'set-plugin-data', args: { path: 'a.b', value: 1 } },
          { op: 'extend-plugin-data', args: ['a.c', 2] },
          { op: 'api-call', args: { url: 'http://127.0.0.1/x', timeout: 2 } },
        ],
      }),
    ).not.toThrow();
    expect(Object.keys(OPERATORS)).toHaveLength(11);
  });

  it('refuses missing and unexpected arguments with Ironic reasons', () => {
    expect(() => validateRule({ actions: [{ op: 'set-attribute', args: { path: '/extra/a' } }] })).toThrow(
      'missing required argument(s): value',
    );
    expect(() => validateRule({ actions: [action], conditions: [{ op: 'eq', args: { values: [], nope: 1, other: 2 } }] })).toThrow(
      'unexpected argument(s): nope, other',
    );
    expect(() => validateRule({ actions: [{ op: 'set-attribute', args: {} }] })).toThrow('missing required argument(s): path, value');
    expect(() => validateRule({ actions: [{ op: 'set-capability', args: ['only-name'] }] })).toThrow(
      'Not enough arguments provided. Missing: value',
    );
  });

  it('refuses a phase other than main and a priority above 9999, together', () => {
    expect(() => validateRule({ phase: 'early', actions: [action] })).toThrow('Invalid phase: early. Valid phases are: main');
    expect(() => validateRule({ priority: 10000, actions: [action] })).toThrow(
      'Priority must be between 0 and 9999 for user-defined rules.',
    );
    expect(() => validateRule({ phase: null, priority: 10000, actions: [action] })).toThrow(
      'Multiple validation errors occurred: Invalid phase: None. Valid phases are: main; Priority must be between 0 and 9999 for user-defined rules.',
    );
  });

  it('names list arguments in order, giving plugin-data actions their data last', () => {
    expect(normalizeArgs(OPERATORS['one-of'] as never, ['x', ['x', 'y']])).toEqual({ value: 'x', values: ['x', 'y'] });
  });
});
