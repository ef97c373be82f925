import { describe, expect, it } from '@jest/globals';
import { ClientSideError, InvalidParameterValue, MissingParameterValue, NotAcceptable } from '#common/errors';
import type { ApiRequest } from '#api/http';
import { NO_QUERY_BESIDE_BODY, arg, defineArgs, defineBesideBody, defineBody, defineQuery, without } from '#api/request';

function request(minor: number, body?: unknown, query: Record<string, string[]> = {}): ApiRequest {
  return {
    method: 'PUT',
    path: '/v1/nodes/n/states/power',
    query,
    headers: {},
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    requestId: 'req-1',
    baseUrl: 'http://127.0.0.1:6385',
    version: { major: 1, minor },
  };
}

const Power = defineBody({
  target: arg.string().required(),
  timeout: arg.integer().since(27),
});

describe('a body declaration', () => {
  it('hands the controller typed values, omitting what is absent or null', () => {
    expect(Power.read(request(27, { target: 'power on', timeout: '30' }))).toEqual({ target: 'power on', timeout: 30 });
    expect(Power.read(request(27, { target: 'power on', timeout: null }))).toEqual({ target: 'power on' });
  });

  it('reports a missing required argument, also for a body that is not an object or is absent', () => {
    for (const body of [{}, [], 'null', undefined]) {
      expect(() => Power.read(request(27, body))).toThrow(new MissingParameterValue('Missing mandatory parameter: target'));
    }
    expect(() => Power.read(request(27, { target: null }))).toThrow(new InvalidParameterValue('Expected string for target: None'));
  });

  it('reads a null required argument as missing, or hands it over, where the handler does so', () => {
    const Decl = defineArgs({
      state: arg.string().required({ null: 'missing' }),
      enabled: arg.boolean().nullable().required(),
      target: arg.string().nullable(),
    });
    expect(() => Decl.read(request(1, { state: null, enabled: true }))).toThrow(
      new MissingParameterValue('Missing mandatory parameter: state'),
    );
    expect(() => Decl.read(request(1, { state: 5, enabled: true }))).toThrow(new InvalidParameterValue('Expected string for state: 5'));
    expect(() => Decl.read(request(1, { state: 'on' }))).toThrow(new MissingParameterValue('Missing mandatory parameter: enabled'));
    expect(Decl.read(request(1, { state: 'on', enabled: null, target: null }))).toEqual({ state: 'on', enabled: null, target: null });
    expect(Decl.read(request(1, { state: 'on', enabled: 'yes' }))).toEqual({ state: 'on', enabled: true });
    expect(() => Decl.read(request(1, { state: 'on', enabled: 'maybe' }))).toThrow(InvalidParameterValue);
  });

  it('refuses other keys as pecan does, before looking at the declared ones', () => {
    const err = (() => {
      try {
        Power.read(request(27, { tagret: 'power on', force: true }));
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(ClientSideError);
    expect((err as Error).message).toBe('Unexpected arguments: tagret, force');
  });

  it('refuses an argument below the version that introduced it, and types before versions', () => {
    expect(() => Power.read(request(26, { target: 'power on', timeout: 10 }))).toThrow(NotAcceptable);
    expect(() => Power.read(request(26, { target: 'power on', timeout: 'soon' }))).toThrow(
      new InvalidParameterValue('Expected an integer for timeout: soon'),
    );
    expect(Power.read(request(26, { target: 'power on' }))).toEqual({ target: 'power on' });
  });

  it('lets a version check pass values Ironic lets through', () => {
    const Steps = defineBody({
      steps: arg
        .types<unknown[] | null>(['NoneType', 'list'])
        .since(69, (s) => (s && s.length > 0 ? new NotAcceptable('too old') : undefined)),
    });
    expect(Steps.read(request(68, { steps: [] }))).toEqual({ steps: [] });
    expect(Steps.read(request(68, { steps: null }))).toEqual({ steps: null });
    expect(() => Steps.read(request(68, { steps: [{}] }))).toThrow(new NotAcceptable('too old'));
  });
});

describe('argument types', () => {
  it("names Python's types as Ironic's args.types does, with str() or repr() of the value", () => {
    const Decl = defineBody({
      steps: arg.types(['NoneType', 'list']),
      drive: arg.types(['NoneType', 'dict', 'str'], 'repr'),
    });
    expect(() => Decl.read(request(1, { steps: { a: 'b' } }))).toThrow(
      new InvalidParameterValue("Expected types <class 'NoneType'>, <class 'list'> for steps: {'a': 'b'}"),
    );
    expect(() => Decl.read(request(1, { drive: 5 }))).toThrow(
      new InvalidParameterValue("Expected types <class 'NoneType'>, <class 'dict'>, <class 'str'> for drive: 5"),
    );
  });

  it('checks a JSON schema after the type, with the message the endpoint gives', () => {
    const Decl = defineBody({
      traits: arg
        .types<string[]>(['list'])
        .matching({ type: 'array', items: { type: 'string' } }, (detail) => new InvalidParameterValue(`Invalid traits: ${detail}`)),
    });
    expect(Decl.read(request(1, { traits: ['CUSTOM_A'] }))).toEqual({ traits: ['CUSTOM_A'] });
    expect(() => Decl.read(request(1, { traits: [1] }))).toThrow(/^Invalid traits: 1 is not of type 'string'/);
  });

  it('reads booleans, UUIDs and comma lists the way Ironic does', () => {
    const Decl = defineQuery({ detail: arg.boolean(), node: arg.uuid(), fields: arg.stringList() });
    expect(
      Decl.read(request(1, undefined, { detail: ['True'], node: ['1BE26C0B-03F2-4D2E-AE87-C02D7F33C123'], fields: ['uuid, Name,,uuid'] })),
    ).toEqual({ detail: true, node: '1be26c0b-03f2-4d2e-ae87-c02d7f33c123', fields: ['uuid', 'name'] });
    expect(() => Decl.read(request(1, undefined, { node: ['nope'] }))).toThrow(new InvalidParameterValue('Expected UUID for node: nope'));
    expect(() => Decl.read(request(1, undefined, { other: ['x'] }))).toThrow(new InvalidParameterValue('Unexpected arguments: other'));
  });

  it('takes query parameters and a JSON body together where pecan passes both as arguments', () => {
    const Decl = defineArgs({ reason: arg.string() });
    expect(Decl.read(request(1, { reason: 'disk' }))).toEqual({ reason: 'disk' });
    expect(Decl.read(request(1, undefined, { reason: ['fan'] }))).toEqual({ reason: 'fan' });
  });
});

describe('route parameters and body handlers', () => {
  it('checks a declared route parameter in declaration order, after unexpected arguments, and not from the query', () => {
    const Show = defineQuery({ ident: arg.uuid(), fields: arg.stringList() }, { path: ['ident'] });
    const uuid = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123';
    expect(Show.read(request(1, undefined, { fields: ['uuid'] }), { ident: uuid })).toEqual({ ident: uuid, fields: ['uuid'] });
    expect(() => Show.read(request(1, undefined, { fields: ['a', 'b'] }), { ident: 'nope' })).toThrow(
      new InvalidParameterValue('Expected UUID for ident: nope'),
    );
    expect(() => Show.read(request(1, undefined, { other: ['x'] }), { ident: 'nope' })).toThrow(
      new InvalidParameterValue('Unexpected arguments: other'),
    );
    expect(() => Show.read(request(1, undefined, { ident: [uuid] }), { ident: uuid })).toThrow(
      new InvalidParameterValue('Unexpected arguments: ident'),
    );
  });

  it('reads query arguments beside a body taken whole, leaving out the names the body has', () => {
    const Patch = defineBesideBody({ reset_interfaces: arg.boolean() });
    expect(Patch.read(request(1, [{ op: 'add' }], { reset_interfaces: ['true'] }), [{ op: 'add' }])).toEqual({ reset_interfaces: true });
    expect(() => Patch.read(request(1, undefined, { other: ['x'] }), undefined)).toThrow(
      new InvalidParameterValue('Unexpected arguments: other'),
    );
    expect(NO_QUERY_BESIDE_BODY.read(request(1, { name: 'a' }, { name: ['b'] }), { name: 'a' })).toEqual({});
    expect(() => NO_QUERY_BESIDE_BODY.read(request(1, ['x'], { name: ['b'] }), ['x'])).toThrow(
      new InvalidParameterValue('Unexpected arguments: name'),
    );
  });
});

describe('without', () => {
  it('leaves names out of a declaration and keeps the order the others are checked in', () => {
    const spec = { limit: arg.integer(), fields: arg.stringList(), detail: arg.boolean() };
    const Detail = defineQuery(without(spec, ['fields']));
    expect(Detail.names).toEqual(['limit', 'detail']);
    expect(() => Detail.read(request(1, undefined, { fields: ['uuid'] }))).toThrow(
      new InvalidParameterValue('Unexpected arguments: fields'),
    );
    expect(() => Detail.read(request(1, undefined, { detail: ['maybe'], limit: ['x'] }))).toThrow(
      new InvalidParameterValue('Expected an integer for limit: x'),
    );
  });
});
