import { describe, expect, it } from '@jest/globals';
import { HttpError, InvalidParameterValue, httpErrors } from '#common/errors';
import { argUuidOrName } from '#api/args';

describe('argUuidOrName (args.uuid_or_name)', () => {
  it('hands over a UUID or a logical name as given, and nothing for an absent or null value', () => {
    expect(argUuidOrName('node', '1be26c0b-03f2-4d2e-ae87-c02d7f33c123')).toBe('1be26c0b-03f2-4d2e-ae87-c02d7f33c123');
    expect(argUuidOrName('node', 'rack-1.node_2~a')).toBe('rack-1.node_2~a');
    expect(argUuidOrName('node', undefined)).toBeUndefined();
    expect(argUuidOrName('node', null)).toBeUndefined();
  });

  it("refuses anything else with Ironic's message, printing the value as str() does", () => {
    expect(() => argUuidOrName('portgroup', 'not a name')).toThrow(
      new InvalidParameterValue('Expected UUID or name for portgroup: not a name'),
    );
    expect(() => argUuidOrName('node', 'x'.repeat(256))).toThrow(InvalidParameterValue);
    expect(() => argUuidOrName('node', ['a', 'b'])).toThrow(new InvalidParameterValue("Expected UUID or name for node: ['a', 'b']"));
    expect(() => argUuidOrName('node', 12)).toThrow(new InvalidParameterValue('Expected UUID or name for node: 12'));
  });

  it('builds the error the caller names, with the same message (the routing checks answer in webob form)', () => {
    expect(() => argUuidOrName('node', 'a b', httpErrors.badRequest)).toThrow(HttpError);
    expect(() => argUuidOrName('node', 'a b', httpErrors.badRequest)).toThrow(
      expect.objectContaining({ status: 400, title: 'Bad Request', message: 'Expected UUID or name for node: a b' }),
    );
    expect(argUuidOrName('node', 'node-1', httpErrors.badRequest)).toBe('node-1');
  });
});
