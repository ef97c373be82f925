/**
 * The condition operators (Ironic's `inspection_rules/operators.py`), on arguments already
 * interpolated. Comparisons follow Python's: `1 == 1.0`, `True == 1`, `'4' != 4`, and ordering a
 * string against a number is a TypeError, which fails the inspection as it does in Ironic.
 */
import { BlockList, isIP } from 'node:net';
import { pyRepr, pyStr, pyTruthy } from '../pyrepr';
import { InspectionRuleExecutionFailure, RuleConditionCheckFailure } from './errors';

/** An error Python would raise on these values (TypeError, ValueError): not an Ironic one. */
export class PythonError extends Error {}

function pyType(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'string') return 'str';
  return Array.isArray(value) ? 'list' : 'dict';
}

const isNumeric = (v: unknown): v is number | boolean => typeof v === 'number' || typeof v === 'boolean';

/** Python's `a == b` on JSON values. */
export function pyEquals(a: unknown, b: unknown): boolean {
  if (isNumeric(a) && isNumeric(b)) return Number(a) === Number(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => pyEquals(v, b[i]));
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return (
      ka.length === kb.length && ka.every((k) => k in b && pyEquals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
  }
  return a === b || ((a === null || a === undefined) && (b === null || b === undefined));
}

/** Python's ordering of two values: negative, zero, positive, or a TypeError for `symbol`. */
function pyCompare(a: unknown, b: unknown, symbol: string): number {
  if (isNumeric(a) && isNumeric(b)) return Number(a) - Number(b);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (!pyEquals(a[i], b[i])) return pyCompare(a[i], b[i], symbol);
    }
    return a.length - b.length;
  }
  throw new PythonError(`'${symbol}' not supported between instances of '${pyType(a)}' and '${pyType(b)}'`);
}

/** eq, lt, gt: every neighbouring pair of `values` in that relation (Ironic's SimpleOperator). */
function simple(name: string, relation: (a: unknown, b: unknown) => boolean) {
  return (args: Record<string, unknown>): boolean => {
    let values = args.values;
    if (!Array.isArray(values)) {
      throw new RuleConditionCheckFailure(
        `Failed to check condition: '${name}' on values: ${pyStr(values)}: Expected list for 'values', got: ${pyType(values)}`,
      );
    }
    if (values.length < 2) return true;
    if (pyTruthy(args.force_strings)) values = values.map(pyStr);
    const list = values as unknown[];
    return list.slice(0, -1).every((v, i) => relation(v, list[i + 1]));
  };
}

/** A Python regular expression as JavaScript reads it (named groups are spelt differently). */
function compile(regex: unknown, anchorStart: boolean): RegExp {
  const source = pyStr(regex)
    .replace(/\(\?P</g, '(?<')
    .replace(/\(\?P=(\w+)\)/g, '\\k<$1>');
  try {
    return new RegExp(anchorStart ? `^(?:${source})` : source);
  } catch (err) {
    throw new InspectionRuleExecutionFailure(`invalid regular expression: ${(err as Error).message}`);
  }
}

function inNet(args: Record<string, unknown>): boolean {
  const subnet = pyStr(args.subnet);
  const [base, prefixText, ...rest] = subnet.split('/');
  const family = isIP(base ?? '');
  const prefix = prefixText === undefined ? (family === 6 ? 128 : 32) : Number(prefixText);
  if (family === 0 || rest.length > 0 || !/^\d*$/.test(prefixText ?? '') || prefix > (family === 6 ? 128 : 32)) {
    throw new InspectionRuleExecutionFailure(`invalid value: invalid IPNetwork ${subnet}`);
  }
  const address = pyStr(args.address);
  const addressFamily = isIP(address);
  if (addressFamily === 0) throw new PythonError(`failed to detect a valid IP address from ${pyRepr(args.address)}`);
  if (addressFamily !== family) return false;
  const list = new BlockList();
  list.addSubnet(base as string, prefix, family === 6 ? 'ipv6' : 'ipv4');
  return list.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

function isTrue(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return ['yes', 'true'].includes(value.toLowerCase());
  return false;
}

function isFalse(value: unknown): boolean {
  if (typeof value === 'boolean') return !value;
  if (typeof value === 'number') return value === 0;
  if (typeof value === 'string') return ['no', 'false'].includes(value.toLowerCase());
  return value === null || value === undefined;
}

/** Python's `value in values`: membership of a list, a substring of a string, a key of a dict. */
function oneOf(value: unknown, values: unknown): boolean {
  if (Array.isArray(values)) return values.some((v) => pyEquals(value, v));
  if (typeof values === 'string') {
    if (typeof value !== 'string') throw new PythonError(`'in <string>' requires string as left operand, not ${pyType(value)}`);
    return values.includes(value);
  }
  if (values !== null && typeof values === 'object') return typeof value === 'string' && value in values;
  throw new PythonError(`argument of type '${pyType(values)}' is not iterable`);
}

export const OPERATOR_CHECKS: Readonly<Record<string, (args: Record<string, unknown>) => boolean>> = {
  eq: simple('eq', (a, b) => pyEquals(a, b)),
  lt: simple('lt', (a, b) => pyCompare(a, b, '<') < 0),
  gt: simple('gt', (a, b) => pyCompare(a, b, '>') > 0),
  'is-empty': (args) => ['', 'None', '[]', '{}'].includes(pyStr(args.value)),
  'in-net': inNet,
  matches: (args) => {
    const regex = pyStr(args.regex);
    return compile(regex.endsWith('$') ? regex : `${regex}$`, true).test(pyStr(args.value));
  },
  contains: (args) => compile(args.regex, false).test(pyStr(args.value)),
  'one-of': (args) => oneOf(args.value, args.values ?? []),
  'is-none': (args) => args.value === null || args.value === undefined,
  'is-true': (args) => isTrue(args.value),
  'is-false': (args) => isFalse(args.value),
};
