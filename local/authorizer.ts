/**
 * API Gateway's REQUEST authorizer step on one machine: for a route that is not public, a request
 * without the identity header is refused at once (UNAUTHORIZED), otherwise the authorizer function
 * is invoked with API Gateway's event and its policy decides; decisions are cached per header for
 * `settings.authorizerCacheSeconds`, the TTL the CDK stack gives API Gateway (0: not cached).
 * Refusals are the same gateway responses the CDK stack configures.
 */
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { AUTH_GATEWAY_RESPONSES, type GatewayResponseSpec, IDENTITY_HEADER, isPublicPath } from '../functions/authorizer/gateway';
import type { LambdaHost } from './lambda-host';

export type AuthorizerOutcome =
  | { readonly allowed: true; readonly context: Record<string, unknown> | undefined }
  | { readonly allowed: false; readonly status: number; readonly headers: Record<string, string>; readonly body: string };

interface CachedDecision {
  readonly result: APIGatewayAuthorizerResult;
  readonly expires: number;
}

/** A gateway response, its `$context.authorizer.*` references filled in. */
function respond(spec: GatewayResponseSpec, context: Record<string, unknown> = {}): AuthorizerOutcome {
  const body = spec.template.replace(/\$context\.authorizer\.(\w+)/g, (_m, key: string) => String(context[key] ?? ''));
  return { allowed: false, status: spec.status, headers: { 'Content-Type': 'application/json', ...spec.headers }, body };
}

/** Whether a policy allows `arn` (API Gateway: an explicit Deny wins; `*` matches any run of characters). */
function allows(result: APIGatewayAuthorizerResult, arn: string): boolean {
  const matching = result.policyDocument.Statement.filter((s) => {
    const resources = [(s as { Resource?: string | string[] }).Resource ?? []].flat();
    return resources.some((r) =>
      new RegExp(
        `^${r
          .split('*')
          .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*')}$`,
      ).test(arn),
    );
  });
  return matching.length > 0 && matching.every((s) => s.Effect === 'Allow');
}

export class LocalAuthorizer {
  private readonly cache = new Map<string, CachedDecision>();

  constructor(
    private readonly lambda: LambdaHost,
    private readonly functionRef: string,
    private readonly cacheSeconds: number,
  ) {}

  async check(event: APIGatewayProxyEvent): Promise<AuthorizerOutcome> {
    if (isPublicPath(event.path)) return { allowed: true, context: undefined };
    const header = Object.entries(event.headers).find(([name]) => name.toLowerCase() === IDENTITY_HEADER.toLowerCase())?.[1];
    if (header === undefined || header === '') return respond(AUTH_GATEWAY_RESPONSES.UNAUTHORIZED);
    const ctx = event.requestContext;
    const methodArn = `arn:aws:execute-api:us-east-1:${ctx.accountId}:${ctx.apiId}/${ctx.stage}/${event.httpMethod}${event.path}`;
    const now = Date.now();
    let result = this.cache.get(header);
    if (result === undefined || result.expires < now) {
      const request: APIGatewayRequestAuthorizerEvent = {
        type: 'REQUEST',
        methodArn,
        resource: event.resource,
        path: event.path,
        httpMethod: event.httpMethod,
        headers: event.headers,
        multiValueHeaders: event.multiValueHeaders,
        pathParameters: event.pathParameters,
        queryStringParameters: event.queryStringParameters,
        multiValueQueryStringParameters: event.multiValueQueryStringParameters,
        stageVariables: null,
        requestContext: ctx,
      } as APIGatewayRequestAuthorizerEvent;
      const invoked = await this.lambda.invoke(this.functionRef, request);
      // API Gateway answers an authorizer that fails (or returns no policy) with AUTHORIZER_FAILURE: 500.
      const value = (invoked.result !== undefined ? invoked.result : JSON.parse(invoked.payload)) as APIGatewayAuthorizerResult | null;
      if (invoked.functionError || value === null || typeof value !== 'object' || !value.policyDocument) {
        return { allowed: false, status: 500, headers: { 'Content-Type': 'application/json' }, body: '{"message":null}' };
      }
      result = { result: value, expires: now + this.cacheSeconds * 1000 };
      if (this.cacheSeconds > 0) this.cache.set(header, result);
    }
    const context = { ...(result.result.context ?? {}), principalId: result.result.principalId };
    if (!allows(result.result, methodArn)) return respond(AUTH_GATEWAY_RESPONSES.ACCESS_DENIED, context);
    return { allowed: true, context };
  }
}
