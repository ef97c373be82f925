/**
 * DynamoDB's JSON protocol, spoken directly: the document client every store uses.
 *
 * The commands and their input and output shapes are lib-dynamodb's (native JavaScript values in,
 * native values out), so stores read as they would with the SDK. Underneath, one request is one
 * JSON body, signed with SigV4 by `aws4`, sent over a keep-alive agent, retried with backoff when
 * DynamoDB throttles or the connection drops. The AWS SDK's middleware stack (endpoint rule set,
 * schema serde, user agent, retry quota, signing) costs about 0.35 ms of CPU per call on this
 * project's machine; this path costs about 0.09 ms, and a store call is most of what a GET node
 * does (see the README's Benchmarks section).
 *
 * Marshalling is `@aws-sdk/util-dynamodb`'s, with the options the stores have always used: undefined
 * values removed, empty strings kept, numbers as JavaScript numbers. The legacy parameters
 * (`Expected`, `KeyConditions`, `QueryFilter`, `ScanFilter`, `AttributeUpdates`) are not marshalled.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type {
  BatchGetCommandInput,
  BatchGetCommandOutput,
  BatchWriteCommandInput,
  BatchWriteCommandOutput,
  DeleteCommandInput,
  DeleteCommandOutput,
  GetCommandInput,
  GetCommandOutput,
  PutCommandInput,
  PutCommandOutput,
  QueryCommandInput,
  QueryCommandOutput,
  ScanCommandInput,
  ScanCommandOutput,
  TransactWriteCommandInput,
  TransactWriteCommandOutput,
  UpdateCommandInput,
  UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import aws4 from 'aws4';

type Dict = Record<string, unknown>;
type Wire = Record<string, AttributeValue>;

/** A value, or an async function that gives it (as the SDK's own config providers do). */
export type Provider<T> = T | (() => Promise<T>);

export interface Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string | undefined;
}

export interface DynamoConfig {
  /** Default: AWS_REGION, then AWS_DEFAULT_REGION. */
  readonly region?: Provider<string>;
  /** Default: AWS_ENDPOINT_URL_DYNAMODB, then AWS_ENDPOINT_URL, then the region's public endpoint. */
  readonly endpoint?: Provider<string | undefined>;
  /** Default: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (what Lambda sets). */
  readonly credentials?: Provider<Credentials>;
  /** Attempts per request, the first included (the SDK's default, 3). */
  readonly maxAttempts?: Provider<number>;
  /** What a failed request throws instead of its DynamoDbError (the stores' own errors). */
  readonly mapError?: (err: DynamoDbError) => Error;
}

interface Metadata {
  httpStatusCode?: number;
  requestId?: string;
  attempts: number;
  totalRetryDelay: number;
}

/** One DynamoDB operation and its input; `send` gives its output. */
export abstract class Command<Input, Output> {
  abstract readonly operation: string;
  /** Only for typing `send`: never set. */
  declare readonly output?: Output;
  constructor(readonly input: Input) {}
}

export class GetCommand extends Command<GetCommandInput, GetCommandOutput> {
  readonly operation = 'GetItem';
}
export class PutCommand extends Command<PutCommandInput, PutCommandOutput> {
  readonly operation = 'PutItem';
}
export class UpdateCommand extends Command<UpdateCommandInput, UpdateCommandOutput> {
  readonly operation = 'UpdateItem';
}
export class DeleteCommand extends Command<DeleteCommandInput, DeleteCommandOutput> {
  readonly operation = 'DeleteItem';
}
export class QueryCommand extends Command<QueryCommandInput, QueryCommandOutput> {
  readonly operation = 'Query';
}
export class ScanCommand extends Command<ScanCommandInput, ScanCommandOutput> {
  readonly operation = 'Scan';
}
export class BatchGetCommand extends Command<BatchGetCommandInput, BatchGetCommandOutput> {
  readonly operation = 'BatchGetItem';
}
export class BatchWriteCommand extends Command<BatchWriteCommandInput, BatchWriteCommandOutput> {
  readonly operation = 'BatchWriteItem';
}
export class TransactWriteCommand extends Command<TransactWriteCommandInput, TransactWriteCommandOutput> {
  readonly operation = 'TransactWriteItems';
}

/** An error DynamoDB answered (named by its `__type`), or a request that never got an answer. */
export class DynamoDbError extends Error {
  /** TransactionCanceledException: one reason per transaction item, in order. */
  CancellationReasons?: { Code?: string; Message?: string; Item?: Dict }[];
  /** ConditionalCheckFailedException with ReturnValuesOnConditionCheckFailure: the item as it was. */
  Item?: Dict;
  readonly $fault: 'client' | 'server';

  constructor(
    name: string,
    message: string,
    readonly $metadata: Metadata,
    readonly $retryable: boolean,
  ) {
    super(message);
    this.name = name;
    this.$fault = $metadata.httpStatusCode !== undefined && $metadata.httpStatusCode < 500 ? 'client' : 'server';
  }
}

/** Error names DynamoDB uses for "slow down" (the SDK's throttling list, as far as DynamoDB goes). */
const THROTTLING = new Set([
  'ThrottlingException',
  'Throttling',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TransactionInProgressException',
  'LimitExceededException',
  'TooManyRequestsException',
]);
/** Backoff: full jitter over base × 2^(attempt − 1), capped, as the SDK's standard retry mode. */
const BACKOFF_BASE_MS = 100;
const BACKOFF_CAP_MS = 20_000;
const MARSHALL = { removeUndefinedValues: true, convertEmptyValues: false } as const;

const toWire = (value: Dict): Wire => marshall(value, MARSHALL) as Wire;
const fromWire = (value: Wire): Dict => unmarshall(value);

/** The request body for `input`: the item-valued fields marshalled. */
function marshallInput(operation: string, input: Dict): Dict {
  if (operation === 'BatchGetItem') {
    const requests = input.RequestItems as Record<string, Dict & { Keys: Dict[] }>;
    return {
      ...input,
      RequestItems: mapValues(requests, (request) => ({ ...request, Keys: request.Keys.map(toWire) })),
    };
  }
  if (operation === 'BatchWriteItem') {
    const requests = input.RequestItems as Record<string, Dict[]>;
    return { ...input, RequestItems: mapValues(requests, (list) => list.map(marshallWriteRequest)) };
  }
  if (operation === 'TransactWriteItems') {
    const items = (input.TransactItems as Record<string, Dict>[]).map((item) => mapValues(item, (part) => marshallItemFields(part)));
    // The SDK fills this idempotency token when it is missing: a retried transaction (the first
    // attempt's answer lost) then succeeds once instead of failing on its own writes.
    return { ClientRequestToken: randomUUID(), ...input, TransactItems: items };
  }
  return marshallItemFields(input);
}

function marshallItemFields(part: Dict): Dict {
  const out: Dict = { ...part };
  for (const field of ['Key', 'Item', 'ExpressionAttributeValues', 'ExclusiveStartKey']) {
    if (part[field] !== undefined) out[field] = toWire(part[field] as Dict);
  }
  return out;
}

function marshallWriteRequest(request: Dict): Dict {
  const put = request.PutRequest as { Item: Dict } | undefined;
  const del = request.DeleteRequest as { Key: Dict } | undefined;
  return {
    ...(put ? { PutRequest: { Item: toWire(put.Item) } } : {}),
    ...(del ? { DeleteRequest: { Key: toWire(del.Key) } } : {}),
  };
}

/** The output for a response body: its item-valued fields unmarshalled. */
function unmarshallOutput(body: Dict): Dict {
  const out: Dict = { ...body };
  for (const field of ['Item', 'Attributes', 'LastEvaluatedKey']) {
    if (body[field] !== undefined) out[field] = fromWire(body[field] as Wire);
  }
  if (Array.isArray(body.Items)) out.Items = (body.Items as Wire[]).map(fromWire);
  if (body.Responses !== undefined) out.Responses = mapValues(body.Responses as Record<string, Wire[]>, (items) => items.map(fromWire));
  if (body.UnprocessedKeys !== undefined) {
    const pending = body.UnprocessedKeys as Record<string, Dict & { Keys: Wire[] }>;
    out.UnprocessedKeys = mapValues(pending, (request) => ({ ...request, Keys: request.Keys.map(fromWire) }));
  }
  if (body.UnprocessedItems !== undefined) {
    const pending = body.UnprocessedItems as Record<string, Dict[]>;
    out.UnprocessedItems = mapValues(pending, (list) =>
      list.map((request) => {
        const put = request.PutRequest as { Item: Wire } | undefined;
        const del = request.DeleteRequest as { Key: Wire } | undefined;
        return {
          ...(put ? { PutRequest: { Item: fromWire(put.Item) } } : {}),
          ...(del ? { DeleteRequest: { Key: fromWire(del.Key) } } : {}),
        };
      }),
    );
  }
  return out;
}

function mapValues<A, B>(record: Record<string, A>, fn: (value: A) => B): Record<string, B> {
  const out: Record<string, B> = {};
  for (const [key, value] of Object.entries(record)) out[key] = fn(value);
  return out;
}

/** The error DynamoDB's JSON error body describes (`__type` is "<namespace>#<Name>"). */
function decodeError(status: number, text: string, metadata: Metadata): DynamoDbError {
  let body: Dict = {};
  try {
    body = JSON.parse(text) as Dict;
  } catch {
    // Not JSON (a proxy's page, a truncated body): the status says what happened.
  }
  const type = typeof body.__type === 'string' ? body.__type : '';
  const name = type.includes('#') ? type.slice(type.lastIndexOf('#') + 1) : type || `HttpError${status}`;
  const message = String(body.message ?? body.Message ?? (text || `HTTP ${status}`));
  const retryable = status >= 500 || status === 429 || THROTTLING.has(name);
  const err = new DynamoDbError(name, message, metadata, retryable);
  if (Array.isArray(body.CancellationReasons)) {
    err.CancellationReasons = (body.CancellationReasons as Dict[]).map((reason) => ({
      ...reason,
      ...(reason.Item ? { Item: fromWire(reason.Item as Wire) } : {}),
    }));
  }
  if (body.Item !== undefined) err.Item = fromWire(body.Item as Wire);
  return err;
}

const resolve = <T>(provider: Provider<T>): Promise<T> | T =>
  typeof provider === 'function' ? (provider as () => Promise<T>)() : provider;

function credentialsFromEnv(): Credentials {
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_SESSION_TOKEN: sessionToken } = process.env;
  if (!accessKeyId || !secretAccessKey) {
    throw new DynamoDbError(
      'CredentialsProviderError',
      'No AWS credentials for DynamoDB: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (Lambda sets them for its role)',
      { attempts: 0, totalRetryDelay: 0 },
      false,
    );
  }
  return { accessKeyId, secretAccessKey, sessionToken };
}

function publicEndpoint(region: string): string {
  return `https://dynamodb.${region}.${region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com'}`;
}

interface Target {
  readonly url: URL;
  readonly region: string;
  readonly agent: http.Agent;
  readonly maxAttempts: number;
}

export class DocumentClient {
  private target: Promise<Target> | undefined;

  constructor(private readonly config: DynamoConfig = {}) {}

  async send<Input, Output>(command: Command<Input, Output>): Promise<Output> {
    try {
      const body = JSON.stringify(marshallInput(command.operation, command.input as Dict));
      const { status, text, metadata } = await this.request(command.operation, body);
      const output = text === '' ? {} : unmarshallOutput(JSON.parse(text) as Dict);
      return { ...output, $metadata: { ...metadata, httpStatusCode: status } } as Output;
    } catch (err) {
      throw err instanceof DynamoDbError && this.config.mapError ? this.config.mapError(err) : err;
    }
  }

  /** Close the keep-alive connections (tests, CLIs; a Lambda environment keeps them). */
  destroy(): void {
    void this.target?.then(
      (target) => target.agent.destroy(),
      () => undefined,
    );
  }

  private resolveTarget(): Promise<Target> {
    this.target ??= (async () => {
      const env = process.env;
      const region = (await resolve(this.config.region ?? (env.AWS_REGION || env.AWS_DEFAULT_REGION || ''))) || '';
      if (region === '')
        throw new DynamoDbError('ConfigError', 'No region for DynamoDB: set AWS_REGION', { attempts: 0, totalRetryDelay: 0 }, false);
      const configured =
        (this.config.endpoint === undefined ? undefined : await resolve(this.config.endpoint)) ||
        env.AWS_ENDPOINT_URL_DYNAMODB ||
        env.AWS_ENDPOINT_URL;
      const url = new URL(configured ?? publicEndpoint(region));
      const agent =
        url.protocol === 'https:'
          ? new https.Agent({ keepAlive: true, maxSockets: 50 })
          : new http.Agent({ keepAlive: true, maxSockets: 50 });
      return { url, region, agent, maxAttempts: Math.max(1, await resolve(this.config.maxAttempts ?? 3)) };
    })();
    this.target.catch(() => (this.target = undefined));
    return this.target;
  }

  private async request(operation: string, body: string): Promise<{ status: number; text: string; metadata: Metadata }> {
    const target = await this.resolveTarget();
    let totalRetryDelay = 0;
    for (let attempt = 1; ; attempt++) {
      const credentials = this.config.credentials === undefined ? credentialsFromEnv() : await resolve(this.config.credentials);
      const metadata: Metadata = { attempts: attempt, totalRetryDelay };
      let error: DynamoDbError;
      try {
        const res = await this.post(target, operation, body, credentials);
        metadata.httpStatusCode = res.status;
        if (res.requestId) metadata.requestId = res.requestId;
        if (res.status === 200) return { status: res.status, text: res.text, metadata };
        error = decodeError(res.status, res.text, metadata);
      } catch (err) {
        const e = err as NodeJS.ErrnoException;
        error = new DynamoDbError(e.code ?? 'NetworkingError', `${operation} to ${target.url.host}: ${e.message}`, metadata, true);
      }
      if (!error.$retryable || attempt >= target.maxAttempts) throw error;
      const delay = Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
      totalRetryDelay += delay;
      await new Promise((done) => setTimeout(done, delay));
    }
  }

  private post(
    target: Target,
    operation: string,
    body: string,
    credentials: Credentials,
  ): Promise<{ status: number; text: string; requestId?: string }> {
    const { url, region, agent } = target;
    const signed = aws4.sign(
      {
        host: url.host,
        path: url.pathname || '/',
        method: 'POST',
        service: 'dynamodb',
        region,
        body,
        headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': `DynamoDB_20120810.${operation}` },
      },
      credentials,
    );
    const options = {
      hostname: url.hostname,
      port: url.port || undefined,
      path: signed.path,
      method: 'POST',
      headers: signed.headers as http.OutgoingHttpHeaders,
      agent,
    };
    return new Promise((done, fail) => {
      const req = (url.protocol === 'https:' ? https : http).request(options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', fail);
        res.on('end', () => {
          const requestId = res.headers['x-amzn-requestid'];
          done({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            ...(typeof requestId === 'string' ? { requestId } : {}),
          });
        });
      });
      req.on('error', fail);
      req.end(body);
    });
  }
}
