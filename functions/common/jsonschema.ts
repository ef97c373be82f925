/**
 * Request validation with JSON schema (Ajv), reporting errors in the words Ironic uses: Ironic
 * validates with Python's jsonschema and shows one error ("Schema error for node: 'driver' is a
 * required property"), chosen by jsonschema's `best_match`, plus "Possible root cause" for errors
 * under anyOf/oneOf. Ajv collects every error; this module picks the one jsonschema would pick
 * (shallowest in the instance, anyOf/oneOf weakest, ties in schema order) and words it as Python
 * does. Written here because no library reproduces jsonschema's choice and wording.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { InvalidParameterValue } from './errors';
import { ACCEPTABLE_BOOLEANS, boolFromString } from './strutils';
import { pyPformat, pyRepr } from './pyrepr';

const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
const compiled = new WeakMap<object, ValidateFunction>();

export type JsonSchema = Record<string, unknown>;

/** Schema key giving the pattern as Ironic writes it (Python's `\w` is Unicode-aware, JavaScript's is not). */
export const PYTHON_PATTERN = 'x-python-pattern';

function validator(schema: JsonSchema): ValidateFunction {
  let fn = compiled.get(schema);
  if (fn === undefined) {
    fn = ajv.compile(schema);
    compiled.set(schema, fn);
  }
  return fn;
}

/** Python jsonschema's message for one error. */
export function pythonMessage(error: ErrorObject, root: unknown): string {
  const value = valueAt(root, error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type': {
      const types = Array.isArray(params.type) ? (params.type as string[]) : String(params.type).split(',');
      return `${pyRepr(value)} is not of type ${types.map((t) => `'${t}'`).join(', ')}`;
    }
    case 'required':
      return `'${String(params.missingProperty)}' is a required property`;
    case 'additionalProperties': {
      const schemaProps = Object.keys((error.parentSchema?.properties as object | undefined) ?? {});
      // Python sorts the unexpected names (by code point) before listing them.
      const extras = Object.keys(value as object)
        .filter((k) => !schemaProps.includes(k))
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      return extras.length === 1
        ? `Additional properties are not allowed (${pyRepr(extras[0])} was unexpected)`
        : `Additional properties are not allowed (${extras.map((e) => pyRepr(e)).join(', ')} were unexpected)`;
    }
    case 'maxLength':
    case 'maxItems':
      return `${pyRepr(value)} is too long`;
    case 'minLength':
    case 'minItems':
      return `${pyRepr(value)} is too short`;
    case 'enum':
      return `${pyRepr(value)} is not one of ${pyRepr(params.allowedValues)}`;
    case 'pattern': {
      const pattern = (error.parentSchema?.[PYTHON_PATTERN] as string | undefined) ?? params.pattern;
      return `${pyRepr(value)} does not match ${pyRepr(pattern)}`;
    }
    case 'minimum':
      return `${pyRepr(value)} is less than the minimum of ${pyRepr(params.limit)}`;
    // Draft 4's `minimum` with `exclusiveMinimum: true`, which Ironic's RAID schema uses.
    case 'exclusiveMinimum':
      return `${pyRepr(value)} is less than or equal to the minimum of ${pyRepr(params.limit)}`;
    case 'dependencies':
      return `${pyRepr(params.missingProperty)} is a dependency of ${pyRepr(params.property)}`;
    case 'maximum':
      return `${pyRepr(value)} is greater than the maximum of ${pyRepr(params.limit)}`;
    case 'oneOf': {
      // More than one branch fits: jsonschema lists the later fitting ones, then the first.
      const passing = params.passingSchemas as number[] | null | undefined;
      const branches = error.schema as unknown[];
      if (Array.isArray(passing) && passing.length > 1) {
        const order = [...passing.slice(1), passing[0] as number];
        return `${pyRepr(value)} is valid under each of ${order.map((i) => pyRepr(branches[i])).join(', ')}`;
      }
      return `${pyRepr(value)} is not valid under any of the given schemas`;
    }
    case 'anyOf':
      return `${pyRepr(value)} is not valid under any of the given schemas`;
    default:
      return `${pyRepr(value)} is not valid: ${error.message ?? error.keyword}`;
  }
}

function valueAt(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let current: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    current = (current as Record<string, unknown> | undefined)?.[key];
  }
  return current;
}

// --- jsonschema's best_match ---------------------------------------------------------------------

interface Candidate {
  readonly error: ErrorObject;
  /** Position in jsonschema's iteration order (schema keys in order, array items by index). */
  readonly order: number[];
  /** Errors under this anyOf/oneOf error's branches. */
  context: Candidate[];
}

const WEAK = new Set(['anyOf', 'oneOf']);

function isType(value: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    default:
      return false;
  }
}

/** jsonschema's `relevance` key: shallow errors first, weak keywords last, type mismatches last. */
function relevance(c: Candidate): number[] {
  const depth = c.error.instancePath === '' ? 0 : c.error.instancePath.split('/').length - 1;
  const expected = c.error.parentSchema?.type as string | string[] | undefined;
  const matchesType = expected !== undefined && (Array.isArray(expected) ? expected : [expected]).some((t) => isType(c.error.data, t));
  return [-depth, WEAK.has(c.error.keyword) ? 0 : 1, 0, matchesType ? 0 : 1];
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? -1) - (b[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}

/** Where an error stands in jsonschema's iteration order. */
function orderOf(schema: JsonSchema, error: ErrorObject): number[] {
  const instance = error.instancePath === '' ? [] : error.instancePath.slice(1).split('/');
  let node: unknown = schema;
  let depth = 0;
  const order: number[] = [];
  const segments = error.schemaPath.replace(/^#\//, '').split('/');
  for (let i = 0; i < segments.length; i++) {
    const segment = (segments[i] as string).replace(/~1/g, '/').replace(/~0/g, '~');
    const keys = node !== null && typeof node === 'object' ? Object.keys(node) : [];
    order.push(keys.indexOf(segment));
    if (segment === 'items' || (segment === 'properties' && i + 1 < segments.length)) {
      if (segment === 'items') order.push(Number(instance[depth] ?? 0));
      depth++;
    }
    node = (node as Record<string, unknown> | undefined)?.[segment];
  }
  return order;
}

function candidates(schema: JsonSchema, errors: readonly ErrorObject[]): Candidate[] {
  const all: Candidate[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    // Ajv reports each unexpected property; jsonschema reports them in one error.
    if (error.keyword === 'additionalProperties') {
      const key = `${error.instancePath}|${error.schemaPath}`;
      if (seen.has(key)) continue;
      seen.add(key);
    }
    all.push({ error, order: orderOf(schema, error), context: [] });
  }
  // An error under an anyOf/oneOf branch belongs to that error's context, not to the top level.
  const top: Candidate[] = [];
  const parentOf = (c: Candidate) =>
    all
      .filter((p) => p !== c && WEAK.has(p.error.keyword) && c.error.schemaPath.startsWith(`${p.error.schemaPath}/`))
      .sort((a, b) => b.error.schemaPath.length - a.error.schemaPath.length)[0];
  for (const c of all) {
    const parent = parentOf(c);
    if (parent) parent.context.push(c);
    else top.push(c);
  }
  for (const c of all) c.context.sort((a, b) => compare(a.order, b.order));
  return top.sort((a, b) => compare(a.order, b.order));
}

/** `best_match`: the most relevant error (the first of equals), descending into anyOf contexts. */
function bestMatch(errors: readonly Candidate[]): Candidate | undefined {
  return bestMatchChain(errors).at(-1);
}

/** `best_match` and the errors it descended through, outermost first. */
function bestMatchChain(errors: readonly Candidate[]): Candidate[] {
  let best: Candidate | undefined;
  for (const c of errors) if (best === undefined || compare(relevance(c), relevance(best)) > 0) best = c;
  const chain: Candidate[] = best === undefined ? [] : [best];
  while (best !== undefined && best.context.length > 0) {
    const sorted = [...best.context].sort((a, b) => compare(relevance(a), relevance(b)));
    const [first, second] = sorted as [Candidate, Candidate | undefined];
    if (second !== undefined && compare(relevance(first), relevance(second)) === 0) break;
    best = first;
    chain.push(best);
  }
  return chain;
}

/** jsonschema's `format_as_index`: `schema[0]['properties']`. */
function asIndex(container: string, indices: readonly (string | number)[]): string {
  return container + indices.map((i) => `[${pyRepr(i)}]`).join('');
}

/** JSON pointer segments; those indexing an array as numbers (as Python has them). */
function pointerSegments(pointer: string, root: unknown): (string | number)[] {
  if (pointer === '' || pointer === '#') return [];
  let current: unknown = root;
  return pointer
    .replace(/^#/, '')
    .slice(1)
    .split('/')
    .map((raw) => {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      const segment = Array.isArray(current) && /^\d+$/.test(key) ? Number(key) : key;
      current = (current as Record<string, unknown> | undefined)?.[key];
      return segment;
    });
}

/**
 * What Python's `str()` of the error `jsonschema.validate` raises reads — the message, then the
 * (sub)schema that failed and the instance, both pretty-printed — or undefined when `value` is valid.
 * Ironic puts this whole text in a few messages (e.g. "Invalid configdrive format: …").
 */
export function schemaErrorText(schema: JsonSchema, value: unknown): string | undefined {
  const fn = validator(schema);
  if (fn(value)) return undefined;
  const chain = bestMatchChain(candidates(schema, fn.errors ?? []));
  const best = chain.at(-1);
  if (best === undefined) return 'invalid';
  const parent = chain.at(-2);
  const schemaPath = pointerSegments(best.error.schemaPath, schema);
  const relativeSchema = schemaPath.slice(parent === undefined ? 0 : pointerSegments(parent.error.schemaPath, schema).length);
  const instancePath = pointerSegments(best.error.instancePath, value);
  const relativeInstance = instancePath.slice(parent === undefined ? 0 : pointerSegments(parent.error.instancePath, value).length);
  const indent = (text: string) => text.split('\n').join('\n    ');
  return [
    pythonMessage(best.error, value),
    '',
    `Failed validating ${pyRepr(best.error.keyword)} in ${asIndex('schema', relativeSchema.slice(0, -1))}:`,
    `    ${indent(pyPformat(best.error.parentSchema, 72))}`,
    '',
    `On ${asIndex('instance', relativeInstance)}:`,
    `    ${indent(pyPformat(valueAt(value, best.error.instancePath), 72))}`,
  ].join('\n');
}

/** jsonschema's message of the error `best_match` picks (its `e.message`), or undefined when `value` fits. */
export function schemaErrorMessage(schema: JsonSchema, value: unknown): string | undefined {
  const fn = validator(schema);
  if (fn(value)) return undefined;
  const best = bestMatch(candidates(schema, fn.errors ?? []));
  return best === undefined ? 'invalid' : pythonMessage(best.error, value);
}

/**
 * Validate `value` against `schema`; InvalidParameterValue "Schema error for <name>: …" if it
 * fails, with Ironic's "Possible root cause" when the error has sub-errors.
 */
export function validateSchema(name: string, schema: JsonSchema, value: unknown): void {
  validateWithPrefix(`Schema error for ${name}`, schema, value);
}

/**
 * Validate a request body or query against `schema` as Ironic master's `request_body_schema` and
 * `request_query_schema` decorators do: InvalidParameterValue "Schema error: …".
 */
export function validateRequestSchema(schema: JsonSchema, value: unknown): void {
  validateWithPrefix('Schema error', schema, value);
}

function validateWithPrefix(prefix: string, schema: JsonSchema, value: unknown): void {
  const fn = validator(schema);
  if (fn(value)) return;
  const best = bestMatch(candidates(schema, fn.errors ?? []));
  if (best === undefined) throw new InvalidParameterValue(`${prefix}: invalid`);
  let message = `${prefix}: ${pythonMessage(best.error, value)}`;
  let current: Candidate | undefined = best;
  let cause: string | undefined;
  while (current !== undefined && current.context.length > 0) {
    current = bestMatch(current.context);
    if (current) cause = pythonMessage(current.error, value);
  }
  if (cause !== undefined) message += `. Possible root cause: ${cause}`;
  throw new InvalidParameterValue(message);
}

/** oslo's strict bool_from_string, as Ironic's args.boolean uses it: anything not a boolean is read through str(). */

export function parseBoolean(name: string, value: unknown): boolean | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value;
  const subject = typeof value === 'string' ? value : pyRepr(value);
  const parsed = boolFromString(subject);
  if (parsed !== undefined) return parsed;
  throw new InvalidParameterValue(`Invalid ${name}: Unrecognized value '${subject}', acceptable values are: ${ACCEPTABLE_BOOLEANS}`);
}
