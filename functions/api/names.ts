/** Logical names of nodes (Ironic's `is_valid_node_name`). */
import { ClientSideError, NotAcceptable } from '#common/errors';
import { isUuidLike } from '#common/ids';
import { type ApiVersion, atLeast } from './microversion';

/** RFC 3986 unreserved characters, from 1.10 on. */
const LOGICAL_NAME = /^[A-Za-z0-9\-._~]+$/;
/** Before 1.10: a hostname (RFC 952/1123 labels), lower-cased letters allowed only. */
const HOSTNAME = /^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*\.?$/;

export const NODE_RESERVED_NAMES = ['detail', 'validate'] as const;

export function isValidNodeName(name: string, version: ApiVersion): boolean {
  if (name.length > 255) return false;
  const valid = atLeast(version, 10) ? LOGICAL_NAME.test(name) : HOSTNAME.test(name) && name.length <= 255;
  return valid && !isUuidLike(name);
}

/** Refuse a name a node may not have, with Ironic's message. */
export function checkNodeName(name: string, version: ApiVersion, errorMessage: (name: string) => string): void {
  if (!atLeast(version, 5)) throw new NotAcceptable('Request not acceptable.');
  if (!isValidNodeName(name, version)) throw new ClientSideError(errorMessage(name));
  if ((NODE_RESERVED_NAMES as readonly string[]).includes(name)) {
    throw new ClientSideError(
      `The word "${name}" is reserved and can not be used as a node name. Reserved words are: ${NODE_RESERVED_NAMES.join(', ')}.`,
    );
  }
}
