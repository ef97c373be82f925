/**
 * Interpolation of inspection data into a rule's arguments, as Ironic does it with Python's
 * `str.format`: `"{inventory[cpu][count]}"`, `"{node.properties[cpu_arch]}"`, `"{item[path]}"`
 * inside a loop, `"{plugin_data[...]}"`. The result is always a string (str() of what the field
 * names: a dict prints as Python prints it). A field that cannot be resolved leaves the argument as
 * it was — except for `is-empty`, where a missing key reads as None — as Ironic's safe_format does.
 * A format spec (`{inventory[cpu][count]:03d}`) formats the value as Python's format() does.
 * Written here because no JavaScript library reproduces Python's format mini-language lookups.
 */
import { pyRepr, pyStr } from '../pyrepr';
import { FormatSpecError, formatValue } from './format-spec';

/** What a field names: the node (attribute access), the data dicts, the loop item. */
export interface FormatContext {
  readonly node: object;
  readonly inventory: unknown;
  readonly plugin_data: unknown;
  readonly item?: unknown;
}

/** The Python exception a lookup raises; only the kind matters (KeyError is treated apart). */
export class FormatError extends Error {
  constructor(
    readonly kind: 'KeyError' | 'IndexError' | 'AttributeError' | 'TypeError' | 'ValueError',
    message: string,
  ) {
    super(message);
  }
}

function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (Array.isArray(value)) return 'list';
  return 'dict';
}

function getAttr(target: unknown, name: string, isNode: boolean): unknown {
  if (isNode && target !== null && typeof target === 'object' && name in target) {
    const value = (target as Record<string, unknown>)[name];
    if (typeof value !== 'function') return value;
  }
  throw new FormatError('AttributeError', `'${isNode ? 'Node' : pyTypeName(target)}' object has no attribute '${name}'`);
}

function getItem(target: unknown, key: string): unknown {
  const numeric = /^\d+$/.test(key);
  if (Array.isArray(target) || typeof target === 'string') {
    if (!numeric) throw new FormatError('TypeError', `${pyTypeName(target)} indices must be integers or slices, not str`);
    const index = Number(key);
    if (index >= target.length) throw new FormatError('IndexError', `${pyTypeName(target)} index out of range`);
    return target[index];
  }
  if (target !== null && typeof target === 'object') {
    // JSON objects have string keys; Python looks a digit key up as an int, which no key equals.
    if (numeric || !Object.prototype.hasOwnProperty.call(target, key)) throw new FormatError('KeyError', numeric ? key : pyRepr(key));
    return (target as Record<string, unknown>)[key];
  }
  throw new FormatError('TypeError', `'${pyTypeName(target)}' object is not subscriptable`);
}

/** One replacement field (`name[key].attr!r`), resolved and converted to a string. */
function resolveField(field: string, context: FormatContext, nesting: number): string {
  let name = '';
  let i = 0;
  while (i < field.length && field[i] !== '.' && field[i] !== '[' && field[i] !== '!' && field[i] !== ':') name += field[i++];
  if (name === '') throw new FormatError('IndexError', 'Replacement index 0 out of range for positional args tuple');
  if (!Object.prototype.hasOwnProperty.call(context, name) || (context as unknown as Record<string, unknown>)[name] === undefined) {
    throw new FormatError('KeyError', pyRepr(name));
  }
  let value: unknown = (context as unknown as Record<string, unknown>)[name];
  let isNode = name === 'node';
  while (i < field.length && (field[i] === '.' || field[i] === '[')) {
    if (field[i] === '.') {
      let attr = '';
      i++;
      while (i < field.length && !'.[!:'.includes(field[i] as string)) attr += field[i++];
      if (attr === '') throw new FormatError('ValueError', 'Empty attribute in format string');
      value = getAttr(value, attr, isNode);
    } else {
      const end = field.indexOf(']', i);
      if (end < 0) throw new FormatError('ValueError', "Missing ']' in format string");
      const key = field.slice(i + 1, end);
      if (key === '') throw new FormatError('ValueError', 'Empty attribute in format string');
      value = getItem(value, key);
      i = end + 1;
    }
    isNode = false;
  }
  // `!s` and `!r` (`!a` as `!r`: the values are JSON) convert before the spec; without one, the
  // value itself is formatted (a number's spec differs from a string's).
  let converted: unknown = value;
  if (field[i] === '!') {
    const conversion = field[i + 1] ?? '';
    i += 2;
    if (!['s', 'r', 'a'].includes(conversion)) throw new FormatError('ValueError', `Unknown conversion specifier ${conversion}`);
    converted = conversion === 's' ? pyStr(value) : pyRepr(value);
  }
  if (i < field.length && field[i] !== ':') throw new FormatError('ValueError', "expected ':' after conversion specifier");
  // The format spec (`:>8`, `:03d`) may itself hold replacement fields, one level deep as in Python.
  let spec = field.slice(i + 1);
  if (spec.includes('{')) {
    if (nesting > 0) throw new FormatError('ValueError', 'Max string recursion exceeded');
    spec = pythonFormat(spec, context, nesting + 1);
  }
  try {
    return formatValue(converted, spec);
  } catch (err) {
    if (err instanceof FormatSpecError) throw new FormatError(err.kind, err.message);
    throw err;
  }
}

/** Python's `template.format(**context)`. */
export function pythonFormat(template: string, context: FormatContext, nesting = 0): string {
  let out = '';
  let i = 0;
  while (i < template.length) {
    const ch = template[i] as string;
    if (ch === '{') {
      if (template[i + 1] === '{') {
        out += '{';
        i += 2;
        continue;
      }
      let depth = 0;
      let j = i + 1;
      for (; j < template.length; j++) {
        if (template[j] === '[') {
          const close = template.indexOf(']', j);
          if (close < 0) break;
          j = close;
        } else if (template[j] === '{') depth++;
        else if (template[j] === '}') {
          if (depth === 0) break;
          depth--;
        }
      }
      if (j >= template.length) throw new FormatError('ValueError', "expected '}' before end of string");
      out += resolveField(template.slice(i + 1, j), context, nesting);
      i = j + 1;
    } else if (ch === '}') {
      if (template[i + 1] !== '}') throw new FormatError('ValueError', "Single '}' encountered in format string");
      out += '}';
      i += 2;
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}

/** Ironic's safe_format: on a lookup error the value stays as written (None for is-empty's missing key). */
export function safeFormat(value: unknown, context: FormatContext, op?: string): unknown {
  if (typeof value !== 'string') return value;
  try {
    return pythonFormat(value, context);
  } catch (err) {
    if (!(err instanceof FormatError)) throw err;
    if (err.kind === 'KeyError' && op === 'is-empty') return null;
    return value;
  }
}

/** Ironic's interpolate_variables: strings formatted, dicts (keys too) and lists walked. */
export function interpolate(value: unknown, context: FormatContext, op?: string): unknown {
  let current = value;
  if (context.item !== undefined) current = safeFormat(current, context, op);
  if (typeof current === 'string') return safeFormat(current, context, op);
  if (Array.isArray(current)) return current.map((v) => (typeof v === 'string' ? safeFormat(v, context, op) : interpolate(v, context, op)));
  if (current !== null && typeof current === 'object') {
    return Object.fromEntries(Object.entries(current).map(([k, v]) => [String(safeFormat(k, context, op)), interpolate(v, context, op)]));
  }
  return current;
}

/** Keys whose values rules never see (Ironic's SENSITIVE_FIELDS with mask_secrets = always). */
export const SENSITIVE_FIELDS = ['password', 'auth_token', 'bmc_password'];

/** A copy of inspection data with every sensitive key's value read as `***`, at any depth. */
export function maskSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskSecrets);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SENSITIVE_FIELDS.includes(k) ? '***' : maskSecrets(v)]));
  }
  return value;
}
