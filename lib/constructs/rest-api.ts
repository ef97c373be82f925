/**
 * The REST API (v1) in front of the `api` alias, exposed as `lib/api-exposure.ts` says: a REGIONAL
 * or PRIVATE endpoint (PRIVATE with the resource policy AWS requires, limited to the named VPC
 * endpoints or VPCs), stage throttling on every method, access logs, and optionally an AWS WAF
 * web ACL with a rate-based rule. With http_basic every route but Ironic's public ones passes the
 * authorizer.
 *
 * NOTE: the resources are created in the caller's scope under the ids they had before this file
 * existed (`RestApi`, `ApiAccessLogs`): a construct around them would change their logical ids, and
 * CloudFormation would replace the API — and its URL — on the next deploy of an existing stack.
 */
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AccessLogFormat, EndpointType, LambdaRestApi, LogGroupLogDestination, MethodLoggingLevel } from 'aws-cdk-lib/aws-apigateway';
import { InterfaceVpcEndpoint } from 'aws-cdk-lib/aws-ec2';
import { AnyPrincipal, Effect, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IAlias } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { type ApiExposure, DEFAULT_THROTTLE } from '../api-exposure';
import type { BasicAuth } from './basic-auth';

export interface IronlessApiProps {
  readonly handler: IAlias;
  readonly exposure: ApiExposure;
  /** The http_basic authorizer; undefined with noauth. */
  readonly auth: BasicAuth | undefined;
  readonly logRetention: RetentionDays;
  readonly logsKey?: IKey;
}

export class IronlessApi {
  readonly api: LambdaRestApi;
  /** With `exposure.waf`: the web ACL on the stage. */
  readonly webAcl: CfnWebACL | undefined;

  constructor(
    private readonly scope: Construct,
    props: IronlessApiProps,
  ) {
    const exposure = props.exposure;
    const isPrivate = exposure.endpointType === 'PRIVATE';
    const throttle = exposure.throttle ?? DEFAULT_THROTTLE;
    const accessLogs = new LogGroup(scope, 'ApiAccessLogs', {
      retention: props.logRetention,
      encryptionKey: props.logsKey,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const vpcEndpoints = (exposure.vpcEndpointIds ?? []).map((vpcEndpointId, i) =>
      InterfaceVpcEndpoint.fromInterfaceVpcEndpointAttributes(scope, `ApiVpcEndpoint${i}`, { vpcEndpointId, port: 443 }),
    );
    this.api = new LambdaRestApi(scope, 'RestApi', {
      handler: props.handler,
      proxy: false,
      description: 'OpenStack Ironic v1 API (Ironless)',
      endpointConfiguration: {
        types: [isPrivate ? EndpointType.PRIVATE : EndpointType.REGIONAL],
        ...(vpcEndpoints.length > 0 ? { vpcEndpoints } : {}),
      },
      ...(isPrivate ? { policy: privateApiPolicy(exposure) } : {}),
      cloudWatchRole: true,
      deployOptions: {
        stageName: 'ironless',
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
        loggingLevel: MethodLoggingLevel.ERROR,
        tracingEnabled: true,
        // The stage's default method settings: every method of every resource.
        throttlingRateLimit: throttle.rateLimit,
        throttlingBurstLimit: throttle.burstLimit,
      },
    });
    this.addRoutes(props.auth);
    this.webAcl = exposure.waf ? this.addWebAcl(exposure.waf.rateLimit) : undefined;
  }

  /**
   * Every path goes to the API function. With http_basic, all but Ironic's public routes (`/`,
   * `/v1`, the agent's lookup and heartbeat, guarded by agent_token) pass the authorizer first.
   */
  private addRoutes(auth: BasicAuth | undefined): void {
    const api = this.api;
    const secured = auth ? { authorizer: auth.authorizer } : {};
    api.root.addMethod('ANY');
    api.root.addResource('{proxy+}').addMethod('ANY', undefined, secured);
    const v1 = api.root.addResource('v1');
    v1.addMethod('ANY');
    v1.addResource('{proxy+}').addMethod('ANY', undefined, secured);
    v1.addResource('lookup').addMethod('ANY');
    v1.addResource('heartbeat').addResource('{node}').addMethod('ANY');
    auth?.addGatewayResponses(api);
  }

  /** A regional web ACL blocking an IP address that sends more than `rateLimit` requests in 5 minutes. */
  private addWebAcl(rateLimit: number): CfnWebACL {
    const metric = (name: string) => ({ cloudWatchMetricsEnabled: true, sampledRequestsEnabled: true, metricName: name });
    const prefix = Stack.of(this.scope).stackName;
    const acl = new CfnWebACL(this.scope, 'ApiWebAcl', {
      scope: 'REGIONAL',
      description: 'Ironless: rate limit per client address',
      defaultAction: { allow: {} },
      visibilityConfig: metric(`${prefix}-api`),
      rules: [
        {
          name: 'RateLimitPerIp',
          priority: 0,
          action: { block: {} },
          statement: { rateBasedStatement: { limit: rateLimit, aggregateKeyType: 'IP' } },
          visibilityConfig: metric(`${prefix}-rate-limit`),
        },
      ],
    });
    new CfnWebACLAssociation(this.scope, 'ApiWebAclAssociation', {
      resourceArn: this.api.deploymentStage.stageArn,
      webAclArn: acl.attrArn,
    });
    return acl;
  }
}

/**
 * A private API's resource policy (AWS refuses to deploy a PRIVATE API without one): invoke is
 * allowed, and denied to any request that did not come through one of the named VPC endpoints or
 * VPCs (the conditions of one statement must all hold for the Deny, so either one admits).
 */
function privateApiPolicy(exposure: ApiExposure): PolicyDocument {
  const notFrom: Record<string, string[]> = {};
  if (exposure.vpcEndpointIds?.length) notFrom['aws:SourceVpce'] = [...exposure.vpcEndpointIds];
  if (exposure.sourceVpcIds?.length) notFrom['aws:SourceVpc'] = [...exposure.sourceVpcIds];
  return new PolicyDocument({
    statements: [
      new PolicyStatement({
        effect: Effect.ALLOW,
        principals: [new AnyPrincipal()],
        actions: ['execute-api:Invoke'],
        resources: ['execute-api:/*'],
      }),
      new PolicyStatement({
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['execute-api:Invoke'],
        resources: ['execute-api:/*'],
        conditions: { StringNotEquals: notFrom },
      }),
    ],
  });
}
