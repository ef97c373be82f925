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
