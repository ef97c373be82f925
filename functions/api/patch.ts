/**
 * Applying a JSON patch (RFC 6902) to a resource, as Ironic's `apply_jsonpatch` does: a new root
 * attribute may not be added, and operations apply one at a time so that a failure names the
 * operation.
 *
 * The operations are applied by fast-json-patch (the maintained, dependency-free RFC 6902
 * implementation most of the npm ecosystem uses). Ironic reports a failed operation in the words
 * of Python's jsonpatch/jsonpointer ("can't remove a non-existent object 'x'", "member 'x' not
 * found in {…}"), which clients show to operators; no library words them so, so before each
 * operation the pointer is walked here the way Python's jsonpointer walks it, and a failure is
 * reported in those words. Pointers are read as RFC 6901 says ("~1" is "/", "~0" is "~"), as
 * jsonpointer reads them. Through the API that changes nothing today: the patch schema's path
 * pattern (`^(/[\w-]+)+$`, Ironic's too) refuses "~" at every version. API 1.98 ("keys with ~ or
 * /") only lets Ironic's allowed-field checks decode a top-level field, and no top-level field
 * holds either character; so 1.98 is served with no change to those checks, as in Ironic.
 */
import fastJsonPatch, { type Operation } from 'fast-json-patch';
import { ClientSideError, PatchError } from '#common/errors';
import { pyRepr } from './pyrepr';

export interface PatchOperation {
  readonly op: 'add' | 'replace' | 'remove';
  readonly path: string;
  readonly value?: unknown;
}

/** Python's type() repr of a JSON value, as jsonpointer names a document it cannot index. */
function pyType(value: unknown): string {
  if (value === null) return "<class 'NoneType'>";
  if (typeof value === 'boolean') return "<class 'bool'>";
  if (typeof value === 'number') return Number.isInteger(value) ? "<class 'int'>" : "<class 'float'>";
  return "<class 'object'>";
}

type Container = Record<string, unknown> | unknown[] | string;

const has = (record: object, key: string | number): boolean => Object.prototype.hasOwnProperty.call(record, key);

/** jsonpointer's get_part: the key or index a part means in `doc`, or its error. */
function partOf(doc: unknown, part: string): string | number {
  if (doc !== null && typeof doc === 'object' && !Array.isArray(doc)) return part;
  if (Array.isArray(doc) || typeof doc === 'string') {
    if (part === '-') return part;
    if (!/^(0|[1-9][0-9]*)$/.test(part)) throw new Error(`'${part}' is not a valid sequence index`);
    return Number(part);
  }
  throw new Error(`Document '${pyType(doc)}' does not support indexing, must be mapping/sequence or support __getitem__`);
}

/** jsonpointer's walk: one step down, or its error. */
function walk(doc: unknown, part: string): unknown {
  const key = partOf(doc, part);
  if (Array.isArray(doc) || typeof doc === 'string') {
    if (key === '-') return undefined;
    const index = key as number;
    if (index >= doc.length) throw new Error(`index '${index}' is out of bounds`);
    return doc[index];
  }
  const record = doc as Record<string, unknown>;
  if (!has(record, key)) throw new Error(`member '${key}' not found in ${pyRepr(record)}`);
  return record[key as string];
}

/** Python jsonpatch's reason for refusing `op` on `doc`, or undefined when it applies. */
function pythonReason(doc: unknown, op: PatchOperation): string | undefined {
  if (op.op !== 'remove' && !('value' in op)) return "The operation does not contain a 'value' member";
  // RFC 6901, as jsonpointer reads a pointer: "~1" is "/" and "~0" is "~" in a key; any other "~"
  // is refused before anything is walked.
  const invalidEscape = /~[^01]|~$/.exec(op.path);
  if (invalidEscape !== null) return `Found invalid escape ${invalidEscape[0]}`;
  const parts = op.path
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  const last = parts.pop() as string;
  let parent: unknown = doc;
  try {
    for (const part of parts) parent = walk(parent, part);
    const key = partOf(parent, last);
    const container = parent as Container;
    if (op.op === 'remove') {
      if (typeof container === 'string') return undefined; // Python fails with a TypeError (a 500); the library refuses it below.
      if (Array.isArray(container) ? key === '-' || (key as number) >= container.length : !has(container, key)) {
        return `can't remove a non-existent object '${last}'`;
      }
      return undefined;
    }
    if (op.op === 'replace') {
      if (key === '-') return "'path' with '-' can't be applied to 'replace' operation";
      if (Array.isArray(container)) return (key as number) >= container.length ? "can't replace outside of list" : undefined;
      if (typeof container === 'string') return `unable to fully resolve json pointer ${op.path}, part ${String(key)}`;
      return has(container, key) ? undefined : `can't replace a non-existent object '${last}'`;
    }
    if (Array.isArray(container)) return key !== '-' && (key as number) > container.length ? "can't insert outside of list" : undefined;
    if (typeof container === 'string') return `unable to fully resolve json pointer ${op.path}, part ${String(key)}`;
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Python's repr of an operation as Ironic prints it: op, path, then value, as the client sent them. */
export function operationRepr(op: PatchOperation): string {
  return pyRepr(op);
}

/**
 * Apply `patch` to a copy of `doc`. ClientSideError when an operation adds a new root attribute;
 * PatchError (400) naming the operation when one cannot be applied.
 */
export function applyPatch(doc: Record<string, unknown>, patch: readonly PatchOperation[]): Record<string, unknown> {
  for (const op of patch) {
    if (op.op === 'add' && op.path.split('/').length === 2 && !has(doc, op.path.slice(1))) {
      throw new ClientSideError(`Adding a new attribute (${op.path}) to the root of the resource is not allowed`);
    }
  }
  let current = fastJsonPatch.deepClone(doc) as Record<string, unknown>;
  for (const op of patch) {
    const reason = pythonReason(current, op);
    if (reason !== undefined) throw new PatchError(operationRepr(op), reason);
    try {
      current = fastJsonPatch.applyOperation(current, { ...op } as Operation, true, true).newDocument;
    } catch (err) {
      throw new PatchError(operationRepr(op), (err as Error).message.split('\n')[0] ?? 'invalid operation');
    }
  }
  return current;
}
