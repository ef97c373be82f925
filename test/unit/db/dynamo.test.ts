/**
 * The document client's wire protocol, against a loopback server standing in for DynamoDB: the
 * signed request (checked against the AWS SDK's own SigV4 signer), marshalling both ways, error
 * decoding, and which failures are retried. The store suites run it against DynamoDB Local.
 */
import { createHash, createHmac } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DocumentClient,
  DynamoDbError,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '../../../functions/db/dynamo';

interface Seen {
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
  readonly raw: string;
}
type Reply = { status: number; body: unknown } | 'reset';

let server: Server;
let endpoint: string;
let seen: Seen[];
let replies: Reply[];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString();
      seen.push({ headers: req.headers, body: JSON.parse(raw) as Record<string, unknown>, raw });
      const reply = replies.shift() ?? { status: 200, body: {} };
      if (reply === 'reset') {
        req.socket.destroy();
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': `req-${seen.length}` });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

let client: DocumentClient;
const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'token-1' };
beforeEach(() => {
  seen = [];
  replies = [];
  client = new DocumentClient({ endpoint, region: 'eu-west-1', credentials, maxAttempts: 3 });
});
afterEach(() => client.destroy());

it('signs each request as the AWS SDK signs it, and names the operation', async () => {
  replies.push({ status: 200, body: { Item: { uuid: { S: 'u1' } } } });
  await client.send(new GetCommand({ TableName: 'nodes', Key: { uuid: 'u1' }, ConsistentRead: true }));
  const [request] = seen as [Seen];
  expect(request.headers['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
  expect(request.headers['content-type']).toBe('application/x-amz-json-1.0');
  expect(request.headers['x-amz-security-token']).toBe('token-1');

  const amzDate = String(request.headers['x-amz-date']);
  const signer = new SignatureV4({ service: 'dynamodb', region: 'eu-west-1', credentials, sha256: Sha256, applyChecksum: false });
  const url = new URL(endpoint);
  const expected = await signer.sign(
    new HttpRequest({
      method: 'POST',
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path: '/',
      headers: {
        host: url.host,
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.GetItem',
        'x-amz-security-token': 'token-1',
        'content-length': String(Buffer.byteLength(request.raw)),
      },
      body: request.raw,
    }),
    {
      signingDate: new Date(
        `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13)}`,
      ),
    },
  );
  const signature = (header: unknown) => /Signature=([0-9a-f]{64})/.exec(String(header))?.[1];
  expect(signature(request.headers.authorization)).toBeDefined();
  const signedHeaders = (header: unknown) => /SignedHeaders=([^,]+)/.exec(String(header))?.[1];
  expect(signedHeaders(request.headers.authorization)).toBe(signedHeaders(expected.headers.authorization));
  expect(signature(request.headers.authorization)).toBe(signature(expected.headers.authorization));
  expect(String(request.headers.authorization)).toContain('Credential=AKIDEXAMPLE/');
  expect(String(request.headers.authorization)).toContain('/eu-west-1/dynamodb/aws4_request');
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

it('gives every transaction an idempotency token, so a retried one does not conflict with itself', async () => {
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
  const body = seen[0]?.body as { ClientRequestToken: string; TransactItems: unknown[] };
  expect(body.ClientRequestToken).toMatch(/^[0-9a-f-]{36}$/);
  expect(body.TransactItems).toEqual([
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

it('throws what DynamoDB answered, named by its type, without retrying a refusal', async () => {
  replies.push({
    status: 400,
    body: {
      __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
      Message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]',
      CancellationReasons: [
        { Code: 'None' },
        { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', Item: { uuid: { S: 'x' } } },
      ],
    },
  });
  const err = (await client.send(new TransactWriteCommand({ TransactItems: [] })).catch((e: unknown) => e)) as DynamoDbError;
  expect(err).toBeInstanceOf(DynamoDbError);
  expect(err.name).toBe('TransactionCanceledException');
  expect(err.message).toMatch(/^Transaction cancelled/);
  expect(err.CancellationReasons).toEqual([
    { Code: 'None' },
    { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', Item: { uuid: 'x' } },
  ]);
  expect(err.$metadata).toMatchObject({ httpStatusCode: 400, attempts: 1 });
  expect(err.$fault).toBe('client');

  replies.push({
    status: 400,
    body: { __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException', message: 'The conditional request failed' },
  });
  await expect(client.send(new PutCommand({ TableName: 'nodes', Item: { uuid: 'a' } }))).rejects.toMatchObject({
    name: 'ConditionalCheckFailedException',
    message: 'The conditional request failed',
  });
  expect(seen).toHaveLength(2);
});

it('retries throttling, server errors and dropped connections, up to maxAttempts', async () => {
  replies.push(
    { status: 400, body: { __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException', message: 'slow down' } },
    'reset',
    { status: 200, body: { Item: { uuid: { S: 'ok' } } } },
  );
  const out = await client.send(new GetCommand({ TableName: 'nodes', Key: { uuid: 'ok' } }));
  expect(out.Item).toEqual({ uuid: 'ok' });
  expect(out.$metadata.attempts).toBe(3);
  expect(seen).toHaveLength(3);

  seen = [];
  replies.push(
    ...Array.from({ length: 3 }, () => ({
      status: 500,
      body: { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'boom' },
    })),
  );
  await expect(client.send(new GetCommand({ TableName: 'nodes', Key: { uuid: 'x' } }))).rejects.toMatchObject({
    name: 'InternalServerError',
    $fault: 'server',
    $metadata: { attempts: 3 },
  });
  expect(seen).toHaveLength(3);
});

it('hands a refusal to mapError, and tells a missing configuration plainly', async () => {
  const mapped = new DocumentClient({ endpoint, region: 'eu-west-1', credentials, mapError: (e) => new Error(`mapped ${e.name}`) });
  replies.push({
    status: 400,
    body: { __type: 'com.amazon.coral.validate#ValidationException', message: 'Item size has exceeded the maximum allowed size' },
  });
  await expect(mapped.send(new PutCommand({ TableName: 'nodes', Item: { uuid: 'a' } }))).rejects.toThrow('mapped ValidationException');
  mapped.destroy();

  const saved = { ...process.env };
  try {
    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    const bare = new DocumentClient({ endpoint, region: 'eu-west-1' });
    await expect(bare.send(new GetCommand({ TableName: 'nodes', Key: { uuid: 'a' } }))).rejects.toThrow(/set AWS_ACCESS_KEY_ID/);
    bare.destroy();
  } finally {
    process.env = saved;
  }
  expect(seen).toHaveLength(1);
});

/** The SHA-256 the SDK's signer wants (a Hash interface over node:crypto). */
class Sha256 {
  private readonly hash;
  constructor(secret?: string | Uint8Array | ArrayBuffer | ArrayBufferView) {
    this.hash =
      secret === undefined
        ? createHash('sha256')
        : (createHmac('sha256', typeof secret === 'string' ? secret : new Uint8Array(secret as ArrayBuffer)) as unknown as ReturnType<
            typeof createHash
          >);
  }
  update(data: string | Uint8Array | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(typeof data === 'string' ? data : new Uint8Array(data as ArrayBuffer));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
}
