/**
 * The DynamoDB document client, built once per cold start. The endpoint comes from the SDK's own
 * configuration (`AWS_ENDPOINT_URL_DYNAMODB` on a local stack), never from code.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export function createDocumentClient(client: DynamoDBClient = new DynamoDBClient({})): DynamoDBDocumentClient {
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
    unmarshallOptions: { wrapNumbers: false },
  });
  // The SDK's logger middleware filters every input and output for sensitive values before handing
  // them to a logger that (by default) drops them: a schema walk per request for nothing. The
  // stores log what matters themselves.
  doc.middlewareStack.remove('loggerMiddleware');
  return doc;
}
