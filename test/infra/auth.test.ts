/**
 * `http_basic` on AWS (the default): a REQUEST authorizer on every route but Ironic's public ones
 * (`/`, `/v1`, lookup, heartbeat), reading only its htpasswd secret, its decisions cached for
 * `authorizerCacheSeconds`, its entries re-read every `htpasswdRefreshSeconds`, with refusals
 * answered 401 with the Basic challenge; `noauth` has no authorizer at all.
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { IronlessStack } from '../../lib/ironless-stack';
import { synthValidated } from './helpers';

const app = new App();
const stack = new IronlessStack(app, 'Auth', { settings: { authStrategy: 'http_basic' } });
const template = Template.fromStack(stack);

type Resource = { Properties: Record<string, unknown> };
const resources = (type: string) => Object.entries(template.findResources(type)) as [string, Resource][];

/** Each method's full path, from the resources' path parts. */
function methodPaths(): Map<string, Resource> {
  const parts = new Map(resources('AWS::ApiGateway::Resource').map(([id, r]) => [id, r.Properties]));
  const pathOf = (ref: unknown): string => {
    const id = (ref as { Ref?: string }).Ref;
    const p = id ? parts.get(id) : undefined;
    if (!p) return '';
    return `${pathOf(p.ParentId)}/${String(p.PathPart)}`;
  };
  return new Map(resources('AWS::ApiGateway::Method').map(([, m]) => [pathOf(m.Properties.ResourceId) || '/', m]));
}

it('puts the authorizer on every route except /, /v1, lookup, heartbeat and the web console’s files', () => {
  const methods = methodPaths();
  expect([...methods.keys()].sort()).toEqual([
    '/',
    '/ui',
    '/ui/{proxy+}',
    '/v1',
    '/v1/heartbeat/{node}',
    '/v1/lookup',
    '/v1/{proxy+}',
    '/{proxy+}',
  ]);
  for (const [path, method] of methods) {
    const open = ['/', '/v1', '/v1/lookup', '/v1/heartbeat/{node}', '/ui', '/ui/{proxy+}'].includes(path);
    expect([path, method.Properties.AuthorizationType]).toEqual([path, open ? 'NONE' : 'CUSTOM']);
  }
  template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
    Type: 'REQUEST',
    IdentitySource: 'method.request.header.Authorization',
    AuthorizerResultTtlInSeconds: 60,
  });
});

it('caches decisions and re-reads the entries for the times the settings give', () => {
  const custom = Template.fromStack(
    new IronlessStack(new App(), 'Ttl', { settings: { authorizerCacheSeconds: 0, htpasswdRefreshSeconds: 5 } }),
  );
  custom.hasResourceProperties('AWS::ApiGateway::Authorizer', { AuthorizerResultTtlInSeconds: 0 });
  custom.hasResourceProperties('AWS::Lambda::Function', {
    Description: Match.stringLikeRegexp('^Ironless authorizer'),
    Environment: { Variables: Match.objectLike({ HTPASSWD_REFRESH_SECONDS: '5' }) },
  });
  template.hasResourceProperties('AWS::Lambda::Function', {
    Description: Match.stringLikeRegexp('^Ironless authorizer'),
    Environment: { Variables: Match.objectLike({ HTPASSWD_REFRESH_SECONDS: '30' }) },
  });
  expect(() => new IronlessStack(new App(), 'TooLong', { settings: { authorizerCacheSeconds: 3601 } })).toThrow(
    "authorizerCacheSeconds (3601) must be a whole number from 0 to 3600 (API Gateway's limits)",
  );
});

it('answers refusals as ironic-lib does: 401, its body, the Basic challenge', () => {
  for (const type of ['UNAUTHORIZED', 'ACCESS_DENIED']) {
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: type,
      StatusCode: '401',
      ResponseParameters: { 'gatewayresponse.header.WWW-Authenticate': `'Basic realm="Baremetal API"'` },
      ResponseTemplates: { 'application/json': Match.stringLikeRegexp('"code": 401') },
    });
  }
});

it('lets the authorizer read its secret and nothing else', () => {
  const authorizerRole = resources('AWS::IAM::Policy').filter(([id]) => id.includes('Authorizer'));
  const statements = authorizerRole.flatMap(
    ([, p]) => (p.Properties.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] }).Statement,
  );
  // Besides its secret it writes traces (X-Ray accepts only "*"); nothing else.
  const secretStatements = statements.filter((s) => [s.Action].flat().some((a) => String(a).startsWith('secretsmanager:')));
  expect(statements.flatMap((s) => [s.Action].flat()).sort()).toEqual([
    'secretsmanager:DescribeSecret',
    'secretsmanager:GetSecretValue',
    'xray:PutTelemetryRecords',
    'xray:PutTraceSegments',
  ]);
  const secretId = resources('AWS::SecretsManager::Secret')[0]?.[0];
  for (const s of secretStatements) expect(s.Resource).toEqual({ Ref: secretId });
  const fn = resources('AWS::Lambda::Function').find(([, f]) => String(f.Properties.Description).includes('authorizer'));
  expect((fn?.[1].Properties.Environment as { Variables: Record<string, unknown> }).Variables.HTPASSWD_SECRET_ID).toEqual({
    Ref: secretId,
  });
  const api = resources('AWS::Lambda::Function').find(([, f]) => String(f.Properties.Description).includes('Ironless api'));
  expect((api?.[1].Properties.Environment as { Variables: Record<string, unknown> }).Variables.AUTH_STRATEGY).toBe('http_basic');
});

it('passes cdk-nag and the Control Tower guard rules with only the acknowledged findings', () => {
  expect(() => synthValidated('NagAuth', { settings: { authStrategy: 'http_basic' } })).not.toThrow();
});

it('has no authorizer with noauth', () => {
  const plain = Template.fromStack(
    new IronlessStack(new App(), 'NoAuth', {
      settings: { authStrategy: 'noauth' },
      api: { endpointType: 'PRIVATE', vpcEndpointIds: ['vpce-0123456789abcdef0'] },
    }),
  );
  plain.resourceCountIs('AWS::ApiGateway::Authorizer', 0);
  plain.resourceCountIs('AWS::SecretsManager::Secret', 0);
  for (const m of Object.values(plain.findResources('AWS::ApiGateway::Method')))
    expect((m as Resource).Properties.AuthorizationType).toBe('NONE');
});

it('refuses an unknown auth strategy', () => {
  expect(() => new IronlessStack(new App(), 'Bad', { settings: { authStrategy: 'keystone' as 'noauth' } })).toThrow(
    'authStrategy "keystone"',
  );
});
