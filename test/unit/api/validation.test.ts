import { pyRepr } from '../../../functions/api/pyrepr';
import { parseBoolean, validateSchema } from '../../../functions/api/validation';
import { NODE_SCHEMA } from '../../../functions/api/schemas/node';
import { maskPasswords } from '../../../functions/api/views/sanitize';

describe('pyRepr', () => {
  it.each([
    [null, 'None'],
    [true, 'True'],
    [5, '5'],
    ['a b', "'a b'"],
    ["it's", '"it\'s"'],
    [[1, 'x'], "[1, 'x']"],
    [{ a: null }, "{'a': None}"],
  ])('%j → %s', (value, text) => expect(pyRepr(value)).toBe(text));
});

describe('validateSchema reports Python jsonschema’s message', () => {
  it.each([
    [{}, "Schema error for node: 'driver' is a required property"],
    [{ driver: 5 }, "Schema error for node: 5 is not of type 'string'"],
    [[], "Schema error for node: [] is not of type 'object'"],
    [{ driver: 'x', foo: 1 }, "Schema error for node: Additional properties are not allowed ('foo' was unexpected)"],
    [{ driver: 'x', name: 3 }, "Schema error for node: 3 is not of type 'string', 'null'"],
    [{ driver: 'x', description: 'd'.repeat(4097) }, `Schema error for node: '${'d'.repeat(4097)}' is too long`],
  ])('%j', (body, message) => {
    expect(() => validateSchema('node', NODE_SCHEMA, body)).toThrow(message);
  });

  it('accepts a valid node', () => {
    expect(() => validateSchema('node', NODE_SCHEMA, { driver: 'fake-hardware', name: null, maintenance: 'true' })).not.toThrow();
  });
});

describe('parseBoolean', () => {
  it('reads oslo’s spellings and refuses others with Ironic’s message', () => {
    expect(parseBoolean('maintenance', 'Yes')).toBe(true);
    expect(parseBoolean('maintenance', '0')).toBe(false);
    expect(() => parseBoolean('maintenance', 'maybe')).toThrow(
      "Invalid maintenance: Unrecognized value 'maybe', acceptable values are: '0', '1', 'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', 'y', 'yes'",
    );
  });
});

describe('maskPasswords', () => {
  it('masks any value under a sensitive key, recursively, like oslo', () => {
    expect(maskPasswords({ redfish_password: 'x', redfish_username: 'u', nested: { auth_token: 1 }, plain: 'p' })).toEqual({
      redfish_password: '******',
      redfish_username: 'u',
      nested: { auth_token: '******' },
      plain: 'p',
    });
  });
});
