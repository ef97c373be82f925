/** Finding the resource a path names (Ironic's `get_rpc_node`). */
import { NodeNotFound, httpErrors } from '#common/errors';
import { canonicalUuid, isUuidLike } from '#common/ids';
import type { Node } from '#objects/node';
import type { ApiContext } from './context';
import type { ApiRequest } from './http';
import { atLeast } from './microversion';

const LOGICAL_NAME = /^[A-Za-z0-9\-._~]+$/;

/** A node by UUID, or by name from 1.5 on; 400 for a value that can be neither. */
export async function findNode(req: ApiRequest, ctx: ApiContext, ident: string): Promise<Node> {
  if (isUuidLike(ident)) return ctx.nodes.get(canonicalUuid(ident));
  if (!atLeast(req.version, 5)) throw new NodeNotFound(ident);
  if (!LOGICAL_NAME.test(ident) || ident.length > 255) throw httpErrors.badRequest(`Expected UUID or name for node: ${ident}`);
  return ctx.nodes.getByName(ident);
}

/** Whether a node's lock is held right now (an expired lock does not count). */
export function isLocked(node: Node, now: number = Date.now()): boolean {
  return node.reservation !== null && (node.storeMeta?.lockExpiresAt ?? 0) >= now;
}
