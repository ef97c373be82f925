/**
 * The API Gateway REQUEST authorizer for Ironic's `http_basic` strategy. The htpasswd entries come
 * from the Secrets Manager secret HTPASSWD_SECRET_ID and are re-read once they are older than
 * HTPASSWD_REFRESH_SECONDS (Powertools Parameters keeps the value and its age), so a password
 * removed from the secret is refused within that time — plus API Gateway's own cache of this
 * function's decisions (`authorizerCacheSeconds`, per Authorization header). Ironic re-reads its
 * file on every request; a Secrets Manager call per request would add its latency and cost to each
 * one. A request whose credentials match is allowed (for every route: API Gateway caches the
 * decision per header); any other is denied with ironic-lib's reason, which the ACCESS_DENIED
 * gateway response shows. A secret that cannot be read fails the invocation (API Gateway answers
 * 500): without entries nothing can be checked, and stale ones would keep revoked passwords alive.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { Logger } from '@aws-lambda-powertools/logger';
import { ENV, integer, required } from '#common/config';
import { AuthFailure, type HtpasswdEntry, authenticate, parseHtpasswd } from './basic';
import { stageResources } from './stage';

const log = new Logger({ serviceName: 'ironless-authorizer' });
const secretId = required(process.env, 'HTPASSWD_SECRET_ID');
const refreshSeconds = integer(process.env, ENV.htpasswdRefreshSeconds, 30, 0);
const secrets = new SecretsProvider({ awsSdkV3Client: new SecretsManagerClient({}) });
/** The last text parsed and its entries: parsing (and checking every digest's form) once per value read. */
let parsed: { text: string; entries: HtpasswdEntry[] } | undefined;

async function loadEntries(): Promise<HtpasswdEntry[]> {
  // A failed read is not cached by the provider: the next request tries again.
  const text = (await secrets.get(secretId, { maxAge: refreshSeconds })) ?? '';
  if (typeof text !== 'string') throw new Error(`Secret ${secretId} holds binary data; it must hold htpasswd text`);
  if (parsed?.text !== text) parsed = { text, entries: parseHtpasswd(text) };
  return parsed.entries;
}

function policy(
  principal: string,
  effect: 'Allow' | 'Deny',
  methodArn: string,
  context: Record<string, string>,
): APIGatewayAuthorizerResult {
  return {
    principalId: principal,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: stageResources(methodArn) }],
    },
    context,
  };
}

export async function handler(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const headers = event.headers ?? {};
  const header = Object.entries(headers).find(([name]) => name.toLowerCase() === 'authorization')?.[1] ?? undefined;
  try {
    const user = await authenticate(await loadEntries(), header);
    return policy(user, 'Allow', event.methodArn, { user });
  } catch (err) {
    if (!(err instanceof AuthFailure)) throw err;
    log.info('Request refused', { reason: err.message, path: event.path });
    // The gateway response puts the message into its JSON template as is: escape it for JSON here.
    return policy('anonymous', 'Deny', event.methodArn, { message: JSON.stringify(err.message).slice(1, -1), status: String(err.status) });
  }
}
