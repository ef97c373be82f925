/**
 * The API Gateway REQUEST authorizer for Ironic's `http_basic` strategy. The htpasswd entries are
 * read once per cold start from the Secrets Manager secret HTPASSWD_SECRET_ID (an operator who
 * changes them waits for new execution environments, as Ironic re-reads its file). A request whose
 * credentials match is allowed (for every route: API Gateway caches the decision per header); any
 * other is denied with ironic-lib's reason, which the ACCESS_DENIED gateway response shows.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { Logger } from '@aws-lambda-powertools/logger';
import { required } from '#common/config';
import { AuthFailure, type HtpasswdEntry, authenticate, parseHtpasswd } from './basic';
import { stageResources } from './stage';

const log = new Logger({ serviceName: 'ironless-authorizer' });
const secretId = required(process.env, 'HTPASSWD_SECRET_ID');
const secrets = new SecretsManagerClient({});
let entries: Promise<HtpasswdEntry[]> | undefined;

function loadEntries(): Promise<HtpasswdEntry[]> {
  entries ??= secrets.send(new GetSecretValueCommand({ SecretId: secretId })).then((out) => parseHtpasswd(out.SecretString ?? ''));
  // A failed read is not cached: the next request tries again.
  entries.catch(() => (entries = undefined));
  return entries;
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
