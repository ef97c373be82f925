/**
 * The DynamoDB document client, built once per cold start. The endpoint comes from the SDK's own
 * configuration (`AWS_ENDPOINT_URL_DYNAMODB` on a local stack), never from code.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ObjectTooLarge } from '#common/errors';

export function createDocumentClient(client: DynamoDBClient = new DynamoDBClient({})): DynamoDBDocumentClient {
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
    unmarshallOptions: { wrapNumbers: false },
  });
  // The SDK's logger middleware filters every input and output for sensitive values before handing
  // them to a logger that (by default) drops them: a schema walk per request for nothing. The
  // stores log what matters themselves.
  doc.middlewareStack.remove('loggerMiddleware');
  doc.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (err) {
        const tooLarge = itemSizeError(err);
        throw tooLarge === undefined ? err : new ObjectTooLarge(tooLarge);
      }
    },
    { step: 'initialize', name: 'itemSizeErrors' },
  );
  return doc;
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
