import { applyPatch } from '../../../functions/api/patch';
import { maskPasswordText, maskPasswords } from '../../../functions/api/views/sanitize';
import { validateSchema } from '../../../functions/api/validation';
import { NODE_SCHEMA, PATCH_SCHEMA, TRAIT_SCHEMA } from '../../../functions/api/schemas/node';
import { argInteger, argStringList } from '../../../functions/api/args';
import { pyStr } from '../../../functions/common/pyrepr';

describe('applyPatch words failures as Python jsonpatch does', () => {
  const doc = { extra: { a: 1 }, name: 'abc', description: null, driver_info: {} };
  it.each([
    [[{ op: 'remove', path: '/extra/foo' }], "Reason: can't remove a non-existent object 'foo'"],
    [[{ op: 'replace', path: '/extra/foo', value: 1 }], "Reason: can't replace a non-existent object 'foo'"],
    [[{ op: 'add', path: '/extra/foo/bar', value: 1 }], "Reason: member 'foo' not found in {'a': 1}"],
    [[{ op: 'add', path: '/extra' }], "Reason: The operation does not contain a 'value' member"],
    [[{ op: 'add', path: '/description/x', value: 1 }], "Reason: Document '<class 'NoneType'>' does not support indexing"],
  ])('%j', (ops, reason) => {
    expect(() => applyPatch(doc, ops as never)).toThrow(reason);
  });

  it('reaches keys holding "/" and "~" escaped as RFC 6901 says (~1, ~0), and refuses other escapes', () => {
    const keyed = { extra: { 'a/b': 1, '~c~': 2, 'a~1b': 3 } };
    expect(applyPatch(keyed, [{ op: 'replace', path: '/extra/a~1b', value: 'x' }]).extra).toEqual({ 'a/b': 'x', '~c~': 2, 'a~1b': 3 });
    expect(applyPatch(keyed, [{ op: 'remove', path: '/extra/~0c~0' }]).extra).toEqual({ 'a/b': 1, 'a~1b': 3 });
    expect(applyPatch(keyed, [{ op: 'remove', path: '/extra/a~01b' }]).extra).toEqual({ 'a/b': 1, '~c~': 2 });
    expect(() => applyPatch(keyed, [{ op: 'remove', path: '/extra/a/b' }])).toThrow("Reason: member 'a' not found in");
    expect(() => applyPatch(keyed, [{ op: 'remove', path: '/extra/x~1y' }])).toThrow("Reason: can't remove a non-existent object 'x/y'");
    expect(() => applyPatch(keyed, [{ op: 'replace', path: '/extra/a~2b', value: 1 }])).toThrow('Reason: Found invalid escape ~2');
    expect(() => applyPatch(keyed, [{ op: 'add', path: '/extra/a~', value: 1 }])).toThrow('Reason: Found invalid escape ~');
  });

  it('applies operations in order on a copy, and refuses new root attributes', () => {
    const out = applyPatch(doc, [
      { op: 'add', path: '/extra/b', value: [1] },
      { op: 'replace', path: '/extra/b', value: 2 },
      { op: 'remove', path: '/extra/a' },
    ]);
    expect(out.extra).toEqual({ b: 2 });
    expect(doc.extra).toEqual({ a: 1 });
    expect(() => applyPatch(doc, [{ op: 'add', path: '/foo', value: 1 }])).toThrow(
      'Adding a new attribute (/foo) to the root of the resource is not allowed',
    );
  });
});

describe('validateSchema picks the error jsonschema’s best_match picks', () => {
  it.each([
    // The shallower error wins over a nested type error; extras are listed sorted.
    [
      NODE_SCHEMA,
      'node',
      { driver: 5, zeta: 1, alpha: 2 },
      "Schema error for node: Additional properties are not allowed ('alpha', 'zeta' were unexpected)",
    ],
    [PATCH_SCHEMA, 'patch', [{ op: 'add', path: 'extra', value: 1 }], "Schema error for patch: 'extra' does not match '^(/[\\\\w-]+)+$'"],
    [PATCH_SCHEMA, 'patch', { op: 'add' }, "Schema error for patch: {'op': 'add'} is not of type 'array'"],
    [
      TRAIT_SCHEMA,
      'trait',
      'foo',
      "Schema error for trait: 'foo' is not valid under any of the given schemas. Possible root cause: 'foo' does not match '^CUSTOM_[A-Z0-9_]+$'",
    ],
    [TRAIT_SCHEMA, 'trait', `CUSTOM_${'A'.repeat(250)}`, `Schema error for trait: 'CUSTOM_${'A'.repeat(250)}' is too long`],
  ])('%#', (schema, name, value, message) => {
    expect(() => validateSchema(name as string, schema as never, value)).toThrow(message as string);
  });

  it('accepts non-ASCII word characters in patch paths, as Python’s \\w does', () => {
    expect(() => validateSchema('patch', PATCH_SCHEMA, [{ op: 'add', path: '/extra/café', value: 1 }])).not.toThrow();
  });
});

describe('masking', () => {
  it('masks secrets written inside strings, like oslo’s mask_password', () => {
    expect(maskPasswordText('password=abc user=x')).toBe('password=****** user=x');
    expect(maskPasswordText('--password abc')).toBe('--password ******');
    expect(maskPasswordText('"token": "abc"')).toBe('"token": "******"');
    expect(maskPasswords({ note: 'password=abc', nested: { list: ['password=x'] } })).toEqual({
      note: 'password=******',
      nested: { list: ['password=x'] },
    });
  });
});

describe('arguments', () => {
  it('reads values as Ironic’s args module does', () => {
    expect(argInteger('limit', ' 12 ')).toBe(12);
    expect(() => argInteger('limit', ['1', '2'])).toThrow("Expected an integer for limit: ['1', '2']");
    expect(argStringList('fields', 'Name, UUID,,name')).toEqual(['name', 'uuid']);
    expect(pyStr(true)).toBe('True');
  });
});
