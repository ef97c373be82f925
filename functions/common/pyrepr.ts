/**
 * Python's repr() of JSON values. Ironic's error messages embed values the way Python prints them
 * (`'abc'`, `None`, `True`, `{'a': 1}`), and clients and scripts match on those messages.
 */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : pyFloat(value);
  if (typeof value === 'string') return pyString(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${pyString(k)}: ${pyRepr(v)}`)
      .join(', ')}}`;
  }
  return String(value);
}

/** Python's str() of a JSON value: a string as it is, anything else as repr() prints it. */
export function pyStr(value: unknown): string {
  return typeof value === 'string' ? value : pyRepr(value);
}

/** Python's float repr: the shortest digits that read back (as JavaScript's), scientific below 1e-4 and from 1e16. */
function pyFloat(value: number): string {
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : value < 0 ? '-inf' : 'nan';
  const [mantissa, e] = value.toExponential().split('e') as [string, string];
  const exp = Number(e);
  if (exp < -4 || exp >= 16) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(value);
}

export function pyString(value: string): string {
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of value) {
    const code = ch.codePointAt(0) as number;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + quote;
}

/**
 * Python's `json.dumps(value)` with its defaults: `, ` and `: ` separators, non-ASCII characters
 * as `\uXXXX` escapes (ensure_ascii), keys in their given order.
 */
export function pyJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return asciiJson(value);
  if (typeof value === 'number')
    return Number.isFinite(value) ? JSON.stringify(value) : value > 0 ? 'Infinity' : value < 0 ? '-Infinity' : 'NaN';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(', ')}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${asciiJson(k)}: ${pyJsonDumps(v)}`)
      .join(', ')}}`;
  }
  return 'null';
}

/**
 * Python's `json.dumps(value, indent=N)`: one item per line, nested by N spaces, `,` and `: `
 * separators, empty lists and objects as `[]` and `{}`, non-ASCII characters escaped.
 */
export function pyJsonDumpsIndented(value: unknown, indent = 2, level = 0): string {
  const nested = (v: unknown) => pyJsonDumpsIndented(v, indent, level + 1);
  let open: string;
  let items: string[];
  if (Array.isArray(value)) [open, items] = ['[', value.map(nested)];
  else if (value !== null && typeof value === 'object')
    [open, items] = ['{', Object.entries(value as Record<string, unknown>).map(([k, v]) => `${asciiJson(k)}: ${nested(v)}`)];
  else return pyJsonDumps(value);
  const close = open === '[' ? ']' : '}';
  if (items.length === 0) return open + close;
  const pad = (n: number) => ' '.repeat(indent * n);
  return `${open}\n${items.map((i) => pad(level + 1) + i).join(',\n')}\n${pad(level)}${close}`;
}

function asciiJson(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Python's repr() as pprint writes it: dictionary keys sorted. */
function sortedRepr(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedRepr).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${sortedEntries(value as Record<string, unknown>)
      .map(([k, v]) => `${pyString(k)}: ${sortedRepr(v)}`)
      .join(', ')}}`;
  }
  return pyRepr(value);
}

function sortedEntries(value: Record<string, unknown>): [string, unknown][] {
  return Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Python's `pprint.pformat(value, width)` of JSON values (sorted keys, one item per line once a
 * container does not fit). Long strings are written whole where pprint would split them.
 */
export function pyPformat(value: unknown, width = 80): string {
  const out: string[] = [];
  const format = (v: unknown, indent: number, allowance: number) => {
    const rep = sortedRepr(v);
    const fits = rep.length <= width - indent - allowance;
    if (!fits && Array.isArray(v) && v.length > 0) {
      out.push('[');
      const inner = indent + 1;
      v.forEach((item, i) => {
        const last = i === v.length - 1;
        if (i > 0) out.push(`,\n${' '.repeat(inner)}`);
        format(item, inner, last ? allowance + 1 : 1);
      });
      out.push(']');
    } else if (!fits && v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0) {
      out.push('{');
      const inner = indent + 1;
      const entries = sortedEntries(v as Record<string, unknown>);
      entries.forEach(([key, item], i) => {
        const last = i === entries.length - 1;
        if (i > 0) out.push(`,\n${' '.repeat(inner)}`);
        const keyRep = pyString(key);
        out.push(`${keyRep}: `);
        format(item, inner + keyRep.length + 2, last ? allowance + 1 : 1);
      });
      out.push('}');
    } else {
      out.push(rep);
    }
  };
  format(value, 0, 0);
  return out.join('');
}

/** Python's truth value of a JSON value (empty strings, lists and objects are false). */
export function pyTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (value !== null && typeof value === 'object') return Object.keys(value).length > 0;
  return Boolean(value);
}
