/**
 * Versioned objects, after Ironic's `IronicObject` (oslo.versionedobjects).
 *
 * In memory an object is always at its class's latest VERSION. Only at the boundaries does a version
 * change (Ironic rolling-upgrades contributor doc):
 *   - read from DynamoDB      → convert up to latest          (`fromItem`)
 *   - write to DynamoDB       → convert to the target version (`toItem`, target = pinned or latest)
 *   - serialize for RPC       → convert to the target version (`toPrimitive`)
 *   - deserialize from RPC    → convert up to latest          (`fromPrimitive`)
 * Each class declares its history as steps, oldest first; a step lists the fields it added and, for
 * anything else (a rename, a changed meaning), how to convert up and down across it.
 */
import { IncompatibleObjectVersion, InvalidParameterValue } from '#common/errors';
import { type Dict, type FieldDef, type Fields, defaultOf, fitsField } from './fields';

export interface ConvertOptions {
  /**
   * True for RPC: fields the target version does not know are removed. False for storage: they are
   * reset to their default (null), as Ironic does for database rows.
   */
  readonly removeUnavailable: boolean;
}

export interface VersionStep {
  /** The version this step leads to. The first step is the initial version and converts nothing. */
  readonly version: string;
  /** Fields first present in this version. */
  readonly added?: readonly string[];
  /** Convert data of the previous version to this one, after `added` fields got their defaults. */
  readonly up?: (data: Dict) => void;
  /** Convert data of this version to the previous one, before `added` fields are dropped. */
  readonly down?: (data: Dict, options: ConvertOptions) => void;
}

/** An object on the wire: what RPC messages carry (Ironic's `ironic_object.*` primitive). */
export interface ObjectPrimitive {
  readonly name: string;
  readonly version: string;
  readonly data: Dict;
  readonly changes: readonly string[];
}

/** Compare "1.10" and "1.9" as versions, not strings. */
export { compareVersionStrings as compareVersions } from '#common/releases';

/** The stored copy's bookkeeping, kept by `functions/db` beside an object's fields. */
export interface StoreMeta {
  /** Revision of the stored item; every write is conditional on it and increments it. */
  rev: number;
  /** Creation-ordered id the indexes sort by. */
  sortId: string;
  /** Unique-value guards the stored item owns, to move them when those values change. */
  guards: readonly string[];
  /** Owner token of the lock when this copy holds it (from reserve(), or a save that took it). */
  lockOwner?: string;
  /** When the lock on the stored item expires (epoch ms), held by this copy or not. */
  lockExpiresAt?: number;
  /**
   * Owner token of the lock on the stored item when this copy was read, held by this copy or not.
   * Read-only knowledge (who holds it), never the right to write through it: that is `lockOwner`.
   */
  lockHolder?: string;
}

/** Static side of every versioned object class. */
export interface ObjectClass<T extends VersionedObject = VersionedObject> {
  new (data?: Dict): T;
  readonly objName: string;
  readonly VERSION: string;
  readonly fields: Fields;
  readonly history: readonly VersionStep[];
}

export abstract class VersionedObject {
  static readonly objName: string;
  static readonly VERSION: string;
  static readonly fields: Fields;
  static readonly history: readonly VersionStep[];

  /**
   * What the store knows about the stored copy this object was read from (its revision for
   * optimistic concurrency, its lock); undefined for an object never stored. Not a field.
   */
  storeMeta: StoreMeta | undefined;

  /** Field values at the latest version. */
  protected readonly _data: Dict;
  private readonly _changes = new Set<string>();

  constructor(data: Dict = {}) {
    const cls = this.cls();
    installAccessors(cls);
    if (adopting !== undefined) {
      // fromVersioned: the data is complete, checked and the caller's to give away.
      this._data = adopting;
      adopting = undefined;
      return;
    }
    this._data = {};
    for (const [name, def] of fieldEntries(cls)) {
      this._data[name] = name in data ? data[name] : defaultOf(def);
    }
    for (const name of Object.keys(data)) {
      if (!(name in cls.fields)) {
        throw new InvalidParameterValue(`${cls.objName} has no field "${name}"`);
      }
      this._changes.add(name);
    }
  }

  protected cls(): ObjectClass {
    return this.constructor as unknown as ObjectClass;
  }

  /** Names of the fields set since creation or the last `resetChanges()`. */
  whatChanged(): ReadonlySet<string> {
    return this._changes;
  }

  resetChanges(): void {
    this._changes.clear();
  }

  /** Mark a field changed after mutating its value in place (a dict or list). */
  markChanged(field: string): void {
    this._changes.add(field);
  }

  /** The field values at the latest version, without copying: for reading only. */
  values(): Readonly<Dict> {
    return this._data;
  }

  /** A deep copy of the data, at the latest version. */
  toData(): Dict {
    return structuredClone(this._data);
  }

  /** The data converted to `target` (a version listed in this class's history). */
  convertToVersion(target: string, options: ConvertOptions): Dict {
    return convertData(this.cls(), this.toData(), this.cls().VERSION, target, options);
  }

  /** The DynamoDB attributes for this object at `target`: nulls omitted, `version` always set. */
  toItem(target: string = this.cls().VERSION): Dict {
    const data = this.convertToVersion(target, { removeUnavailable: false });
    const item: Dict = { version: target };
    for (const [name, value] of Object.entries(data)) {
      if (value !== null && value !== undefined) item[name] = value;
    }
    return item;
  }

  /** The RPC form of this object at `target`. */
  toPrimitive(target: string = this.cls().VERSION): ObjectPrimitive {
    const data = this.convertToVersion(target, { removeUnavailable: true });
    return {
      name: this.cls().objName,
      version: target,
      data,
      changes: [...this._changes].filter((name) => name in data),
    };
  }

  /**
   * Build an object from a stored item. Items of older versions are converted up; the fields the
   * conversion set are recorded as changes, so the next save writes the item at the new version.
   */
  static fromItem<T extends VersionedObject>(this: ObjectClass<T>, item: Dict): T {
    return objectFromItem(this, item);
  }

  /** Build an object from its RPC form, converting it to the latest version. */
  static fromPrimitive<T extends VersionedObject>(this: ObjectClass<T>, primitive: ObjectPrimitive): T {
    return objectFromPrimitive(this, primitive);
  }
}

/** `cls.fromItem(item)` for a class known only as an ObjectClass (stores, migrations). */
export function objectFromItem<T extends VersionedObject>(cls: ObjectClass<T>, item: Dict): T {
  const version = typeof item.version === 'string' ? item.version : undefined;
  if (version === undefined) {
    throw new IncompatibleObjectVersion(cls.objName, 'none', cls.VERSION);
  }
  // Attributes of older versions that the latest no longer has (a renamed field) are kept until
  // the conversion has used them; omitted attributes are nulls (items never store null).
  const { version: _version, ...data } = item;
  return fromVersioned(cls, data, version, []);
}

/** `cls.fromPrimitive(primitive)` for a class known only as an ObjectClass (the RPC serializer). */
export function objectFromPrimitive<T extends VersionedObject>(cls: ObjectClass<T>, primitive: ObjectPrimitive): T {
  if (primitive.name !== cls.objName) {
    throw new InvalidParameterValue(`Expected a ${cls.objName} object, got ${primitive.name}`);
  }
  const data: Dict = {};
  for (const [name, value] of Object.entries(primitive.data)) data[name] = value;
  return fromVersioned(cls, data, primitive.version, primitive.changes);
}

function fromVersioned<T extends VersionedObject>(cls: ObjectClass<T>, data: Dict, version: string, changes: readonly string[]): T {
  // Items are mostly read at the latest version: then there is nothing to convert, and `data` (a
  // fresh dict its caller gives away) is taken as it is — no copies on the hottest path.
  const current = version === cls.VERSION;
  const before = current ? data : structuredClone(data);
  const latest = current ? data : convertData(cls, data, version, cls.VERSION, { removeUnavailable: false });
  // The object's data in field order, omitted fields at their defaults, attributes of no field left out.
  const values: Dict = {};
  for (const [name, def] of fieldEntries(cls)) {
    const value = latest[name] === undefined ? defaultOf(def) : latest[name];
    if (!fitsField(def, value)) {
      throw new InvalidParameterValue(`${cls.objName} field "${name}" has a value of the wrong type: ${JSON.stringify(value)}`);
    }
    values[name] = value;
  }
  let obj: T;
  adopting = values;
  try {
    obj = new cls();
  } finally {
    adopting = undefined;
  }
  for (const name of changes) if (name in cls.fields) obj.markChanged(name);
  if (!current) {
    for (const name of Object.keys(cls.fields)) {
      if (JSON.stringify(before[name] ?? null) !== JSON.stringify(latest[name] ?? null)) obj.markChanged(name);
    }
  }
  return obj;
}

/** Convert plain data of `cls` from version `from` to version `to`, stepping through the history. */
export function convertData(cls: ObjectClass, input: Dict, from: string, to: string, options: ConvertOptions): Dict {
  const versions = cls.history.map((step) => step.version);
  const fromIndex = versions.indexOf(from);
  const toIndex = versions.indexOf(to);
  if (fromIndex < 0) throw new IncompatibleObjectVersion(cls.objName, from, cls.VERSION);
  if (toIndex < 0) throw new IncompatibleObjectVersion(cls.objName, to, cls.VERSION);
  const data = structuredClone(input);
  if (toIndex > fromIndex) {
    for (let i = fromIndex + 1; i <= toIndex; i++) {
      const step = cls.history[i] as VersionStep;
      for (const name of step.added ?? []) {
        const def = cls.fields[name];
        if (data[name] === undefined) data[name] = def ? defaultOf(def) : null;
      }
      step.up?.(data);
    }
  } else {
    for (let i = fromIndex; i > toIndex; i--) {
      const step = cls.history[i] as VersionStep;
      step.down?.(data, options);
      for (const name of step.added ?? []) {
        if (options.removeUnavailable) delete data[name];
        else data[name] = null;
      }
    }
  }
  return data;
}

/** Data the next constructed object takes as its own instead of filling in defaults (fromVersioned). */
let adopting: Dict | undefined;

const entriesByClass = new WeakMap<object, readonly (readonly [string, FieldDef])[]>();

/** `Object.entries(cls.fields)`, once per class: objects are built on every read of every item. */
function fieldEntries(cls: ObjectClass): readonly (readonly [string, FieldDef])[] {
  let entries = entriesByClass.get(cls);
  if (entries === undefined) {
    entries = Object.entries(cls.fields);
    entriesByClass.set(cls, entries);
  }
  return entries;
}

const installed = new WeakSet<object>();

/** Give a class one accessor per field that records changes, as oslo.versionedobjects does. */
function installAccessors(cls: ObjectClass): void {
  if (installed.has(cls)) return;
  installed.add(cls);
  for (const name of Object.keys(cls.fields)) {
    Object.defineProperty(cls.prototype, name, {
      configurable: false,
      enumerable: true,
      get(this: { _data: Dict }) {
        return this._data[name];
      },
      set(this: { _data: Dict; markChanged(field: string): void }, value: unknown) {
        this._data[name] = value;
        this.markChanged(name);
      },
    });
  }
}
