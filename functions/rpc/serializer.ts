/**
 * Objects in RPC messages (Ironic's `IronicObjectSerializer`): a sender writes each object at its
 * release's target version (`{name, version, data, changes}`), a receiver converts it to the
 * latest version it has, or refuses a version it cannot read (IncompatibleObjectVersion).
 */
import type { ReleaseSelection } from '#common/releases';
import { InvalidParameterValue } from '#common/errors';
import { type ObjectPrimitive, type VersionedObject, objectFromPrimitive } from '#objects/base';
import { OBJECT_REGISTRY, type ObjectRegistry } from '#objects/registry';

/** An object as the sender's release speaks it. */
export function serializeObject(obj: VersionedObject, release: ReleaseSelection): ObjectPrimitive {
  const name = (obj.constructor as unknown as { objName: string }).objName;
  return obj.toPrimitive(release.objectVersion(name));
}

export function isObjectPrimitive(value: unknown): value is ObjectPrimitive {
  if (typeof value !== 'object' || value === null) return false;
  const p = value as Record<string, unknown>;
  return (
    typeof p.name === 'string' && typeof p.version === 'string' && typeof p.data === 'object' && p.data !== null && Array.isArray(p.changes)
  );
}

/** An object received over RPC, at the latest version this code has. */
export function deserializeObject(value: unknown, registry: ObjectRegistry = OBJECT_REGISTRY): VersionedObject {
  if (!isObjectPrimitive(value)) throw new InvalidParameterValue('Expected a serialized object');
  const cls = registry[value.name];
  if (cls === undefined) throw new InvalidParameterValue(`Unknown object ${value.name}`);
  return objectFromPrimitive(cls, value);
}
