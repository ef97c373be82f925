/**
 * The document client, built once per cold start. Its endpoint, region and credentials come from
 * the environment as the AWS SDK's would (`AWS_ENDPOINT_URL_DYNAMODB` on a local stack), never
 * from code; tests and CLIs may hand it an SDK client whose configuration it then follows.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ObjectTooLarge } from '#common/errors';
import { type DynamoConfig, DocumentClient } from './dynamo';

export function createDocumentClient(sdk?: DynamoDBClient): DocumentClient {
  const mapError: DynamoConfig['mapError'] = (err) => {
    const tooLarge = itemSizeError(err);
    return tooLarge === undefined ? err : new ObjectTooLarge(tooLarge);
  };
  if (sdk === undefined) return new DocumentClient({ mapError });
  const config = sdk.config;
  return new DocumentClient({
    mapError,
    region: () => config.region(),
    endpoint: async () => {
      if (!config.endpoint) return undefined;
      const e = await config.endpoint();
      return `${e.protocol}//${e.hostname}${e.port ? `:${e.port}` : ''}${e.path}`;
    },
    credentials: () => config.credentials(),
    maxAttempts: () => config.maxAttempts(),
  });
}

/**
 * DynamoDB's refusal of an item over the size limit — a ValidationException, or a cancelled
 * transaction whose reason is a ValidationError about the size — as its message; undefined else.
 */
export function itemSizeError(err: unknown): string | undefined {
  const e = err as { name?: string; message?: string; CancellationReasons?: { Code?: string; Message?: string }[] } | undefined;
  const aboutSize = (text: string | undefined) => typeof text === 'string' && /item size/i.test(text);
  if (e?.name === 'ValidationException' && aboutSize(e.message)) return e.message;
  if (e?.name === 'TransactionCanceledException') {
    const reason = (e.CancellationReasons ?? []).find((r) => r.Code === 'ValidationError' && aboutSize(r.Message));
    if (reason) return reason.Message;
  }
  return undefined;
}
