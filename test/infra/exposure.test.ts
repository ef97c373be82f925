/**
 * Who can reach the API: http_basic on a REGIONAL endpoint by default; an unauthenticated public
 * API refused unless the operator opts in by name; PRIVATE endpoints with the resource policy AWS
 * requires (aws:SourceVpce / aws:SourceVpc); both together; stage throttling, reserved concurrency
 * and an optional WAF rate limit. The same choices from CDK context (`-c …`).
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { propsFromContext } from '../../lib/app-context';
import { IronlessStack, type IronlessStackProps } from '../../lib/ironless-stack';
import { functionNamed, resourcesOf } from './helpers';

const VPCE = 'vpce-0123456789abcdef0';
const VPC = 'vpc-0fedcba9876543210';
const synth = (id: string, props: IronlessStackProps = {}) => Template.fromStack(new IronlessStack(new App(), id, props));

const restApi = (t: Template) => (resourcesOf(t, 'AWS::ApiGateway::RestApi')[0] as [string, { Properties: Record<string, unknown> }])[1];
const authTypes = (t: Template) =>
  new Set(resourcesOf(t, 'AWS::ApiGateway::Method').map(([, m]) => m.Properties.AuthorizationType as string));

describe('by default', () => {
  const template = synth('Default');

  it('serves http_basic on a REGIONAL endpoint, with no resource policy to open it further', () => {
    expect(restApi(template).Properties).toMatchObject({ EndpointConfiguration: { Types: ['REGIONAL'] } });
    expect(restApi(template).Properties.Policy).toBeUndefined();
    template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
    expect(authTypes(template)).toEqual(new Set(['NONE', 'CUSTOM']));
    expect(functionNamed(template, 'api')[1].Properties.Environment).toMatchObject({ Variables: { AUTH_STRATEGY: 'http_basic' } });
  });

  it('throttles every method of the stage and reserves (and caps) concurrency for the api and the authorizer', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'ironless',
      MethodSettings: Match.arrayWith([
        Match.objectLike({ HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 }),
      ]),
    });
    expect(functionNamed(template, 'api')[1].Properties.ReservedConcurrentExecutions).toBe(50);
    expect(functionNamed(template, 'authorizer')[1].Properties.ReservedConcurrentExecutions).toBe(10);
    // The conductor is left the account's unreserved pool, which neither can exhaust.
    expect(functionNamed(template, 'conductor')[1].Properties.ReservedConcurrentExecutions).toBeUndefined();
    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
  });
});

describe('an unauthenticated API', () => {
  it('is refused on a public endpoint, with a message that says how to deploy', () => {
    for (const api of [undefined, { endpointType: 'REGIONAL' as const }, { allowUnauthenticatedPublicApi: false }]) {
      expect(() => new IronlessStack(new App(), 'Open', { settings: { authStrategy: 'noauth' }, ...(api ? { api } : {}) })).toThrow(
        /Refusing an unauthenticated public API: settings.authStrategy is 'noauth' on a REGIONAL endpoint.*keep settings.authStrategy 'http_basic'.*endpointType: 'PRIVATE', vpcEndpointIds.*allowUnauthenticatedPublicApi: true/,
      );
    }
  });

  it('synthesizes on a public endpoint only when the operator opts in by name, without an authorizer', () => {
    const template = synth('OptIn', { settings: { authStrategy: 'noauth' }, api: { allowUnauthenticatedPublicApi: true } });
    expect(restApi(template).Properties).toMatchObject({ EndpointConfiguration: { Types: ['REGIONAL'] } });
    template.resourceCountIs('AWS::ApiGateway::Authorizer', 0);
    expect(authTypes(template)).toEqual(new Set(['NONE']));
  });
});

describe('a PRIVATE endpoint', () => {
  it('carries the resource policy AWS requires: invoke only through the named VPC endpoints', () => {
    const template = synth('Private', { settings: { authStrategy: 'noauth' }, api: { endpointType: 'PRIVATE', vpcEndpointIds: [VPCE] } });
    const props = restApi(template).Properties;
    expect(props.EndpointConfiguration).toEqual({ Types: ['PRIVATE'], VpcEndpointIds: [VPCE] });
    expect(props.Policy).toEqual({
      Version: '2012-10-17',
      Statement: [
        { Effect: 'Allow', Principal: { AWS: '*' }, Action: 'execute-api:Invoke', Resource: 'execute-api:/*' },
        {
          Effect: 'Deny',
          Principal: { AWS: '*' },
          Action: 'execute-api:Invoke',
          Resource: 'execute-api:/*',
          Condition: { StringNotEquals: { 'aws:SourceVpce': [VPCE] } },
        },
      ],
    });
    template.resourceCountIs('AWS::ApiGateway::Authorizer', 0);
  });

  it('combines with http_basic, and admits whole VPCs through aws:SourceVpc', () => {
    const template = synth('Both', { api: { endpointType: 'PRIVATE', vpcEndpointIds: [VPCE], sourceVpcIds: [VPC] } });
    const statements = (restApi(template).Properties.Policy as { Statement: { Effect: string; Condition?: unknown }[] }).Statement;
    expect(statements.find((s) => s.Effect === 'Deny')?.Condition).toEqual({
      StringNotEquals: { 'aws:SourceVpce': [VPCE], 'aws:SourceVpc': [VPC] },
    });
    template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
    expect(authTypes(template)).toEqual(new Set(['NONE', 'CUSTOM']));
  });

  it('is refused without endpoints or VPCs, and endpoints are refused on a REGIONAL API', () => {
    expect(() => new IronlessStack(new App(), 'Bare', { api: { endpointType: 'PRIVATE' } })).toThrow(
      'api.endpointType PRIVATE needs api.vpcEndpointIds (or api.sourceVpcIds)',
    );
    expect(() => new IronlessStack(new App(), 'Mixed', { api: { vpcEndpointIds: [VPCE] } })).toThrow(
      "api.vpcEndpointIds and api.sourceVpcIds only apply to api.endpointType 'PRIVATE'",
    );
    expect(() => new IronlessStack(new App(), 'BadId', { api: { endpointType: 'PRIVATE', vpcEndpointIds: ['vpc-123'] } })).toThrow(
      'api.vpcEndpointIds: "vpc-123" is not a VPC endpoint id',
    );
  });
});

describe('limits', () => {
  it('attaches a WAF web ACL with a per-address rate-based rule to the stage when asked', () => {
    const template = synth('Waf', { api: { waf: { rateLimit: 600 } } });
    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      Rules: [
        Match.objectLike({
          Action: { Block: {} },
          Statement: { RateBasedStatement: { Limit: 600, AggregateKeyType: 'IP' } },
        }),
      ],
    });
    const [stageId] = resourcesOf(template, 'AWS::ApiGateway::Stage')[0] as [string, unknown];
    const [aclId] = resourcesOf(template, 'AWS::WAFv2::WebACL')[0] as [string, unknown];
    const [, association] = resourcesOf(template, 'AWS::WAFv2::WebACLAssociation')[0] as [string, { Properties: Record<string, unknown> }];
    expect(association.Properties.WebACLArn).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    expect(JSON.stringify(association.Properties.ResourceArn)).toContain(`{"Ref":"${stageId}"}`);
    expect(() => new IronlessStack(new App(), 'WafLow', { api: { waf: { rateLimit: 5 } } })).toThrow('api.waf.rateLimit (5)');
  });

  it('takes the operator’s throttle and concurrency, or none', () => {
    const template = synth('Limits', {
      api: { throttle: { rateLimit: 20, burstLimit: 40 }, apiReservedConcurrency: false, authorizerReservedConcurrency: 3 },
    });
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([Match.objectLike({ ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 })]),
    });
    expect(functionNamed(template, 'api')[1].Properties.ReservedConcurrentExecutions).toBeUndefined();
    expect(functionNamed(template, 'authorizer')[1].Properties.ReservedConcurrentExecutions).toBe(3);
    expect(() => new IronlessStack(new App(), 'Zero', { api: { apiReservedConcurrency: 0 } })).toThrow(
      'api.apiReservedConcurrency (0) must be a whole number of at least 1, or false for none',
    );
  });
});

describe('CDK context', () => {
  it('maps -c values to the stack props', () => {
    const app = new App({
      context: {
        authStrategy: 'noauth',
        endpointType: 'private',
        vpcEndpointIds: `${VPCE}, vpce-0aaaaaaaaaaaaaaaa`,
        sourceVpcIds: VPC,
        wafRateLimit: '1000',
        imageBuckets: 'images-a,images-b',
        alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops',
        dashboard: 'true',
      },
    });
    expect(propsFromContext(app.node)).toEqual({
      settings: { authStrategy: 'noauth', imageBuckets: ['images-a', 'images-b'] },
      api: { endpointType: 'PRIVATE', vpcEndpointIds: [VPCE, 'vpce-0aaaaaaaaaaaaaaaa'], sourceVpcIds: [VPC], waf: { rateLimit: 1000 } },
      alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops',
      dashboard: true,
    });
    expect(propsFromContext(new App().node)).toEqual({ settings: {}, api: {} });
  });

  it('refuses -c authStrategy=noauth alone, and accepts it with -c allowUnauthenticatedPublicApi=true', () => {
    const open = new App({ context: { authStrategy: 'noauth' } });
    expect(() => new IronlessStack(open, 'Ctx', propsFromContext(open.node))).toThrow(/-c allowUnauthenticatedPublicApi=true/);
    const optIn = new App({ context: { authStrategy: 'noauth', allowUnauthenticatedPublicApi: 'true' } });
    expect(() => new IronlessStack(optIn, 'Ctx', propsFromContext(optIn.node))).not.toThrow();
    const typo = new App({ context: { allowUnauthenticatedPublicApi: 'yes' } });
    expect(() => propsFromContext(typo.node)).toThrow('context allowUnauthenticatedPublicApi must be true or false, got "yes"');
  });
});
