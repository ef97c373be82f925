/**
 * The document client, built once per execution environment for who uses it (`api`, `conductor`,
 * `tool`: their retries and timeouts, see `CLIENT_PROFILES`). Its endpoint, region and credentials
 * come from the environment through the AWS SDK (`AWS_ENDPOINT_URL_DYNAMODB` on a local stack),
 * never from code; tests and CLIs may hand it an SDK client, which is then used as configured.
 *
 * Failures become the stores' errors: an item over DynamoDB's size limit is ObjectTooLarge (400),
 * and DynamoDB throttling or failing beyond the retries is DatabaseUnavailable (503, retried by
 * the conductor's callers). Anything else is thrown as the SDK threw it.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DatabaseUnavailable, ObjectTooLarge } from '#common/errors';
import { type ClientProfile, DocumentClient, isTransient, outcomeUnknown } from './dynamo';

export function createDocumentClient(source: DynamoDBClient | ClientProfile = 'api'): DocumentClient {
  return typeof source === 'string' ? new DocumentClient({ profile: source, mapError }) : new DocumentClient({ sdk: source, mapError });
}

/** The stores' error for a failed request. */
export function mapError(err: Error): Error {
  const tooLarge = itemSizeError(err);
  if (tooLarge !== undefined) return new ObjectTooLarge(tooLarge);
  if (isTransient(err)) return new DatabaseUnavailable(`DynamoDB ${err.name}: ${err.message}`, outcomeUnknown(err), { cause: err });
  return err;
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
