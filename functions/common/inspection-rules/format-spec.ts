/**
 * Python's format specification mini-language (`format(value, spec)`, the part after `:` in a
 * `str.format` field), for the values inspection data holds: str, int, float, bool, None, list and
 * dict. Ironic interpolates rule arguments with `str.format`, so `{inventory[memory][physical_mb]:>8}`
 * or `{inventory[cpu][count]:03d}` work there; here they give the same text. Anything Python refuses
 * (a type code the value's type lacks, a sign for a string, any spec for None) is a ValueError or
 * TypeError, which leaves the argument as written (Ironic's safe_format).
 *
 * Floats are formatted from their exact binary value with round-half-even, as CPython does
 * (JavaScript's toFixed and toPrecision round ties away from zero: `(2.5).toFixed(0)` is "3",
 * Python's `format(2.5, '.0f')` is "2").
 */
import { pyStr } from '../pyrepr';

/** A refusal of Python's format(): the rule argument then stays as written. */
export class FormatSpecError extends Error {
  constructor(
    readonly kind: 'ValueError' | 'TypeError',
    message: string,
  ) {
    super(message);
  }
}

interface Spec {
  readonly fill: string;
  readonly align: '<' | '>' | '=' | '^' | undefined;
  readonly sign: '-' | '+' | ' ' | undefined;
  readonly z: boolean;
  readonly alternate: boolean;
  readonly zero: boolean;
  readonly width: number;
  readonly grouping: ',' | '_' | undefined;
  readonly precision: number | undefined;
  readonly type: string;
}

const SPEC = /^(?:(.)?([<>=^]))?([-+ ])?(z)?(#)?(0)?(\d+)?([_,])?(?:\.(\d+))?([bcdeEfFgGnosxX%])?$/su;

function parseSpec(text: string): Spec {
  const m = SPEC.exec(text);
  if (m === null) throw new FormatSpecError('ValueError', 'Invalid format specifier');
  const [, fill, align, sign, z, alternate, zero, width, grouping, precision, type] = m;
  return {
    // The `0` flag: a fill of zeros unless one is given (a number's between sign and digits unless aligned).
    fill: fill ?? (zero !== undefined ? '0' : ' '),
    align: align as Spec['align'],
    zero: zero !== undefined,
    sign: sign as Spec['sign'],
    z: z !== undefined,
    alternate: alternate !== undefined,
    width: width === undefined ? 0 : Number(width),
    grouping: grouping as Spec['grouping'],
    precision: precision === undefined ? undefined : Number(precision),
    type: type ?? '',
  };
}

/** Python's format(value, spec) for a JSON value (a JSON number without a fraction is an int). */
export function formatValue(value: unknown, specText: string): string {
  if (specText === '') return pyStr(value);
  if (typeof value === 'string') return formatString(value, parseSpec(specText));
  if (typeof value === 'boolean') return formatNumber(value ? 1 : 0, parseSpec(specText));
  if (typeof value === 'number') return formatNumber(value, parseSpec(specText));
  const type = value === null || value === undefined ? 'NoneType' : Array.isArray(value) ? 'list' : 'dict';
  throw new FormatSpecError('TypeError', `unsupported format string passed to ${type}.__format__`);
}

function formatString(value: string, spec: Spec): string {
  if (spec.type !== '' && spec.type !== 's')
    throw new FormatSpecError('ValueError', `Unknown format code '${spec.type}' for object of type 'str'`);
  if (spec.sign !== undefined || spec.z || spec.alternate || spec.grouping !== undefined || spec.align === '=') {
    throw new FormatSpecError('ValueError', 'Option not allowed in string format specifier');
  }
  const chars = Array.from(value);
  const text = spec.precision === undefined ? value : chars.slice(0, spec.precision).join('');
  return pad('', text, spec, spec.align ?? '<');
}

function formatNumber(value: number, spec: Spec): string {
  const isInt = Number.isInteger(value) && !Object.is(value, -0);
  const intTypes = ['b', 'c', 'd', 'o', 'x', 'X'];
  if (spec.type === 's') throw new FormatSpecError('ValueError', `Unknown format code 's' for object of type '${isInt ? 'int' : 'float'}'`);
  if (isInt && (intTypes.includes(spec.type) || spec.type === '' || spec.type === 'n')) return formatInt(BigInt(value), spec);
  if (!isInt && intTypes.includes(spec.type))
    throw new FormatSpecError('ValueError', `Unknown format code '${spec.type}' for object of type 'float'`);
  return formatFloat(value, spec, isInt);
}

function formatInt(value: bigint, spec: Spec): string {
  if (spec.precision !== undefined) throw new FormatSpecError('ValueError', 'Precision not allowed in integer format specifier');
  if (spec.z) throw new FormatSpecError('ValueError', 'Negative zero coercion (z) not allowed in integer format specifier');
  const type = spec.type === '' ? 'd' : spec.type;
  if (spec.grouping === ',' && type !== 'd') throw new FormatSpecError('ValueError', `Cannot specify ',' with '${type}'.`);
  if (spec.grouping === '_' && !['d', 'b', 'o', 'x', 'X'].includes(type))
    throw new FormatSpecError('ValueError', `Cannot specify '_' with '${type}'.`);
  const negative = value < 0n;
  const magnitude = negative ? -value : value;
  if (type === 'c') {
    if (spec.sign !== undefined || spec.alternate)
      throw new FormatSpecError('ValueError', "Option not allowed with integer format specifier 'c'");
    if (magnitude > 0x10ffffn || negative) throw new FormatSpecError('ValueError', '%c arg not in range(0x110000)');
    return pad('', String.fromCodePoint(Number(magnitude)), spec, spec.align ?? '<');
  }
  const radix = { b: 2, o: 8, x: 16, X: 16, d: 10, n: 10 }[type] as number;
  let digits = magnitude.toString(radix);
  if (type === 'X') digits = digits.toUpperCase();
  const prefix = spec.alternate && radix !== 10 ? `0${type}` : '';
  return padNumber(signOf(negative, spec) + prefix, digits, '', spec, radix === 10 ? 3 : 4);
}

function signOf(negative: boolean, spec: Spec): string {
  if (negative) return '-';
  return spec.sign === undefined || spec.sign === '-' ? '' : spec.sign;
}

/** Fill and align (`=` puts the fill between sign and digits), grouping the digits and a zero fill. */
function padNumber(head: string, intDigits: string, tail: string, spec: Spec, every: number): string {
  const align = spec.align ?? (spec.zero ? '=' : '>');
  let digits = intDigits;
  if (spec.fill === '0' && align === '=' && spec.grouping !== undefined) {
    // Python groups a padding of zeros between sign and digits: 0,001,234.
    while (head.length + group(digits, spec.grouping, every).length + tail.length < spec.width) digits = `0${digits}`;
  }
  const body = group(digits, spec.grouping, every) + tail;
  return pad(head, body, spec, align);
}

function group(digits: string, sep: string | undefined, every: number): string {
  if (sep === undefined) return digits;
  const out: string[] = [];
  for (let end = digits.length; end > 0; end -= every) out.unshift(digits.slice(Math.max(0, end - every), end));
  return out.join(sep);
}

function pad(head: string, body: string, spec: Spec, align: '<' | '>' | '=' | '^'): string {
  const length = Array.from(head).length + Array.from(body).length;
  const missing = Math.max(0, spec.width - length);
  const fill = (n: number) => spec.fill.repeat(n);
  if (align === '<') return head + body + fill(missing);
  if (align === '>') return fill(missing) + head + body;
  if (align === '=') return head + fill(missing) + body;
  const left = Math.floor(missing / 2);
  return fill(left) + head + body + fill(missing - left);
}

/** A double's exact value: `|x| = int / 10^scale`. */
function exactDecimal(x: number): { int: bigint; scale: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const exponentBits = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & ((1n << 52n) - 1n);
  let exponent = -1074;
  if (exponentBits !== 0) {
    mantissa |= 1n << 52n;
    exponent = exponentBits - 1075;
  }
  if (exponent >= 0) return { int: mantissa << BigInt(exponent), scale: 0 };
  return { int: mantissa * 5n ** BigInt(-exponent), scale: -exponent };
}

/** `int / 10^scale` times 10^decimals, rounded half to even. */
function roundScaled(int: bigint, scale: number, decimals: number): bigint {
  const shift = scale - decimals;
  if (shift <= 0) return int * 10n ** BigInt(-shift);
  const div = 10n ** BigInt(shift);
  let q = int / div;
  const twice = (int % div) * 2n;
  if (twice > div || (twice === div && q % 2n === 1n)) q += 1n;
  return q;
}

/** Digits of a fixed-point rendering: integer part and fraction. */
function fixed(x: number, decimals: number): [string, string] {
  const { int, scale } = exactDecimal(x);
  const text = roundScaled(int, scale, decimals)
    .toString()
    .padStart(decimals + 1, '0');
  return [text.slice(0, text.length - decimals), text.slice(text.length - decimals)];
}

/** Scientific rendering with `precision` digits after the point: mantissa digits and exponent. */
function scientific(x: number, precision: number): { digits: string; exp: number } {
  if (x === 0) return { digits: '0'.repeat(precision + 1), exp: 0 };
  const { int, scale } = exactDecimal(x);
  let exp = int.toString().length - 1 - scale;
  let q = roundScaled(int, scale, precision - exp);
  if (q.toString().length > precision + 1) {
    q /= 10n;
    exp += 1;
  }
  return { digits: q.toString(), exp };
}

function expText(exp: number): string {
  return `${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

function formatFloat(value: number, spec: Spec, fromInt: boolean): string {
  if (spec.grouping !== undefined && spec.type === 'n')
    throw new FormatSpecError('ValueError', `Cannot specify '${spec.grouping}' with 'n'.`);
  let negative = value < 0 || Object.is(value, -0);
  const x = Math.abs(value);
  const upper = 'EFG'.includes(spec.type) && spec.type !== '';
  let type = spec.type.toLowerCase();
  let intDigits: string;
  let tail = '';
  if (!Number.isFinite(x)) {
    intDigits = Number.isNaN(x) ? 'nan' : 'inf';
    if (upper) intDigits = intDigits.toUpperCase();
    return padNumber(signOf(negative && !Number.isNaN(x), spec), intDigits, type === '%' ? '%' : '', { ...spec, grouping: undefined }, 3);
  }
  const point = (fraction: string) => (fraction !== '' || spec.alternate ? `.${fraction}` : '');
  if (type === '' && spec.precision === undefined) {
    // repr: Python's shortest round trip, from pyStr (an int given a float spec gets ".0").
    const repr = fromInt ? `${x}.0` : pyStr(x);
    const [mantissa, exponent] = repr.split('e');
    const [i = '', f = ''] = (mantissa as string).split('.');
    intDigits = i;
    tail = point(f) + (exponent === undefined ? '' : `e${exponent.startsWith('-') ? '' : '+'}${exponent}`);
  } else if (type === 'f' || type === '%') {
    // '%' is the value times 100 (a float multiplication, as in CPython), then 'f'.
    const [i, f] = fixed(type === '%' ? x * 100 : x, spec.precision ?? 6);
    [intDigits, tail] = [i, point(f) + (type === '%' ? '%' : '')];
  } else if (type === 'e') {
    const precision = spec.precision ?? 6;
    const { digits, exp } = scientific(x, precision);
    intDigits = digits.slice(0, 1);
    tail = `${point(digits.slice(1))}e${expText(exp)}`;
  } else {
    // g, n, and no type with a precision: significant digits, fixed or scientific by exponent.
    if (type === 'n') type = 'g';
    const p = spec.precision === 0 ? 1 : (spec.precision ?? 6);
    const { digits, exp } = scientific(x, p - 1);
    const fixedUntil = type === '' ? p - 1 : p;
    const strip = (f: string) => (spec.alternate ? f : f.replace(/0+$/, ''));
    if (exp >= -4 && exp < fixedUntil) {
      const [i, f] = fixed(x, Math.max(0, p - 1 - exp));
      const fraction = strip(f);
      intDigits = i;
      tail = type === '' && fraction === '' ? '.0' : point(fraction);
    } else {
      intDigits = digits.slice(0, 1);
      tail = `${point(strip(digits.slice(1)))}e${expText(exp)}`;
    }
  }
  if (upper) tail = tail.toUpperCase();
  if (spec.z && negative && /^[0.]*$/.test(intDigits + tail.replace(/[^0-9.]|e.*/gi, ''))) negative = false;
  return padNumber(signOf(negative, spec), intDigits, tail, spec, 3);
}
