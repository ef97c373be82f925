/**
 * The validators of Ironic's `ironic.common.args`, one per argument type, which the request layer
 * (request.ts) applies to the arguments an endpoint declares. Each answers with Ironic's message,
 * in which a value is printed as Python's str() prints it (a list as `['a', 'b']`).
 */
import { InvalidParameterValue } from '#common/errors';
import { isUuidLike } from '#common/ids';
import { isUuidOrName } from './names';
import { pyStr } from '#common/pyrepr';
import { parseBoolean } from './validation';

/** An argument's raw value: a query string, a list of them, or any JSON value from a body. */
export type RawArg = unknown;

export function argString(name: string, value: RawArg): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new InvalidParameterValue(`Expected string for ${name}: ${pyStr(value)}`);
  return value;
}

export function argBoolean(name: string, value: RawArg): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  // oslo's bool_from_string reads anything else through str().
  const text = typeof value === 'string' || typeof value === 'boolean' ? value : pyStr(value);
  return parseBoolean(name, text) ?? undefined;
}

export function argUuid(name: string, value: RawArg): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !isUuidLike(value)) throw new InvalidParameterValue(`Expected UUID for ${name}: ${pyStr(value)}`);
  return value;
}

/**
 * A UUID or a logical name; anything else (a list, a number) is refused with its str(). The error
 * is InvalidParameterValue unless `error` builds another (the routing checks answer in webob's form).
 */
export function argUuidOrName(
  name: string,
  value: RawArg,
  error: (message: string) => Error = (message) => new InvalidParameterValue(message),
): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !isUuidOrName(value)) throw error(`Expected UUID or name for ${name}: ${pyStr(value)}`);
  return value;
}

/** Python's int() of a query value: optional sign, digits, surrounding blanks and `_` separators allowed. */
export function argInteger(name: string, value: RawArg): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string' && /^\s*[-+]?\d+(_\d+)*\s*$/.test(value)) return Number(value.replace(/_/g, ''));
  throw new InvalidParameterValue(`Expected an integer for ${name}: ${pyStr(value)}`);
}

/** A comma-separated list: lower-cased, blanks dropped, duplicates removed, order kept. */
export function argStringList(name: string, value: RawArg): string[] | undefined {
  const text = argString(name, value);
  if (text === undefined) return undefined;
  const items: string[] = [];
  for (const part of text.split(',')) {
    const item = part.trim().toLowerCase();
    if (item !== '' && !items.includes(item)) items.push(item);
  }
  return items;
}
