/**
 * Root device hints (`properties.root_device`), matched against the disks of an inventory as
 * Ironic's `parse_root_device_hints` / `find_devices_by_hints` do, with oslo.utils' specs_matcher
 * operators: `s==`, `s!=`, `s<`, `s<=`, `s>`, `s>=` on strings, `==`, `!=`, `>=`, `<=`, `=`
 * (which means >=) on numbers, `<in>`, `<all-in>`, `<or>` and `<range-in>`. A hint without an
 * operator means equality. Strings compare lower-cased and URL-quoted; `size` is in GiB.
 *
 * Written here because no maintained npm package implements this small grammar, which Ironic's
 * users write their hints in.
 */
import { ACCEPTABLE_BOOLEANS, boolFromString } from '#common/strutils';

type HintType = 'int' | 'str' | 'bool';

/** Ironic's VALID_ROOT_DEVICE_HINTS, in its order (messages list them so). */
const HINT_TYPES: Readonly<Record<string, HintType>> = {
  size: 'int',
  model: 'str',
  wwn: 'str',
  serial: 'str',
  vendor: 'str',
  wwn_with_extension: 'str',
  wwn_vendor_extension: 'str',
  name: 'str',
  rotational: 'bool',
  hctl: 'str',
  by_path: 'str',
};

/** specs_matcher's operators, longest first where one is the start of another. */
const OPERATORS = ['<all-in>', '<range-in>', '<in>', '<or>', 's==', 's!=', 's<=', 's>=', 's<', 's>', '==', '!=', '>=', '<=', '='];

const GIB = 1024 ** 3;

/** Python's `urllib.parse.quote` (safe "/"): encodeURIComponent, with "/" kept and !'()* encoded. */
function pyQuote(text: string): string {
  return encodeURIComponent(text)
    .replace(/%2F/g, '/')
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** oslo's strict bool_from_string. */
function strictBool(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  const parsed = boolFromString(String(value));
  if (parsed === undefined) throw new Error(`Unrecognized value '${String(value)}', acceptable values are: ${ACCEPTABLE_BOOLEANS}`);
  return parsed;
}

/** The operator an expression starts with, and its values (Ironic's `_extract_hint_operator_and_values`). */
function operatorAndValues(expression: unknown, name: string): { op: string; values: string[] } {
  const text = String(expression).trim().toLowerCase();
  if (text === '') throw new Error(`Root device hint "${name}" expression is empty`);
  const first = text.split(/\s+/)[0] ?? '';
  const op = OPERATORS.includes(first) && text.split(/\s+/).length > 1 ? first : '';
  if (op === '') return { op, values: [text] };
  return {
    op,
    values: text
      .split(op)
      .filter((v) => v !== '')
      .map((v) => v.trim()),
  };
}

/** A string expression with its values quoted (Ironic's `_normalize_hint_expression`). */
function normalize(expression: unknown, name: string): string {
  const { op, values } = operatorAndValues(expression, name);
  return (op + values.map((v) => ` ${pyQuote(v)} `).join(op)).trim();
}

export type ParsedHints = Readonly<Record<string, string | boolean>>;

/**
 * Ironic's `parse_root_device_hints`: check the hints and give each an operator. Throws an Error
 * with Ironic's message for an unknown hint or a value of the wrong kind.
 */
export function parseRootDeviceHints(hints: Readonly<Record<string, unknown>>): ParsedHints {
  const invalid = Object.keys(hints).filter((name) => !(name in HINT_TYPES));
  if (invalid.length > 0) {
    throw new Error(`The hints "${invalid.join(', ')}" are invalid. Valid hints are: "${Object.keys(HINT_TYPES).join(', ')}"`);
  }
  const parsed: Record<string, string | boolean> = {};
  for (const [name, expression] of Object.entries(hints)) {
    const type = HINT_TYPES[name] as HintType;
    const { op, values } = operatorAndValues(expression, name);
    if (name === 'size' && op === '<range-in>') {
      parsed[name] = String(expression);
      continue;
    }
    if (type === 'bool') {
      try {
        parsed[name] = strictBool(expression);
      } catch {
        throw new Error(`Root device hint "${name}" is not a Boolean value. Current value: ${String(expression)}`);
      }
      continue;
    }
    if (type === 'str') {
      if (typeof expression !== 'string') {
        throw new Error(`Root device hint "${name}" is not a string value. Hint expression: ${String(expression)}`);
      }
      const normalized = normalize(expression, name);
      parsed[name] = op === '' ? `s== ${normalized}` : normalized;
      continue;
    }
    for (const value of values) {
      const integer = Number(value);
      if (!/^[+-]?\d+$/.test(value) || !Number.isSafeInteger(integer)) {
        throw new Error(`Root device hint "${name}" is not an integer value. Current value: ${String(expression)}`);
      }
      if (integer <= 0) throw new Error(`Root device hint "${name}" should be a positive integer. Current value: ${String(expression)}`);
    }
    const text = String(expression);
    parsed[name] = op === '' ? `== ${text}` : text;
  }
  return parsed;
}

/** `<range-in> [a b)`: brackets say whether each bound counts. */
function inRange(value: string, lower: string | undefined, upper: string | undefined): boolean {
  if (lower === undefined || upper === undefined) return false;
  const lowOpen = lower.startsWith('(');
  const highOpen = upper.endsWith(')');
  const low = Number(lower.slice(1));
  const high = Number(upper.slice(0, -1));
  const x = Number(value);
  if ([low, high, x].some(Number.isNaN)) return false;
  return (lowOpen ? x > low : x >= low) && (highOpen ? x < high : x <= high);
}

/** oslo.utils' specs_matcher.match. */
export function specMatches(value: string | number, spec: string): boolean {
  const tokens = spec.trim().split(/\s+/);
  const [op, ...args] = tokens;
  if (op === undefined || tokens.length === 1 || !OPERATORS.includes(op)) return spec === String(value);
  const text = String(value);
  const num = (v: unknown) => Number(v);
  const first = args[0] ?? '';
  switch (op) {
    case '=':
    case '>=':
      return num(value) >= num(first);
    case '==':
      return num(value) === num(first);
    case '!=':
      return num(value) !== num(first);
    case '<=':
      return num(value) <= num(first);
    case 's==':
      return text === first;
    case 's!=':
      return text !== first;
    case 's<':
      return text < first;
    case 's<=':
      return text <= first;
    case 's>':
      return text > first;
    case 's>=':
      return text >= first;
    case '<in>':
      return text.includes(first);
    case '<all-in>':
      return args.every((a) => text.includes(a));
    case '<or>':
      // Every other token is "<or>"; as in Python, a number never equals a string.
      return typeof value === 'string' && args.filter((_, i) => i % 2 === 0).some((a) => a === value);
    case '<range-in>':
      return inRange(text, args[0], args[1]);
    default:
      return false;
  }
}

/** Ironic's `find_devices_by_hints`: every disk satisfying all hints, in the order given. */
export function findDevicesByHints<D extends Readonly<Record<string, unknown>>>(
  disks: readonly D[],
  hints: Readonly<Record<string, unknown>>,
): D[] {
  const parsed = parseRootDeviceHints(hints);
  return disks.filter((disk) =>
    Object.entries(parsed).every(([name, hint]) => {
      const type = HINT_TYPES[name];
      const raw = disk[name];
      if (type === 'bool') {
        try {
          return strictBool(raw) === hint;
        } catch {
          return false;
        }
      }
      if (type === 'str') {
        if (raw === undefined || raw === null || String(raw).trim() === '') return false;
        return specMatches(normalize(raw, name), String(hint));
      }
      // size: the disk's bytes as GiB (a float, as Python divides).
      const gib = Number(raw) / GIB;
      return specMatches(String(hint).startsWith('<range-in>') ? String(gib) : gib, String(hint));
    }),
  );
}

/** Ironic's `match_root_device_hints`: the first disk satisfying the hints, or undefined. */
export function matchRootDeviceHints<D extends Readonly<Record<string, unknown>>>(
  disks: readonly D[],
  hints: Readonly<Record<string, unknown>>,
): D | undefined {
  return findDevicesByHints(disks, hints)[0];
}
