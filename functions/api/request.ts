/**
 * The request layer: each endpoint declares the arguments it accepts — where they come from (query,
 * JSON body, or both as pecan passes them), their types, which are required, from which microversion
 * each is accepted and the JSON schema a structured one must match — and its controller receives
 * them typed and validated, refused otherwise with Ironic's error and message before anything is
 * read or written. Ironic does the same with `ironic.common.args.validate` on each controller method
 * (and, in master, per-version JSON schemas on the request); the messages here are its messages.
 *
 *   const PowerRequest = defineBody({
 *     target: arg.string().required(),
 *     timeout: arg.integer().since(27),
 *   });
 *   const { target, timeout } = PowerRequest.read(req); // { target: string; timeout?: number }
 */
import { ClientSideError, type IronicError, InvalidParameterValue, MissingParameterValue, NotAcceptable } from '#common/errors';
import { canonicalUuid } from '#common/ids';
import { argBoolean, argInteger, argString, argStringList, argUuid, type RawArg } from './args';
import { parseBody } from './body';
import type { ApiRequest } from './http';
import { type ApiVersion, atLeast } from './microversion';
import { pyRepr, pyStr } from './pyrepr';
import { type JsonSchema, schemaErrorText } from './validation';

/** Python's type names, as Ironic's `args.types` prints them in its message. */
const PY_TYPES = {
  NoneType: (v: unknown) => v === null,
  str: (v: unknown) => typeof v === 'string',
  int: (v: unknown) => typeof v === 'number' && Number.isInteger(v),
  bool: (v: unknown) => typeof v === 'boolean',
  list: (v: unknown) => Array.isArray(v),
  dict: (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v),
} as const;
type PyType = keyof typeof PY_TYPES;

/** An argument's declaration. Immutable: each modifier returns a new declaration. */
export class Arg<T, Required extends boolean = false> {
  private constructor(
    private readonly parseValue: (name: string, raw: RawArg) => T | undefined,
    private readonly options: {
      /** What the type is called in Ironic's message (`Expected <label> for <name>`). */
      readonly label?: string;
      readonly required?: boolean;
      /** A null value reads as absent even where the argument is required. */
      readonly nullIsMissing?: boolean;
      /** A null value is handed over as null. */
      readonly nullable?: boolean;
      readonly since?: number;
      readonly belowVersion?: (value: T) => IronicError | undefined;
    } = {},
  ) {}

  static of<T>(parse: (name: string, raw: RawArg) => T | undefined, label?: string): Arg<T> {
    return new Arg(parse, { label });
  }

  /**
   * Absent → Ironic's MissingParameterValue. A null value is refused naming the type, unless
   * `{ null: 'missing' }` reads it as absent too (a handler whose own `if value is None` check
   * answers with the missing-parameter message) or the argument is `.nullable()`.
   */
  required(options: { readonly null?: 'refuse' | 'missing' } = {}): Arg<T, true> {
    const nullIsMissing = options.null === 'missing';
    return new Arg(this.parseValue, { ...this.options, required: true, nullIsMissing }) as unknown as Arg<T, true>;
  }

  /**
   * A null value is handed over as null instead of reading as absent (a handler that uses None as
   * given, e.g. to print it in its message). No version check applies to null.
   */
  nullable(): Arg<T | null, Required> {
    return new Arg(this.parseValue, { ...this.options, nullable: true } as never) as unknown as Arg<T | null, Required>;
  }

  /**
   * Accepted from API 1.`minor`. Below it the request is refused with `error(value)` — by default
   * Ironic's NotAcceptable — unless `error` returns undefined for that value (Ironic lets an empty
   * value through where its check reads `if value and not allowed`).
   */
  since(
    minor: number,
    error: (value: T) => IronicError | undefined = () => new NotAcceptable('Request not acceptable.'),
  ): Arg<T, Required> {
    return new Arg(this.parseValue, { ...this.options, since: minor, belowVersion: error }) as Arg<T, Required>;
  }

  /** Then check the parsed value against a JSON schema; `message` wraps jsonschema's error text. */
  matching(schema: JsonSchema, message: (detail: string) => IronicError): Arg<T, Required> {
    const parse = this.parseValue;
    return new Arg((name, raw) => {
      const value = parse(name, raw);
      const invalid = value === null || value === undefined ? undefined : schemaErrorText(schema, value);
      if (invalid !== undefined) throw message(invalid);
      return value;
    }, this.options) as Arg<T, Required>;
  }

  /** Then transform the parsed value (e.g. canonical spelling). */
  map<U>(fn: (value: T) => U): Arg<U, Required> {
    const parse = this.parseValue;
    return new Arg((name, raw) => {
      const value = parse(name, raw);
      return value === undefined ? undefined : fn(value);
    }, this.options as never) as unknown as Arg<U, Required>;
  }

  /** @internal */
  read(name: string, raw: RawArg, version: ApiVersion): T | undefined {
    if (raw === null && this.options.nullable) return null as T;
    if (raw === undefined || (raw === null && this.options.nullIsMissing)) {
      if (this.options.required) throw new MissingParameterValue(`Missing mandatory parameter: ${name}`);
      return undefined;
    }
    const value = this.parseValue(name, raw);
    if (value === undefined) {
      // null reads as absent, except where the argument is required: Ironic then names the type.
      if (this.options.required) throw new InvalidParameterValue(`Expected ${this.options.label ?? 'a value'} for ${name}: None`);
      return undefined;
    }
    const { since, belowVersion } = this.options;
    if (since !== undefined && !atLeast(version, since)) {
      const error = belowVersion?.(value);
      if (error !== undefined) throw error;
    }
    return value;
  }
}

/** The argument types of Ironic's `ironic.common.args`, with its messages. */
export const arg = {
  string: () => Arg.of(argString, 'string'),
  integer: () => Arg.of(argInteger, 'an integer'),
  boolean: () => Arg.of(argBoolean, 'a boolean'),
  uuid: () =>
    Arg.of((name, raw) => {
      const uuid = argUuid(name, raw);
      return uuid === undefined ? undefined : canonicalUuid(uuid);
    }, 'UUID'),
  /** A UUID kept as it was written (the handler looks it up as given, in whatever case). */
  uuidAsGiven: () => Arg.of(argUuid, 'UUID'),
  /** A comma-separated list, lower-cased, without blanks or duplicates. */
  stringList: () => Arg.of(argStringList, 'string'),
  /** Any JSON value. */
  any: () => Arg.of((_name, raw) => raw),
  /**
   * One of the Python types named (Ironic's `args.types`); `repr` prints the value with repr()
   * instead of str() in the message, as Ironic does for dict-accepting arguments.
   */
  types: <V = unknown>(kinds: readonly PyType[], print: 'str' | 'repr' = 'str') =>
    Arg.of((name, raw): V => {
      if (kinds.some((kind) => PY_TYPES[kind](raw))) return raw as V;
      const names = kinds.map((kind) => `<class '${kind}'>`).join(', ');
      throw new InvalidParameterValue(`Expected types ${names} for ${name}: ${print === 'repr' ? pyRepr(raw) : pyStr(raw)}`);
    }),
};

// Declarations of any type: `Arg<T>` is invariant in T (T is both read and produced), so `unknown` won't do.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Spec = Readonly<Record<string, Arg<any, boolean>>>;

/** Whether a declaration is `.required()`. */
type IsRequired<A> = A extends Arg<infer _T, infer R> ? R : never;
type ValueOf<A> = A extends Arg<infer T, boolean> ? T : never;

/**
 * A declaration's arguments less `names`, in the same order (the order Ironic checks them in). Typed
 * as the whole so that variants of one endpoint (a path, a version) share one type: the names left
 * out are then absent, never required.
 */
export function without<S extends Spec>(spec: S, names: readonly (keyof S & string)[]): S {
  return Object.fromEntries(Object.entries(spec).filter(([name]) => !names.includes(name))) as S;
}

/** The typed arguments of a declaration: required ones always present, the others optional. */
export type Args<S extends Spec> = {
  [K in keyof S as IsRequired<S[K]> extends true ? K : never]: ValueOf<S[K]>;
} & {
  [K in keyof S as IsRequired<S[K]> extends true ? never : K]?: ValueOf<S[K]>;
};

export interface RequestDecl<S extends Spec> {
  /**
   * The request's arguments, validated; throws Ironic's error for the first one that is not valid.
   * `path`: the values of the route parameters declared with the `path` option.
   */
  read(req: ApiRequest, path?: Readonly<Record<string, RawArg>>): Args<S>;
  /** The names it accepts. */
  readonly names: readonly string[];
}

/** A handler that takes the request body whole: its arguments are read beside that body. */
export interface BesideBodyDecl<S extends Spec> {
  /** As RequestDecl.read; `body` is the parsed body the handler takes. */
  read(req: ApiRequest, body: unknown, path?: Readonly<Record<string, RawArg>>): Args<S>;
  readonly names: readonly string[];
}

interface DeclOptions {
  /** Names not declared: Ironic's message, by default an InvalidParameterValue (args.validate). */
  readonly unexpected?: (names: readonly string[]) => IronicError;
  /**
   * Declared names whose values are route parameters, which Ironic's args.validate checks with the
   * others, in the order of the handler's signature (the declaration's order). Not query arguments:
   * one of these names in the query is unexpected.
   */
  readonly path?: readonly string[];
}

/**
 * The arguments pecan hands a handler: query parameters (a repeated one becomes a list) and, given
 * a body, the keys of a JSON object body.
 */
function collectArgs(req: ApiRequest, body?: unknown): Map<string, RawArg> {
  const args = new Map<string, RawArg>();
  for (const [name, values] of Object.entries(req.query)) args.set(name, values.length === 1 ? values[0] : [...values]);
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    for (const [name, value] of Object.entries(body as Record<string, unknown>)) args.set(name, value);
  }
  return args;
}

type Source<X extends unknown[]> = (req: ApiRequest, ...extra: X) => Map<string, RawArg>;

function declare<S extends Spec, X extends unknown[]>(spec: S, source: Source<X>, options: DeclOptions) {
  const names = Object.keys(spec);
  const pathNames = options.path ?? [];
  const accepted = names.filter((name) => !pathNames.includes(name));
  const unexpected = options.unexpected ?? ((extra) => new InvalidParameterValue(`Unexpected arguments: ${extra.join(', ')}`));
  return {
    names,
    read(req: ApiRequest, extra: X, path: Readonly<Record<string, RawArg>> = {}): Args<S> {
      const raw = source(req, ...extra);
      const refused = [...raw.keys()].filter((name) => !accepted.includes(name));
      if (refused.length > 0) throw unexpected(refused);
      const out: Record<string, unknown> = {};
      for (const name of names) {
        const fromPath = pathNames.length > 0 && pathNames.includes(name);
        const value = spec[name]!.read(name, fromPath ? path[name] : raw.get(name), req.version);
        if (value !== undefined) out[name] = value;
      }
      return out as Args<S>;
    },
  };
}

/** Arguments from the query string only (a repeated parameter is a list). */
export function defineQuery<S extends Spec>(spec: S, options: DeclOptions = {}): RequestDecl<S> {
  const decl = declare(spec, (req) => collectArgs(req), options);
  return { names: decl.names, read: (req, path) => decl.read(req, [], path) };
}

/** Arguments as pecan passes them to a handler without a body argument: query parameters and a JSON object body's keys. */
export function defineArgs<S extends Spec>(spec: S, options: DeclOptions = {}): RequestDecl<S> {
  const decl = declare(spec, (req) => collectArgs(req, parseBody(req)), options);
  return { names: decl.names, read: (req, path) => decl.read(req, [], path) };
}

/**
 * Query arguments of a handler that takes the body whole (pecan's body argument): a query parameter
 * that a JSON object body also names is not an argument (pecan binds it to the body's keys).
 */
export function defineBesideBody<S extends Spec>(spec: S, options: DeclOptions = {}): BesideBodyDecl<S> {
  const decl = declare(
    spec,
    (req, body: unknown) => {
      const raw = collectArgs(req);
      if (body !== null && typeof body === 'object' && !Array.isArray(body)) for (const key of Object.keys(body)) raw.delete(key);
      return raw;
    },
    options,
  );
  return { names: decl.names, read: (req, body, path) => decl.read(req, [body], path) };
}

/** An endpoint that takes no query parameter: any is Ironic's "Unexpected arguments". */
export const NO_QUERY = defineQuery({});

/** A handler that takes the body whole and nothing else: another query parameter is "Unexpected arguments". */
export const NO_QUERY_BESIDE_BODY = defineBesideBody({});

/**
 * Arguments from a JSON object body (pecan's body keyword arguments). A body that is no object is
 * read as an empty one, so a required argument is reported missing, as Ironic reports it. Extra
 * body keys are a ClientSideError, pecan's TypeError for unexpected keyword arguments.
 */
export function defineBody<S extends Spec>(spec: S, options: DeclOptions = {}): RequestDecl<S> {
  const decl = declare(
    spec,
    (req) => {
      const body = parseBody(req);
      const record = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
      return new Map(Object.entries(record));
    },
    { unexpected: (extra) => new ClientSideError(`Unexpected arguments: ${extra.join(', ')}`), ...options },
  );
  return { names: decl.names, read: (req, path) => decl.read(req, [], path) };
}
