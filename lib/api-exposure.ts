/**
 * Who can reach the API and how hard they can push it: the endpoint (public REGIONAL, or PRIVATE
 * behind interface VPC endpoints with the resource policy AWS requires), the explicit opt-in an
 * unauthenticated public API needs, stage throttling, reserved concurrency and AWS WAF. The stack
 * refuses a combination that leaves the Ironic API — which powers servers and wipes their disks —
 * open to anyone who learns its URL.
 */

/** How the API is exposed and limited (the `api` prop of the stack). */
export interface ApiExposure {
  /**
   * `REGIONAL`: a public HTTPS endpoint. `PRIVATE`: reachable only through the interface VPC
   * endpoints (`com.amazonaws.<region>.execute-api`) named in `vpcEndpointIds`, or any endpoint in
   * `sourceVpcIds`, enforced by the API's resource policy (`aws:SourceVpce`/`aws:SourceVpc`).
   * @default 'REGIONAL'
   */
  readonly endpointType?: 'REGIONAL' | 'PRIVATE';
  /** With PRIVATE: the interface VPC endpoints allowed to call the API (`vpce-…`). */
  readonly vpcEndpointIds?: readonly string[];
  /** With PRIVATE: VPCs whose interface endpoints may call the API (`vpc-…`). */
  readonly sourceVpcIds?: readonly string[];
  /**
   * Serve `noauth` on a public (REGIONAL) endpoint. Anyone who learns the URL can then enroll,
   * power off and wipe servers: set it only when something else in front authenticates callers.
   * @default false — the stack refuses to synthesize such an API
   */
  readonly allowUnauthenticatedPublicApi?: boolean;
  /**
   * Stage throttling, every method: steady requests per second and burst (API Gateway answers 429
   * beyond them). @default { rateLimit: 100, burstLimit: 200 }
   */
  readonly throttle?: { readonly rateLimit: number; readonly burstLimit: number };
  /**
   * Concurrency reserved for (and capping) the `api` function, so that a flood of requests cannot
   * take the account's concurrency from the conductor. `false`: unreserved.
   * @default 50
   */
  readonly apiReservedConcurrency?: number | false;
  /** The same for the http_basic authorizer (each uncached request is a bcrypt check). @default 10 */
  readonly authorizerReservedConcurrency?: number | false;
  /**
   * Attach an AWS WAF web ACL with a rate-based rule: requests in any 5 minutes from one IP
   * address beyond `rateLimit` are blocked (403). @default no web ACL
   */
  readonly waf?: { readonly rateLimit: number };
}

export const DEFAULT_THROTTLE = { rateLimit: 100, burstLimit: 200 } as const;
export const DEFAULT_API_RESERVED_CONCURRENCY = 50;
export const DEFAULT_AUTHORIZER_RESERVED_CONCURRENCY = 10;

/** The reserved concurrency a setting asks for (undefined: unreserved). */
export function reservedConcurrency(value: number | false | undefined, fallback: number): number | undefined {
  if (value === false) return undefined;
  return value ?? fallback;
}

const HOW_TO_PROTECT = [
  "keep settings.authStrategy 'http_basic' (the default)",
  "or make the endpoint private: api: { endpointType: 'PRIVATE', vpcEndpointIds: ['vpce-…'] } (cdk -c endpointType=PRIVATE -c vpcEndpointIds=vpce-…)",
  'or, only if something in front of the API authenticates callers, opt in with api: { allowUnauthenticatedPublicApi: true } (cdk -c allowUnauthenticatedPublicApi=true)',
].join('; ');

/** Check the exposure against the auth strategy; the message says what to change. */
export function validateApiExposure(api: ApiExposure, authStrategy: 'noauth' | 'http_basic'): void {
  const type = api.endpointType ?? 'REGIONAL';
  if (type !== 'REGIONAL' && type !== 'PRIVATE') throw new Error(`api.endpointType "${String(type)}" must be REGIONAL or PRIVATE`);
  const endpoints = api.vpcEndpointIds ?? [];
  const vpcs = api.sourceVpcIds ?? [];
  if (type === 'PRIVATE' && endpoints.length === 0 && vpcs.length === 0) {
    throw new Error(
      'api.endpointType PRIVATE needs api.vpcEndpointIds (or api.sourceVpcIds): AWS refuses a private API without a resource policy naming who may call it',
    );
  }
  if (type === 'REGIONAL' && (endpoints.length > 0 || vpcs.length > 0)) {
    throw new Error("api.vpcEndpointIds and api.sourceVpcIds only apply to api.endpointType 'PRIVATE'");
  }
  for (const id of endpoints)
    if (!/^vpce-[0-9a-f]{8,17}$/.test(id)) throw new Error(`api.vpcEndpointIds: "${id}" is not a VPC endpoint id (vpce-…)`);
  for (const id of vpcs) if (!/^vpc-[0-9a-f]{8,17}$/.test(id)) throw new Error(`api.sourceVpcIds: "${id}" is not a VPC id (vpc-…)`);
  if (authStrategy === 'noauth' && type === 'REGIONAL' && api.allowUnauthenticatedPublicApi !== true) {
    throw new Error(
      `Refusing an unauthenticated public API: settings.authStrategy is 'noauth' on a REGIONAL endpoint, so anyone who learns its URL can power off and wipe your servers. To deploy: ${HOW_TO_PROTECT}.`,
    );
  }
  const throttle = api.throttle ?? DEFAULT_THROTTLE;
  if (!(throttle.rateLimit > 0) || !Number.isInteger(throttle.burstLimit) || throttle.burstLimit < 1) {
    throw new Error(
      `api.throttle (rateLimit ${throttle.rateLimit}, burstLimit ${throttle.burstLimit}) needs a positive rate and a whole burst of at least 1`,
    );
  }
  for (const [name, value] of [
    ['apiReservedConcurrency', api.apiReservedConcurrency],
    ['authorizerReservedConcurrency', api.authorizerReservedConcurrency],
  ] as const) {
    if (value !== undefined && value !== false && (!Number.isInteger(value) || value < 1)) {
      throw new Error(`api.${name} (${value}) must be a whole number of at least 1, or false for none`);
    }
  }
  // WAF rate-based rules count over 5 minutes and accept 10 to 2,000,000,000.
  if (api.waf && (!Number.isInteger(api.waf.rateLimit) || api.waf.rateLimit < 10 || api.waf.rateLimit > 2_000_000_000)) {
    throw new Error(`api.waf.rateLimit (${api.waf.rateLimit}) must be a whole number from 10 to 2,000,000,000 requests per 5 minutes`);
  }
}
