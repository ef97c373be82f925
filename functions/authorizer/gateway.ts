/**
 * What API Gateway does around the authorizer, shared by the CDK stack and the local gateway so
 * both behave alike: which routes stay open (Ironic's public routes: the version documents, and
 * the agent's lookup and heartbeat, which agent_token guards), and the gateway responses that
 * answer a refused request in ironic-lib's form with Ironic's WWW-Authenticate challenge.
 *
 * API Gateway answers a refusal with a fixed status per response type: a request without an
 * Authorization header is UNAUTHORIZED (401, "Authorization required"), one the authorizer denies
 * is ACCESS_DENIED, answered 401 with the authorizer's message. (Ironic answers an unreadable
 * header with 400; behind API Gateway that is a 401 with the same message.)
 */
import { BASIC_REALM } from './basic';

/** Whether a request path is open (Ironic's AuthPublicRoutes: trailing "/" and ".json" ignored). */
export function isPublicPath(path: string): boolean {
  const p = path.replace(/\/+$/, '').replace(/\.json$/, '');
  return p === '' || p === '/v1' || p === '/v1/lookup' || p === '/v1/continue_inspection' || /^\/v1\/heartbeat\/[^/]+$/.test(p);
}

/** The header the authorizer's cache is keyed on (and which must be present). */
export const IDENTITY_HEADER = 'Authorization';

export interface GatewayResponseSpec {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** application/json template; `$context.authorizer.message` is the authorizer's reason. */
  readonly template: string;
}

export const AUTH_GATEWAY_RESPONSES: Readonly<Record<'UNAUTHORIZED' | 'ACCESS_DENIED', GatewayResponseSpec>> = {
  UNAUTHORIZED: {
    status: 401,
    headers: { 'WWW-Authenticate': BASIC_REALM },
    template: '{"error": {"message": "Authorization required", "code": 401}}',
  },
  ACCESS_DENIED: {
    status: 401,
    headers: { 'WWW-Authenticate': BASIC_REALM },
    template: '{"error": {"message": "$context.authorizer.message", "code": 401}}',
  },
};
