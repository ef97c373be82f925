/**
 * Field types of versioned objects, after Ironic's `ironic/objects/fields.py`: each field has a
 * kind, may be nullable, and may have a default. The TypeScript type of an object's data is derived
 * from its field table, so a field is declared once.
 */

export type FieldKind = 'uuid' | 'string' | 'integer' | 'boolean' | 'datetime' | 'macaddress' | 'dict' | 'list';

export interface FieldDef<T = unknown> {
  readonly kind: FieldKind;
  /** For lists: the kind of every element, when the list is typed. */
  readonly items?: 'string' | 'dict';
  readonly nullable: boolean;
  /** Value a new object, or an item from a version without this field, starts with. */
  readonly default: T | undefined;
  /** Phantom member carrying the TypeScript type; never set. */
  readonly __type?: T;
}

type Nullable<T, O> = O extends { nullable: true } ? T | null : T;
interface Options<T> {
  readonly nullable?: boolean;
  readonly default?: T | null;
}

function kind<T>(k: FieldKind, items?: 'string' | 'dict') {
  return <O extends Options<T>>(opts?: O): FieldDef<Nullable<T, O>> => ({
    kind: k,
    ...(items ? { items } : {}),
    nullable: opts?.nullable ?? false,
    default: opts?.default as Nullable<T, O> | undefined,
  });
}

export type Dict = Record<string, unknown>;

/** Field constructors: `t.string({ nullable: true })`, `t.boolean({ default: false })`. */
export const t = {
  uuid: kind<string>('uuid'),
  string: kind<string>('string'),
  integer: kind<number>('integer'),
  boolean: kind<boolean>('boolean'),
  /** An ISO 8601 timestamp in UTC. */
  datetime: kind<string>('datetime'),
  macaddress: kind<string>('macaddress'),
  dict: kind<Dict>('dict'),
  list: kind<unknown[]>('list'),
  stringList: kind<string[]>('list', 'string'),
  dictList: kind<Dict[]>('list', 'dict'),
};

export type Fields = Readonly<Record<string, FieldDef>>;

/** The data type of an object with the given field table. */
export type FieldValues<F extends Fields> = {
  -readonly [K in keyof F]: F[K] extends FieldDef<infer T> ? T : never;
};

/** Whether `value` fits a field; used when reading untrusted items and RPC payloads. */
export function fitsField(def: FieldDef, value: unknown): boolean {
  if (value === null || value === undefined) return def.nullable || def.default !== undefined;
  switch (def.kind) {
    case 'uuid':
    case 'string':
    case 'datetime':
    case 'macaddress':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'dict':
      return typeof value === 'object' && !Array.isArray(value);
    case 'list':
      if (!Array.isArray(value)) return false;
      if (def.items === 'string') return value.every((v) => typeof v === 'string');
      if (def.items === 'dict') return value.every((v) => typeof v === 'object' && v !== null && !Array.isArray(v));
      return true;
  }
}

/** A copy of a field's default, so mutable defaults (dicts, lists) are never shared. */
export function defaultOf(def: FieldDef): unknown {
  const value = def.default;
  if (value === undefined) return null;
  if (typeof value !== 'object' || value === null) return value;
  // Most mutable defaults are empty: a new literal is what a deep copy would make, at a fraction of it.
  if (Array.isArray(value)) return value.length === 0 ? [] : structuredClone(value);
  return Object.keys(value).length === 0 ? {} : structuredClone(value);
}
