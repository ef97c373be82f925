/**
 * Steps the port, portgroup, chassis and deploy template controllers share: refusing query
 * arguments a handler does not take, Ironic's patch helpers (patch_validate_allowed_fields,
 * get_patch_values, is_path_updated, is_path_removed, patch_update_changed_fields) and the node
 * lock that Ironic's conductor takes before it writes a port or portgroup.
 */
import { Invalid, NodeLocked } from '#common/errors';
import type { Node } from '#objects/node';
import type { ApiRequest } from '../http';
import { isLocked } from '../lookup';
import type { PatchOperation } from '../patch';
import { NO_QUERY_BESIDE_BODY } from '../request';

/**
 * A handler with a body takes no other arguments: query parameters are "Unexpected arguments"
 * (keys of the body are not arguments, as pecan hands the body over whole).
 */
export function rejectArgs(req: ApiRequest, body: unknown): void {
  NO_QUERY_BESIDE_BODY.read(req, body);
}

/** Every operation's first path segment must be patchable. */
export function checkPatchPaths(patch: readonly PatchOperation[], allowed: readonly string[]): void {
  for (const p of patch) {
    if (!allowed.includes(p.path.split('/')[1] as string)) {
      throw new Invalid(`Cannot patch ${p.path}. Only the following can be updated: ${allowed.join(', ')}`);
    }
  }
}

/** Values the patch sets at exactly `path`, in order. */
export function patchValues(patch: readonly PatchOperation[], path: string): unknown[] {
  return patch.filter((p) => p.path === path && p.op !== 'remove').map((p) => p.value);
}

/**
 * Whether the patch touches `path` or below it. NOTE: Ironic 21.4 looks at the first operation
 * only (its loop returns on the first iteration); kept, since it decides which checks run.
 */
export function isPathUpdated(patch: readonly PatchOperation[], path: string): boolean {
  const first = patch[0];
  return first !== undefined && (first.path === path || first.path.startsWith(`${path}/`));
}

/** Whether some operation removes `path` or something below it. */
export function isPathRemoved(patch: readonly PatchOperation[], path: string): boolean {
  return patch.some((p) => (p.path === path || p.path.startsWith(`${path}/`)) && p.op === 'remove');
}

/** Copy the patched values of `fields` onto the object where they differ; the names changed. */
export function applyPatchedFields(obj: object, patched: Record<string, unknown>, fields: readonly string[]): string[] {
  const data = obj as Record<string, unknown>;
  const changed: string[] = [];
  for (const field of fields) {
    const value = patched[field] ?? null;
    if (JSON.stringify(data[field] ?? null) !== JSON.stringify(value)) {
      data[field] = value;
      changed.push(field);
    }
  }
  return changed;
}

/** Ironic's conductor locks the node to write its ports and portgroups: a held lock is a 409. */
export function checkNodeUnlocked(node: Node): void {
  if (isLocked(node)) throw new NodeLocked(node.uuid, node.reservation as string);
}
