/**
 * The document client over the AWS SDK, against a loopback server standing in for DynamoDB: the
 * request the SDK signs and sends, marshalling both ways, the SDK's errors, retries, timeouts and
 * clock-skew correction, whether a failed write may have been applied, and the stores' errors for
 * what DynamoDB answers. The store suites run it against DynamoDB Local.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DatabaseUnavailable, ObjectTooLarge } from '../../../functions/common/errors';
import { createDocumentClient } from '../../../functions/db/client';
import {
  BatchGetCommand,
  BatchWriteCommand,
  CLIENT_PROFILES,
  DocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  isTransient,
  outcomeUnknown,
  profileConfig,
} from '../../../functions/db/dynamo';

interface Seen {
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
}
/** An answer: a status and body (and headers), a dropped connection, or none at all (a hung request). */
type Reply = { status: number; body: unknown; headers?: Record<string, string> } | 'reset' | 'hang';

let server: Server;
let endpoint: string;
let seen: Seen[];
let replies: Reply[];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown> });
      const reply = replies.shift() ?? { status: 200, body: {} };
      if (reply === 'reset') return void req.socket.destroy();
      if (reply === 'hang') return;
      res.writeHead(reply.status, {
        'content-type': 'application/x-amz-json-1.0',
        'x-amzn-requestid': `req-${seen.length}`,
        ...(reply.headers ?? {}),
      });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((done) => server.close(() => done()));
});

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'token-1' };
const sdks: DynamoDBClient[] = [];
/** An SDK client for the loopback server, as tests and CLIs hand one to the stores. */
function sdkClient(config: DynamoDBClientConfig = {}): DynamoDBClient {
  const sdk = new DynamoDBClient({ endpoint, region: 'eu-west-1', credentials, maxAttempts: 3, ...config });
  sdks.push(sdk);
  return sdk;
}

let client: DocumentClient;
beforeEach(() => {
  seen = [];
  replies = [];
  client = new DocumentClient({ sdk: sdkClient() });
});
afterEach(() => {
  for (const sdk of sdks.splice(0)) sdk.destroy();
});

const awsError = (status: number, type: string, message: string, extra: Record<string, unknown> = {}): Reply => ({
  status,
  body: { __type: `com.amazonaws.dynamodb.v20120810#${type}`, message, ...extra },
});
const THROTTLED = awsError(400, 'ProvisionedThroughputExceededException', 'The level of configured provisioned throughput was exceeded');
const SERVER_ERROR = awsError(500, 'InternalServerError', 'Internal server error');
const CONDITION_FAILED = awsError(400, 'ConditionalCheckFailedException', 'The conditional request failed');

it('sends each operation through the SDK: signed with SigV4, named by its target', async () => {
  replies.push({ status: 200, body: { Item: { uuid: { S: 'u1' } } } });
  await client.send(new GetCommand({ TableName: 'nodes', Key: { uuid: 'u1' }, ConsistentRead: true }));
  const [request] = seen as [Seen];
  expect(request.headers['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
  expect(request.headers['content-type']).toBe('application/x-amz-json-1.0');
  expect(request.headers['x-amz-security-token']).toBe('token-1');
  expect(String(request.headers.authorization)).toMatch(
    /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=[^,]*x-amz-target[^,]*, Signature=[0-9a-f]{64}$/,
  );
  expect(request.body).toEqual({ TableName: 'nodes', Key: { uuid: { S: 'u1' } }, ConsistentRead: true });
});

it('marshals native values in and unmarshals them out', async () => {
  replies.push({
    status: 200,
    body: { Item: { uuid: { S: 'u1' }, n: { N: '3' }, tags: { L: [{ S: 'a' }] }, on: { BOOL: true }, gone: { NULL: true } } },
  });
  const out = await client.send(new GetCommand({ TableName: 'nodes', Key: { uuid: 'u1' } }));
  expect(out.Item).toEqual({ uuid: 'u1', n: 3, tags: ['a'], on: true, gone: null });
  expect(out.$metadata).toMatchObject({ httpStatusCode: 200, requestId: 'req-1', attempts: 1 });

  await client.send(
    new PutCommand({
      TableName: 'nodes',
      Item: { uuid: 'u2', extra: {}, skip: undefined, empty: '' },
      ConditionExpression: 'a = :v',
      ExpressionAttributeValues: { ':v': 1 },
    }),
  );
  expect(seen[1]?.body).toEqual({
    TableName: 'nodes',
    Item: { uuid: { S: 'u2' }, extra: { M: {} }, empty: { S: '' } },
    ConditionExpression: 'a = :v',
    ExpressionAttributeValues: { ':v': { N: '1' } },
  });

  replies.push({ status: 200, body: { Items: [{ uuid: { S: 'q' } }], LastEvaluatedKey: { uuid: { S: 'q' } }, Count: 1 } });
  const page = await client.send(
    new QueryCommand({
      TableName: 'nodes',
      KeyConditionExpression: 'k = :k',
      ExpressionAttributeValues: { ':k': 'x' },
      ExclusiveStartKey: { uuid: 'p' },
    }),
  );
  expect(seen[2]?.body).toMatchObject({ ExclusiveStartKey: { uuid: { S: 'p' } }, ExpressionAttributeValues: { ':k': { S: 'x' } } });
  expect(page).toMatchObject({ Items: [{ uuid: 'q' }], LastEvaluatedKey: { uuid: 'q' }, Count: 1 });

  replies.push({
    status: 200,
    body: {
      Responses: { nodes: [{ uuid: { S: 'b' } }] },
      UnprocessedKeys: { nodes: { Keys: [{ uuid: { S: 'c' } }], ConsistentRead: true } },
    },
  });
  const batch = await client.send(
    new BatchGetCommand({ RequestItems: { nodes: { Keys: [{ uuid: 'b' }, { uuid: 'c' }], ConsistentRead: true } } }),
  );
  expect(seen[3]?.body).toEqual({ RequestItems: { nodes: { Keys: [{ uuid: { S: 'b' } }, { uuid: { S: 'c' } }], ConsistentRead: true } } });
  expect(batch.Responses).toEqual({ nodes: [{ uuid: 'b' }] });
  expect(batch.UnprocessedKeys).toEqual({ nodes: { Keys: [{ uuid: 'c' }], ConsistentRead: true } });

  replies.push({ status: 200, body: { UnprocessedItems: { nodes: [{ DeleteRequest: { Key: { uuid: { S: 'e' } } } }] } } });
  const written = await client.send(
    new BatchWriteCommand({
      RequestItems: { nodes: [{ PutRequest: { Item: { uuid: 'd' } } }, { DeleteRequest: { Key: { uuid: 'e' } } }] },
    }),
  );
  expect(seen[4]?.body).toEqual({
    RequestItems: { nodes: [{ PutRequest: { Item: { uuid: { S: 'd' } } } }, { DeleteRequest: { Key: { uuid: { S: 'e' } } } }] },
  });
  expect(written.UnprocessedItems).toEqual({ nodes: [{ DeleteRequest: { Key: { uuid: 'e' } } }] });
});

it('gives every transaction an idempotency token, the same on each attempt, so a retried one does not conflict with itself', async () => {
  replies.push(SERVER_ERROR);
  await client.send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: 'nodes', Item: { uuid: 'a' } } },
        {
          ConditionCheck: {
            TableName: 'uniques',
            Key: { key: 'k' },
            ConditionExpression: 'attribute_exists(#k)',
            ExpressionAttributeNames: { '#k': 'key' },
          },
        },
        { Update: { TableName: 'nodes', Key: { uuid: 'b' }, UpdateExpression: 'SET x = :x', ExpressionAttributeValues: { ':x': [1] } } },
      ],
    }),
  );
  const [first, second] = seen.map((s) => s.body as { ClientRequestToken: string; TransactItems: unknown[] });
  expect(first?.ClientRequestToken).toMatch(/^[0-9a-f-]{36}$/);
  expect(second?.ClientRequestToken).toBe(first?.ClientRequestToken);
  expect(first?.TransactItems).toEqual([
    { Put: { TableName: 'nodes', Item: { uuid: { S: 'a' } } } },
    {
      ConditionCheck: {
        TableName: 'uniques',
        Key: { key: { S: 'k' } },
        ConditionExpression: 'attribute_exists(#k)',
        ExpressionAttributeNames: { '#k': 'key' },
      },
    },
    {
      Update: {
        TableName: 'nodes',
        Key: { uuid: { S: 'b' } },
        UpdateExpression: 'SET x = :x',
        ExpressionAttributeValues: { ':x': { L: [{ N: '1' }] } },
      },
    },
  ]);
});

it('throws what DynamoDB refused, with the items it carries unmarshalled, without retrying', async () => {
  replies.push(
    awsError(400, 'TransactionCanceledException', 'Transaction cancelled [None, ConditionalCheckFailed]', {
      CancellationReasons: [
        { Code: 'None' },
        { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', Item: { uuid: { S: 'x' } } },
      ],
    }),
  );
  const err = (await client.send(new TransactWriteCommand({ TransactItems: [] })).catch((e: unknown) => e)) as Record<string, unknown>;
  expect(err.name).toBe('TransactionCanceledException');
  expect(err.CancellationReasons).toEqual([
    { Code: 'None' },
    { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', Item: { uuid: 'x' } },
  ]);
  expect(err.$metadata).toMatchObject({ httpStatusCode: 400, attempts: 1 });
  expect(isTransient(err)).toBe(false);
  expect(outcomeUnknown(err)).toBe(false);

  replies.push(CONDITION_FAILED);
  const failed = await client.send(new PutCommand({ TableName: 'nodes', Item: { uuid: 'a' } })).catch((e: unknown) => e);
  expect(failed).toMatchObject({ name: 'ConditionalCheckFailedException', message: 'The conditional request failed' });
  expect(outcomeUnknown(failed)).toBe(false);
  expect(seen).toHaveLength(2);
});

it('retries throttling, server errors and dropped connections, up to the attempts configured', async () => {
  replies.push(THROTTLED, 'reset', { status: 200, body: { Item: { uuid: { S: 'ok' } } } });
  const out = await client.send(new GetCommand({ TableName: 'nodes', Key: { uuid: 'ok' } }));
  expect(out.Item).toEqual({ uuid: 'ok' });
  expect(out.$metadata.attempts).toBe(3);
  expect(seen).toHaveLength(3);

  seen = [];
  replies.push(SERVER_ERROR, SERVER_ERROR, SERVER_ERROR);
  await expect(client.send(new GetCommand({ TableName: 'nodes', Key: { uuid: 'x' } }))).rejects.toMatchObject({
    name: 'InternalServerError',
    $fault: 'server',
    $metadata: { attempts: 3 },
  });
  expect(seen).toHaveLength(3);
});

it('corrects its clock when DynamoDB says the signature is skewed, and signs the retry with the corrected time', async () => {
  const serverTime = new Date(Date.now() + 3 * 3600_000);
  replies.push({
    ...(awsError(400, 'InvalidSignatureException', 'Signature expired: is now earlier than (…)') as { status: number; body: unknown }),
    headers: { date: serverTime.toUTCString() },
  });
  const out = await client.send(new GetCommand({ TableName: 'nodes', Key: { uuid: 'u1' } }));
  expect(out.$metadata.attempts).toBe(2);
  const signedAt = (s: Seen | undefined) => {
    const d = String(s?.headers['x-amz-date']);
    return Date.parse(`${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 11)}:${d.slice(11, 13)}:${d.slice(13)}`);
  };
  expect(Math.abs(signedAt(seen[0]) - Date.now())).toBeLessThan(60_000);
  expect(Math.abs(signedAt(seen[1]) - serverTime.getTime())).toBeLessThan(60_000);
});

describe('the stores’ errors (createDocumentClient)', () => {
  const stores = (config: DynamoDBClientConfig = {}) => createDocumentClient(sdkClient(config));
  const put = () => new PutCommand({ TableName: 'nodes', Item: { uuid: 'a' }, ConditionExpression: 'attribute_not_exists(uuid)' });

  it('throttling beyond the retries is DatabaseUnavailable (503, Retry-After), a write known not applied', async () => {
    replies.push(THROTTLED, THROTTLED);
    const err = await stores({ maxAttempts: 2 })
      .send(put())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseUnavailable);
    const unavailable = err as DatabaseUnavailable;
    expect(unavailable.code).toBe(503);
    expect(unavailable.retryAfterSeconds).toBeGreaterThan(0);
    expect(unavailable.message).toBe('Resource temporarily unavailable, please retry.');
    expect(unavailable.reason).toMatch(/^DynamoDB ProvisionedThroughputExceededException: /);
    expect(unavailable.outcomeUnknown).toBe(false);
    expect(seen).toHaveLength(2);
  });

  it('a transaction cancelled only because DynamoDB throttled its items is DatabaseUnavailable too', async () => {
    replies.push(
      awsError(400, 'TransactionCanceledException', 'Transaction cancelled [None, ThrottlingError]', {
        CancellationReasons: [{ Code: 'None' }, { Code: 'ThrottlingError', Message: 'Throttling at transaction level' }],
      }),
    );
    await expect(stores().send(new TransactWriteCommand({ TransactItems: [] }))).rejects.toBeInstanceOf(DatabaseUnavailable);
  });

  it('a 5xx beyond the retries is DatabaseUnavailable whose write may have been applied', async () => {
    replies.push(SERVER_ERROR, SERVER_ERROR, SERVER_ERROR);
    const err = (await stores()
      .send(put())
      .catch((e: unknown) => e)) as DatabaseUnavailable;
    expect(err).toBeInstanceOf(DatabaseUnavailable);
    expect(err.outcomeUnknown).toBe(true);
    expect((err.cause as Error).name).toBe('InternalServerError');
  });

  it('a refusal after an attempt that may have been applied says so (the attempt was most likely its own)', async () => {
    replies.push(SERVER_ERROR, CONDITION_FAILED);
    const err = await stores()
      .send(put())
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect(outcomeUnknown(err)).toBe(true);
    // The next request starts afresh.
    replies.push(CONDITION_FAILED);
    expect(
      outcomeUnknown(
        await stores()
          .send(put())
          .catch((e: unknown) => e),
      ),
    ).toBe(false);
  });

  it('an attempt that outlives the request timeout is retried, then DatabaseUnavailable of unknown outcome', async () => {
    replies.push('hang', 'hang');
    const started = Date.now();
    const err = (await stores({ maxAttempts: 2, requestHandler: { requestTimeout: 200, throwOnRequestTimeout: true } })
      .send(put())
      .catch((e: unknown) => e)) as DatabaseUnavailable;
    expect(err).toBeInstanceOf(DatabaseUnavailable);
    expect((err.cause as Error).name).toBe('TimeoutError');
    expect(err.outcomeUnknown).toBe(true);
    expect(seen).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a connection refused is DatabaseUnavailable of a write certainly not applied', async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((done) => closed.close(() => done()));
    const err = (await stores({ endpoint: `http://127.0.0.1:${port}`, maxAttempts: 2 })
      .send(put())
      .catch((e: unknown) => e)) as DatabaseUnavailable;
    expect(err).toBeInstanceOf(DatabaseUnavailable);
    expect(err.outcomeUnknown).toBe(false);
  });

  it('an item over the size limit is ObjectTooLarge (400); other refusals are thrown as they are', async () => {
    replies.push(awsError(400, 'ValidationException', 'Item size has exceeded the maximum allowed size'));
    await expect(stores().send(put())).rejects.toBeInstanceOf(ObjectTooLarge);
    replies.push(awsError(400, 'ValidationException', 'One or more parameter values were invalid'));
    await expect(stores().send(put())).rejects.toMatchObject({ name: 'ValidationException' });
  });
});

describe('profiles', () => {
  /** The longest a request can take: every attempt timing out, and the longest throttling backoff between them. */
  const worstCaseSeconds = (profile: keyof typeof CLIENT_PROFILES) => {
    const p = CLIENT_PROFILES[profile];
    let backoff = 0;
    for (let retry = 0; retry < p.maxAttempts - 1; retry++) backoff += Math.min(20, 2 ** retry);
    return (p.maxAttempts * (p.connectionTimeoutMs + p.requestTimeoutMs)) / 1000 + backoff;
  };

  it('keep one API request within API Gateway’s 29 s, and give the conductor more patience', () => {
    expect(worstCaseSeconds('api')).toBeLessThan(29);
    expect(CLIENT_PROFILES.conductor.maxAttempts).toBeGreaterThan(CLIENT_PROFILES.api.maxAttempts);
    expect(CLIENT_PROFILES.conductor.retryMode).toBe('adaptive');
  });

  it('build clients with those retries, keep-alive connections and timeouts that throw', async () => {
    const config = profileConfig('conductor');
    expect(config).toMatchObject({ retryMode: 'adaptive', maxAttempts: 6 });
    const handler = config.requestHandler as { requestTimeout: number; throwOnRequestTimeout: boolean; httpAgent: { keepAlive: boolean } };
    expect(handler).toMatchObject({ requestTimeout: 10_000, connectionTimeout: 2000, throwOnRequestTimeout: true });
    expect(handler.httpAgent.keepAlive).toBe(true);

    const built = new DocumentClient({ profile: 'api', config: { endpoint, region: 'eu-west-1', credentials } });
    try {
      expect(await built.sdk.config.maxAttempts()).toBe(3);
      replies.push({ status: 200, body: {} }, { status: 200, body: {} });
      await built.send(new GetCommand({ TableName: 'nodes', Key: { uuid: 'a' } }));
      await built.send(new GetCommand({ TableName: 'nodes', Key: { uuid: 'b' } }));
      expect(seen.map((s) => s.headers.connection)).toEqual(['keep-alive', 'keep-alive']);
    } finally {
      built.destroy();
    }
  });
});
