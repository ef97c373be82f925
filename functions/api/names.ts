/** Logical names of nodes (Ironic's `is_valid_node_name`). */
import { ClientSideError, NotAcceptable } from '#common/errors';
import { isOsloUuidLike } from '#common/ids';
import { type ApiVersion, atLeast } from './microversion';
import { pyStr } from './pyrepr';

/** RFC 3986 unreserved characters, from 1.10 on (Python's `$` also matches before a final newline). */
const LOGICAL_NAME = /^[A-Za-z0-9\-._~]+\n?$/;
/** Before 1.10: Ironic's old hostname check (lower-case labels). */
const HOSTNAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9\-_]{0,62}[a-z0-9])*\.?\n?$/;

/** Names of the nodes controller's sub-controllers and actions, which a node may not be called. */
export const NODE_RESERVED_NAMES = ['maintenance', 'management', 'states', 'vendor_passthru', 'detail', 'validate'] as const;

/** Ironic's is_valid_logical_name at a version (before 1.10, the old hostname rules). */
export function isValidLogicalName(name: unknown, version: ApiVersion): boolean {
  if (typeof name !== 'string' || name.length > 255) return false;
  return atLeast(version, 10) ? LOGICAL_NAME.test(name) : HOSTNAME.test(name);
}

/** The version-independent check of `args.uuid_or_name`. */
export function isUuidOrName(value: string): boolean {
  return (value.length <= 255 && LOGICAL_NAME.test(value)) || isOsloUuidLike(value);
}

export function isValidNodeName(name: unknown, version: ApiVersion): boolean {
  return isValidLogicalName(name, version) && !isOsloUuidLike(name);
}

/** Refuse a name a node may not have, with Ironic's message. */
export function checkNodeName(name: unknown, version: ApiVersion, errorMessage: (name: string) => string): void {
  if (!atLeast(version, 5)) throw new NotAcceptable('Request not acceptable.');
  if (!isValidNodeName(name, version)) throw new ClientSideError(errorMessage(pyStr(name)));
  if ((NODE_RESERVED_NAMES as readonly string[]).includes(name as string)) {
    throw new ClientSideError(
      `The word "${name as string}" is reserved and can not be used as a node name. Reserved words are: ${NODE_RESERVED_NAMES.join(', ')}.`,
    );
  }
}
