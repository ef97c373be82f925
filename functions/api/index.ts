/**
 * The API function: API Gateway REST API (v1 proxy integration) events in, Ironic's v1 API out.
 * A thin adapter: build the request, dispatch it, shape the reply. What every request needs is
 * built once at cold start; controllers and the clients only some requests need are loaded by the
 * first request that needs them (router.ts, lib/bundling.ts).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { loadApiConfig } from '#common/config';
import { DatabaseUnavailable, isIronicError } from '#common/errors';
import { newRequestId } from '#common/ids';
import { once } from '#common/lazy';
import { selectRelease } from '#common/releases';
import { createDocumentClient } from '#db/client';
import { createStores } from '#db/stores';
import { tableNamesFromEnv } from '#db/schema';
import { ConductorRpcClient } from '#rpc/client';
import { ConductorRing } from '#rpc/ring';
import type { ApiContext } from './context';
import { type ApiRequest, type ApiResponse, errorBody, errorResponse } from './http';
import { MIN_VERSION, parseVersion } from './microversion';
import { dispatch, versionHeaders } from './router';

const config = loadApiConfig();
const release = selectRelease(config.pinReleaseVersion);
const log = new Logger({ serviceName: 'ironless-api', persistentKeys: { release: release.release } });
const maxVersion = parseVersion(release.mapping.api);
if (maxVersion === undefined) throw new Error(`Release ${release.release} has an invalid api version "${release.mapping.api}"`);

const stores = createStores({ client: createDocumentClient('api'), tables: tableNamesFromEnv(process.env), release });

// The Lambda and SQS clients are built with the first request that needs them (a call, a cast,
// the upgrade status): a request that only reads needs neither, so a cold start loads neither.
const lambda = once(async () => new (await import('@aws-sdk/client-lambda')).LambdaClient({}));
const upgradeStatus = once(async () =>
  (await import('./upgrade-status')).upgradeStatusReader(await lambda(), {
    conductor: config.conductorFunction,
    api: process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'api',
  }),
);

const ctx: ApiContext = {
  config,
  release,
  maxVersion,
  log,
  nodes: stores.nodes,
  stores,
  rpc: new ConductorRpcClient({
    // Send to the endpoint the SDK resolves (on AWS the queue URL's own host): a local queue URL
    // (`sqs.<region>.127.0.0.1:<port>`) is no valid URL, and the SDK warned with a stack per cast.
    sqs: once(async () => new (await import('@aws-sdk/client-sqs')).SQSClient({ useQueueUrlAsEndpoint: false })),
    queues: config.conductorQueues,
    versionCap: release.mapping.rpc,
    lambda,
    conductorFunction: config.conductorFunction,
  }),
  upgradeStatus: async () => (await upgradeStatus())(),
  conductors: new ConductorRing(stores.conductors, { heartbeatTimeoutSeconds: config.conductorHeartbeatTimeoutSeconds }),
};

/** Where the client reached us: the configured public endpoint, or Host plus the stage prefix. */
function baseUrl(event: APIGatewayProxyEvent, headers: Record<string, string>): string {
  if (config.publicEndpoint) return config.publicEndpoint.replace(/\/+$/, '');
  const proto = headers['x-forwarded-proto'] ?? 'https';
  const host = headers.host ?? event.requestContext?.domainName ?? 'localhost';
  const full = event.requestContext?.path ?? event.path;
  const prefix = full.endsWith(event.path) ? full.slice(0, full.length - event.path.length) : '';
  return `${proto}://${host}${prefix}`.replace(/\/+$/, '');
}

function toRequest(event: APIGatewayProxyEvent): ApiRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers[name.toLowerCase()] = value;
  const query: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) if (values) query[name] = values;
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {}))
    if (value !== undefined && query[name] === undefined) query[name] = [value];
  const body =
    event.body === null || event.body === undefined
      ? undefined
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64').toString('utf8')
        : event.body;
  return {
    method: event.httpMethod.toUpperCase(),
    path: event.path || '/',
    query,
    headers,
    body,
    requestId: newRequestId(),
    baseUrl: baseUrl(event, headers),
    version: MIN_VERSION,
  };
}

function toResult(req: ApiRequest, res: ApiResponse): APIGatewayProxyResult {
  // Every reply carries the request id twice, as Ironic's (oslo.middleware's) request id middleware
  // sends it since API 1.107: the generic X-OpenStack-Request-Id and Ironic's own header. Like
  // Ironic's, the middleware is not versioned: the header is in replies at every version.
  const headers: Record<string, string> = {
    'Openstack-Request-Id': req.requestId,
    'X-Openstack-Request-Id': req.requestId,
    ...(res.headers ?? {}),
  };
  if (res.body === undefined) return { statusCode: res.status, headers, body: '' };
  headers['Content-Type'] = 'application/json';
  return { statusCode: res.status, headers, body: req.method === 'HEAD' ? '' : JSON.stringify(res.body) };
}

async function lambdaHandler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const req = toRequest(event);
  log.appendKeys({ request_id: req.requestId });
  let res: ApiResponse;
  try {
    res = await dispatch(req, ctx);
  } catch (err) {
    if (isIronicError(err)) {
      res = errorResponse(err);
      if (req.negotiated && err.name !== 'HttpError')
        res = { ...res, headers: { ...versionHeaders(ctx, req.version), ...(res.headers ?? {}) } };
      if (err instanceof DatabaseUnavailable) log.warn('Request failed: DynamoDB unavailable', { error: err.reason });
      else if (err.code >= 500) log.error('Request failed', { error: err.message, stack: err.stack });
    } else {
      log.error('Unexpected error', err as Error);
      res = { status: 500, body: errorBody(500, 'Internal Server Error') };
    }
  }
  // The access line is debug: API Gateway keeps access logs, and an info line per request is the
  // largest per-request cost on a busy API after DynamoDB itself.
  log.debug(`${req.method} ${req.path} ${res.status}`, { status: res.status, version: `${req.version.major}.${req.version.minor}` });
  log.removeKeys(['request_id']);
  return toResult(req, res);
}

export const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
  .use(injectLambdaContext(log, { resetKeys: true }))
  .handler(lambdaHandler);
