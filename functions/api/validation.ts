/**
 * Request validation with JSON schema (Ajv), reporting errors in the words Ironic uses: Ironic
 * validates with Python's jsonschema and shows its message ("Schema error for node: 'driver' is a
 * required property"), so Ajv's errors are rewritten into that form.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { InvalidParameterValue } from '#common/errors';
import { pyRepr } from './pyrepr';

const ajv = new Ajv({ allErrors: false, strict: false, verbose: true });
const compiled = new WeakMap<object, ValidateFunction>();

export type JsonSchema = Record<string, unknown>;

function validator(schema: JsonSchema): ValidateFunction {
  let fn = compiled.get(schema);
  if (fn === undefined) {
    fn = ajv.compile(schema);
    compiled.set(schema, fn);
  }
  return fn;
}

/** Python jsonschema's message for the first error Ajv found. */
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
      const extras = Object.keys(value as object).filter((k) => !schemaProps.includes(k));
      return extras.length === 1
        ? `Additional properties are not allowed (${pyRepr(extras[0])} was unexpected)`
        : `Additional properties are not allowed (${extras.map((e) => pyRepr(e)).join(', ')} were unexpected)`;
    }
    case 'maxLength':
      return `${pyRepr(value)} is too long`;
    case 'minLength':
      return `${pyRepr(value)} is too short`;
    case 'maxItems':
      return `${pyRepr(value)} is too long`;
    case 'minItems':
      return `${pyRepr(value)} is too short`;
    case 'enum':
      return `${pyRepr(value)} is not one of ${pyRepr(params.allowedValues)}`;
    case 'pattern':
      return `${pyRepr(value)} does not match ${pyRepr(params.pattern)}`;
    case 'minimum':
      return `${pyRepr(value)} is less than the minimum of ${pyRepr(params.limit)}`;
    case 'maximum':
      return `${pyRepr(value)} is greater than the maximum of ${pyRepr(params.limit)}`;
    case 'anyOf':
    case 'oneOf':
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

/** Validate `value` against `schema`; InvalidParameterValue "Schema error for <name>: …" if it fails. */
export function validateSchema(name: string, schema: JsonSchema, value: unknown): void {
  const fn = validator(schema);
  if (fn(value)) return;
  const error = fn.errors?.[0];
  throw new InvalidParameterValue(`Schema error for ${name}: ${error ? pythonMessage(error, value) : 'invalid'}`);
}

/** oslo's strict bool_from_string, as Ironic's args.boolean uses it. */
const TRUE = ['1', 't', 'true', 'on', 'y', 'yes'];
const FALSE = ['0', 'f', 'false', 'off', 'n', 'no'];

export function parseBoolean(name: string, value: unknown): boolean | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value;
  const text = String(value).trim().toLowerCase();
  if (TRUE.includes(text)) return true;
  if (FALSE.includes(text)) return false;
  const acceptable = [...TRUE, ...FALSE]
    .sort()
    .map((v) => `'${v}'`)
    .join(', ');
  throw new InvalidParameterValue(`Invalid ${name}: Unrecognized value ${pyRepr(value)}, acceptable values are: ${acceptable}`);
}
