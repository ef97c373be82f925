/**
 * Parsing as oslo.utils' strutils does it, for values Ironic reads with `bool_from_string` and
 * MAC addresses as its `validate_and_normalize_mac` accepts them.
 */

const TRUE_STRINGS = ['1', 't', 'true', 'on', 'y', 'yes'];
const FALSE_STRINGS = ['0', 'f', 'false', 'off', 'n', 'no'];

/** oslo's list of acceptable boolean strings, as its strict error message quotes it. */
export const ACCEPTABLE_BOOLEANS = [...TRUE_STRINGS, ...FALSE_STRINGS]
  .sort()
  .map((v) => `'${v}'`)
  .join(', ');

/** oslo's `bool_from_string(strict=True)`: undefined when the text is not a boolean. */
export function boolFromString(text: string): boolean | undefined {
  const v = text.trim().toLowerCase();
  if (TRUE_STRINGS.includes(v)) return true;
  if (FALSE_STRINGS.includes(v)) return false;
  return undefined;
}

const MAC = /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$/i;

/** A MAC address in colon or dash notation, lower-cased with colons; undefined when it is none. */
export function normalizeMac(value: string): string | undefined {
  return MAC.test(value) ? value.toLowerCase().replace(/-/g, ':') : undefined;
}

/** The longest part of a remote answer (a BMC's or an agent's body) that goes into messages such as last_error. */
export const EXCERPT_CHARS = 256;

/**
 * A short excerpt of text a remote party sent, for messages: at most EXCERPT_CHARS characters, with
 * control characters flattened, so last_error never reflects a whole response body back to users.
 */
export function excerpt(text: string, max: number = EXCERPT_CHARS): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, ' ');
  return flat.length <= max ? flat : `${flat.slice(0, max)}… (${flat.length - max} more characters)`;
}
