/**
 * The fuzz suite's shared generators (fast-check): tokens and identifiers, API versions, query
 * strings, JSON values and malformed JSON, JSON nested thousands deep, JSON patches whose last
 * operation always fails, and object bodies with a key no handler takes. Each file of the suite
 * builds its requests from these.
 */
import fc from 'fast-check';

export const unicode = fc.string({ unit: 'grapheme', maxLength: 12 });
export const token = fc.oneof(
  fc.stringMatching(/^[a-z_]{1,12}$/),
  unicode,
  fc.constantFrom('', ' ', '%', '..', 'detail', 'validate', 'None', 'null'),
);
/**
 * A path segment. fetch resolves `.` and `..` segments (encoded too) before sending, so that
 * `DELETE /v1/nodes/fuzz-0/vifs/..` would delete the node itself: such a segment goes as `...`.
 */
export const enc = (s: string) => (/^\.{1,2}$/.test(s) ? '...' : encodeURIComponent(s));

/** The fuzz nodes' names (seed.ts creates them). */
export const NODE_NAMES = ['fuzz-0', 'fuzz-1', 'fuzz-2'] as const;
export const ident = fc.oneof(fc.constantFrom(...NODE_NAMES, '00000000-0000-0000-0000-000000000000'), fc.uuid(), token);
export const existing = fc.constantFrom(...NODE_NAMES);

/** Versions no server accepts, or that are not versions at all. */
const badVersion = fc.oneof(
  { arbitrary: fc.constantFrom('1.116', '2.0', '1.0', '0.9', 'LATEST', ' 1.82 ', '1.', '.1', '1.82.0'), weight: 1 },
  { arbitrary: fc.tuple(fc.integer({ min: -3, max: 1e6 }), fc.integer({ min: -3, max: 1e9 })).map(([a, b]) => `${a}.${b}`), weight: 1 },
  { arbitrary: fc.string({ maxLength: 10 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')), weight: 1 },
);
/** Mostly the versions given (so requests reach the handlers), sometimes none, sometimes anything. */
export const versionOf = (served: readonly string[]) =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...served), weight: 8 },
    { arbitrary: fc.constant(undefined), weight: 2 },
    { arbitrary: badVersion, weight: 3 },
  );

export const queryValue = fc.oneof(
  token,
  fc.integer().map(String),
  fc.constantFrom('true', 'False', 'maybe', '-1', '0', '1e3', '1001', ','),
);
/** The query arguments most handlers take. */
export const COMMON_QUERY_KEYS = [
  'limit',
  'marker',
  'sort_key',
  'sort_dir',
  'fields',
  'detail',
  'maintenance',
  'associated',
  'retired',
  'provision_state',
  'driver',
  'fault',
  'shard',
  'sharded',
  'owner',
  'instance_uuid',
  'chassis_uuid',
  'conductor',
  'reason',
  'reset_interfaces',
  'node',
  'node_uuid',
  'address',
  'portgroup',
];
/** A query string of up to four arguments, their keys mostly from `keys`. */
export const queryOf = (keys: readonly string[], values: fc.Arbitrary<string> = queryValue) =>
  fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...keys), fc.stringMatching(/^[a-z]{1,8}$/)), values), { maxLength: 4 })
    .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&')}`));
export const query = queryOf(COMMON_QUERY_KEYS);
/** A query with at least one argument no handler takes: requests with it must not change anything. */
export const badQuery = fc.tuple(query, fc.stringMatching(/^[a-z]{3,8}$/)).map(([q, k]) => `${q === '' ? '?' : `${q}&`}zz${k}=1`);

export const jsonValue = fc.jsonValue({ maxDepth: 3 });
export const badJson = fc.oneof(
  fc.constantFrom('{', '[', '{"a":', 'nul', '{"driver": "fake-hardware",}', "{'a': 1}", '\u0000', '""', '[]'),
  fc.string({ maxLength: 40 }),
);
export const bigBody = fc
  .integer({ min: 100_000, max: 1_500_000 })
  .map((n) => JSON.stringify({ driver: 'fake-hardware', description: 'x'.repeat(n) }));

/** The node paths the original patches name. */
const NODE_PATCH_PATHS = [
  '/extra/k',
  '/extra/nested/k',
  '/name',
  '/driver',
  '/traits',
  '/uuid',
  '/maintenance',
  '/properties/cpus',
  '/instance_uuid',
  '/owner',
  '/extra/list/0',
  '/extra/list/-',
  '/boot_interface',
  '/protected',
  '/retired',
  '/network_data',
  '/description/x',
];
/** One JSON patch operation, its path mostly from `paths`, its value any JSON (`values`). */
export const patchOpOf = (paths: readonly string[], values: fc.Arbitrary<unknown> = jsonValue) =>
  fc.record(
    {
      op: fc.oneof(fc.constantFrom('add', 'replace', 'remove', 'move', 'copy', 'test'), token),
      path: fc.oneof(
        fc.constantFrom(...paths),
        token.map((t) => `/${t}`),
        token,
      ),
      value: values,
    },
    { requiredKeys: ['op'] },
  );
/** A patch whose last operation always fails, so the patch as a whole must change nothing. */
export const failingPatchOf = (paths: readonly string[], values?: fc.Arbitrary<unknown>) =>
  fc
    .tuple(fc.array(patchOpOf(paths, values), { maxLength: 4 }), fc.constantFrom('/extra/zz_missing_key', '/driver_info/zz_missing/deeper'))
    .map(([ops, missing]) => JSON.stringify([...ops, { op: 'remove', path: missing }]));
export const failingPatch = failingPatchOf(NODE_PATCH_PATHS);

/** JSON nested `depth` deep (objects and lists), as text: parsers, validators and error messages must not overflow. */
export const deep = fc
  .tuple(fc.integer({ min: 50, max: 5000 }), fc.constantFrom('{"a":', '['), jsonValue)
  .map(([depth, open, leaf]) => `${open.repeat(depth)}${JSON.stringify(leaf)}${(open === '[' ? ']' : '}').repeat(depth)}`);
/** A JSON value, sometimes very deeply nested. */
export const anyValue = fc.oneof({ arbitrary: jsonValue.map((v) => JSON.stringify(v)), weight: 4 }, { arbitrary: deep, weight: 1 });
/** A JSON object body with `fields` (their values from `values`) and, when `unknown`, one key no handler takes. */
export const objectBody = (fields: readonly string[], unknown: boolean, values: fc.Arbitrary<string> = anyValue) =>
  fc
    .tuple(fc.dictionary(fc.constantFrom(...fields), values, { maxKeys: 4 }), fc.stringMatching(/^[a-z]{1,6}$/))
    .map(
      ([o, k]) =>
        `{${[...Object.entries(o).map(([key, v]) => `${JSON.stringify(key)}:${v}`), ...(unknown ? [`"zz_${k}":1`] : [])].join(',')}}`,
    );
export const MACS = fc.oneof(
  fc.constantFrom('52:54:00:fa:00:02', '52:54:00:00:00:00', 'zz:zz', ''),
  fc.array(fc.stringMatching(/^[0-9a-f]{2}$/), { minLength: 1, maxLength: 8 }).map((p) => p.join(':')),
);
/** Values of the wrong type for a string, a boolean or a list field alike. */
export const wrongType = fc.constantFrom('1', 'true', '[]', '{}', '"maybe"', '-1', '1.5', '[1,2]', '{"a":1}', '"x !"');
/** A string `min` to `max` characters long, as JSON: longer than a field allows. */
export const oversized = (min: number, max = 20_000) => fc.integer({ min, max }).map((n) => JSON.stringify('v'.repeat(n)));
