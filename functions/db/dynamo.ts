/**
 * The document client every store uses: DynamoDB through the AWS SDK's low-level client
 * (`@aws-sdk/client-dynamodb`), with items marshalled by `@aws-sdk/util-dynamodb`.
 *
 * The commands and their input and output shapes are lib-dynamodb's (native JavaScript values in,
 * native values out), so stores read as they would with its document client; marshalling
 * (`marshalling.ts`) walks only the few item-valued fields of each operation, where lib-dynamodb
 * walks every field of every input and output and cannot use cacheMiddleware (it measured no
 * cheaper: see the README's Benchmarks).
 *
 * Everything the wire needs is the SDK's: SigV4 signing with clock-skew correction, the credential
 * provider chain, endpoint resolution (FIPS and dual-stack through AWS_USE_FIPS_ENDPOINT and
 * AWS_USE_DUALSTACK_ENDPOINT), the idempotency token of TransactWriteItems, and the standard or
 * adaptive retry strategy. A client is built once per execution environment for a profile
 * (`CLIENT_PROFILES`): keep-alive connections, connection and request timeouts, and retries sized
 * for who waits — the API answers within API Gateway's 29 s, the conductor can wait longer.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DeleteItemCommand,
  DynamoDBClient,
  type DynamoDBClientConfig,
  GetItemCommand,
  PutItemCommand,
  QueryCommand as QueryItemsCommand,
  ScanCommand as ScanItemsCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
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
import { marshallInput, unmarshallError, unmarshallOutput } from './marshalling';

type Dict = Record<string, unknown>;

/** One DynamoDB operation and its input; `send` gives its output. */
export abstract class Command<Input, Output> {
  abstract readonly operation: Operation;
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

/** The SDK command for each operation. */
const SDK_COMMANDS = {
  GetItem: GetItemCommand,
  PutItem: PutItemCommand,
  UpdateItem: UpdateItemCommand,
  DeleteItem: DeleteItemCommand,
  Query: QueryItemsCommand,
  Scan: ScanItemsCommand,
  BatchGetItem: BatchGetItemCommand,
  BatchWriteItem: BatchWriteItemCommand,
  TransactWriteItems: TransactWriteItemsCommand,
} as const;
export type Operation = keyof typeof SDK_COMMANDS;

/** Who waits for DynamoDB, and so how long a request may take and how often it is retried. */
export type ClientProfile = 'api' | 'conductor' | 'tool';

export interface ProfileSettings {
  /** The SDK's retry mode: `adaptive` also slows this client down while DynamoDB throttles it. */
  readonly retryMode: 'standard' | 'adaptive';
  /** Attempts per request, the first included. */
  readonly maxAttempts: number;
  /** Most milliseconds to open a connection. */
  readonly connectionTimeoutMs: number;
  /** Most milliseconds for one attempt, from sending to the whole answer. */
  readonly requestTimeoutMs: number;
}

/**
 * Retries and timeouts by profile. With the SDK's backoff (full jitter over 1 s × 2^n when
 * throttled, capped at 20 s; 25 ms × 2^n otherwise) the API's 3 attempts wait at most 3 s between
 * them, and one request takes at most 3 × 5 s + 3 s: a request of a few DynamoDB calls still
 * answers (503 at worst) within API Gateway's 29 s. The conductor's 6 attempts ride out about 15 s
 * of throttling on average (31 s at most); beyond that its callers retry (Step Functions' Retry on
 * DatabaseUnavailable, SQS redelivery). `tool` is dbsync: long batch work, patient.
 */
export const CLIENT_PROFILES: Readonly<Record<ClientProfile, ProfileSettings>> = {
  api: { retryMode: 'standard', maxAttempts: 3, connectionTimeoutMs: 1000, requestTimeoutMs: 5000 },
  conductor: { retryMode: 'adaptive', maxAttempts: 6, connectionTimeoutMs: 2000, requestTimeoutMs: 10_000 },
  tool: { retryMode: 'adaptive', maxAttempts: 10, connectionTimeoutMs: 2000, requestTimeoutMs: 30_000 },
};

/** The SDK client configuration of a profile: retries, timeouts, keep-alive connections. */
export function profileConfig(profile: ClientProfile): DynamoDBClientConfig {
  const p = CLIENT_PROFILES[profile];
  const agent = { keepAlive: true, maxSockets: 50 };
  return {
    retryMode: p.retryMode,
    maxAttempts: p.maxAttempts,
    requestHandler: {
      connectionTimeout: p.connectionTimeoutMs,
      requestTimeout: p.requestTimeoutMs,
      throwOnRequestTimeout: true,
      httpAgent: new HttpAgent(agent),
      httpsAgent: new HttpsAgent(agent),
    },
  };
}

export interface DocumentClientOptions {
  /** Send through this SDK client as it is configured (tests, CLIs); it stays the caller's to destroy. */
  readonly sdk?: DynamoDBClient;
  /** Otherwise a client is built for this profile (default `api`)… */
  readonly profile?: ClientProfile;
  /** …with this configuration on top (an endpoint, region or credentials). */
  readonly config?: DynamoDBClientConfig;
  /** What a failed request throws instead of the SDK's error (the stores' own errors). */
  readonly mapError?: (err: Error) => Error;
}

/**
 * Error names DynamoDB answers when it throttles (the SDK's throttling list, as far as DynamoDB
 * goes). A throttled request was not applied.
 */
export const THROTTLING_ERRORS: ReadonlySet<string> = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'TransactionInProgressException',
  'Throttling',
  'TooManyRequestsException',
]);

/** Cancellation reasons of a transaction item DynamoDB throttled. */
const THROTTLED_ITEM = new Set(['ProvisionedThroughputExceeded', 'ThrottlingError', 'RequestLimitExceeded']);

/** Node's errors for a connection that never carried the request. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const NETWORK_CODES = new Set([...NOT_SENT_CODES, 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

interface SdkErrorShape {
  name?: string;
  code?: string;
  message?: string;
  $fault?: string;
  $metadata?: { httpStatusCode?: number; attempts?: number };
}

const statusOf = (err: unknown): number | undefined => (err as SdkErrorShape | undefined)?.$metadata?.httpStatusCode;

/**
 * Whether `err` (what the SDK threw after its retries) is DynamoDB being unavailable rather than a
 * refusal of the request: throttling, a 5xx, a timeout or a dropped connection. The request may
 * succeed if sent again later.
 */
export function isTransient(err: unknown): boolean {
  const e = err as SdkErrorShape | undefined;
  if (e === undefined || e === null || typeof e !== 'object') return false;
  if (transient.has(e)) return true;
  if (THROTTLING_ERRORS.has(e.name ?? '')) return true;
  if (e.name === 'TransactionCanceledException') {
    // Cancelled because an item was throttled, and for no reason of its own.
    const codes = ((e as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).map((r) => r.Code ?? 'None');
    return codes.some((code) => THROTTLED_ITEM.has(code)) && codes.every((code) => code === 'None' || THROTTLED_ITEM.has(code));
  }
  const status = statusOf(e);
  if (status !== undefined) return status >= 500 || status === 429;
  return e.name === 'TimeoutError' || NETWORK_CODES.has(e.code ?? '');
}

/** Whether one attempt's failure leaves open that DynamoDB applied the request. */
function attemptMayHaveApplied(err: unknown): boolean {
  const e = err as SdkErrorShape | undefined;
  if (e === undefined || e === null || typeof e !== 'object') return false;
  const status = statusOf(e);
  // DynamoDB answers 4xx only for requests it refused; 5xx may come after the write.
  if (status !== undefined) return status >= 500;
  if (NOT_SENT_CODES.has(e.code ?? '')) return false;
  if (e.name === 'TimeoutError' && /did not establish a connection/.test(e.message ?? '')) return false;
  return true;
}

/** Errors of requests some attempt of which may have been applied (see `attemptOutcome`). */
const uncertain = new WeakSet<object>();
/** Inputs (one object per `send`) of requests some attempt of which may have been applied. */
const uncertainInputs = new WeakSet<object>();
/** The last attempt's failure of each request, as it was before the SDK's retry loop wrapped it. */
const lastFailure = new WeakMap<object, unknown>();
/** Errors of requests whose last attempt failed for a transient cause (see `isTransient`). */
const transient = new WeakSet<object>();

/**
 * Whether a failed write may nevertheless have been applied: one of its attempts timed out, lost
 * its connection or got a 5xx. The error may be anything — a ConditionalCheckFailedException after
 * such an attempt is most likely the request's own earlier attempt.
 */
export function outcomeUnknown(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  if (uncertain.has(err)) return true;
  return (err as { outcomeUnknown?: unknown }).outcomeUnknown === true;
}

/** Mark `err` as the failure of a write that may have been applied (tests that inject faults). */
export function markOutcomeUnknown<E extends object>(err: E): E {
  uncertain.add(err);
  return err;
}

/**
 * Runs inside the SDK's retry loop, once per attempt, and remembers requests an attempt of which
 * may have been applied. Requests are told apart by their input object, one per `send`: the SDK
 * caches the resolved middleware per command class, so the handler context is shared by requests.
 * A single-item write refused for a transaction under way on its item (TransactionConflictException)
 * is made retryable, so the client's retry strategy sends it again after its backoff.
 */
const attemptOutcome =
  (next: (args: { input: object }) => Promise<unknown>) =>
  async (args: { input: object }): Promise<unknown> => {
    try {
      return await next(args);
    } catch (err) {
      if (attemptMayHaveApplied(err)) uncertainInputs.add(args.input);
      lastFailure.set(args.input, err);
      // The SDK's retryable trait (a transient error to its retry strategy). Only for a single-item
      // write: a cancelled transaction goes back to its caller, which knows a cheaper way on
      // (migrations write its items one by one, stores answer a lost race).
      if ((err as { name?: string })?.name === 'TransactionConflictException') (err as { $retryable?: object }).$retryable = {};
      throw err;
    }
  };

/** The SDK's middleware a client of the stores does without. */
const UNNEEDED_MIDDLEWARE = [
  // Filters every input and output for sensitive values for a logger that drops them: a schema
  // walk per request for nothing.
  'loggerMiddleware',
  // Builds the user agent string per request; DynamoDB needs none.
  'getUserAgentMiddleware',
  // Only sets X-Amzn-Trace-Id from _X_AMZN_TRACE_ID, for X-Ray, which Ironless does not use.
  'recursionDetectionMiddleware',
];

const prepared = new WeakSet<DynamoDBClient>();

/**
 * Prepare an SDK client for the stores (once): without the middleware they do without, with the
 * middleware stack resolved once per command class (the SDK's `cacheMiddleware`, also for a client
 * handed in), and with the attempt tracking.
 */
function prepare(sdk: DynamoDBClient): void {
  if (prepared.has(sdk)) return;
  prepared.add(sdk);
  for (const name of UNNEEDED_MIDDLEWARE) sdk.middlewareStack.remove(name);
  (sdk.config as { cacheMiddleware?: boolean }).cacheMiddleware = true;
  sdk.middlewareStack.addRelativeTo(attemptOutcome as never, {
    relation: 'after',
    toMiddleware: 'retryMiddleware',
    name: 'ironlessAttemptOutcome',
  });
}

export class DocumentClient {
  /** The SDK client requests go through. */
  readonly sdk: DynamoDBClient;
  private readonly owned: boolean;
  private readonly mapError: ((err: Error) => Error) | undefined;

  constructor(options: DocumentClientOptions = {}) {
    this.owned = options.sdk === undefined;
    this.sdk = options.sdk ?? new DynamoDBClient({ ...profileConfig(options.profile ?? 'api'), ...(options.config ?? {}) });
    prepare(this.sdk);
    this.mapError = options.mapError;
  }

  async send<Input, Output>(command: Command<Input, Output>): Promise<Output> {
    const Sdk = SDK_COMMANDS[command.operation] as unknown as new (input: Dict) => Parameters<DynamoDBClient['send']>[0];
    const input = marshallInput(command.operation, command.input as Dict);
    try {
      const output = await this.sdk.send(new Sdk(input));
      return unmarshallOutput(output as unknown as Dict) as Output;
    } catch (err) {
      if (typeof err === 'object' && err !== null) {
        if (uncertainInputs.has(input)) uncertain.add(err);
        // The SDK wraps what is not an Error of its own realm (a socket error seen from a test VM).
        if (isTransient(lastFailure.get(input))) transient.add(err);
      }
      unmarshallError(err);
      // Not `instanceof Error`: errors of Node's own sockets may come from another realm (a test VM).
      throw typeof err === 'object' && err !== null && this.mapError ? this.mapError(err as Error) : err;
    }
  }

  /** Close the keep-alive connections of a client built here (tests, CLIs; a Lambda environment keeps them). */
  destroy(): void {
    if (this.owned) this.sdk.destroy();
  }
}
