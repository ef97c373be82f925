/**
 * The conductor RPC client (Ironic's `ConductorAPI`): `cast` sends a message to the SQS queue of the
 * node's conductor group; `call` invokes the conductor function synchronously. The client caps the
 * version of what it sends at the pinned release's RPC version.
 */
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { compareVersions } from '#objects/base';
import { IronicError, RequestEntityTooLarge, TemporaryFailure } from '#common/errors';
import { newUuid } from '#common/ids';
import { type ClientSource, clientOf, once } from '#common/lazy';
import {
  ARG_VERSIONS,
  type CallReply,
  METHOD_VERSIONS,
  RPC_API_VERSION,
  type RequestContext,
  type RpcMessage,
  type RpcMethod,
  type RpcMethods,
  type RpcResults,
} from './messages';

/**
 * The largest message a cast may be: SQS's long-standing limit (256 KiB), which every queue takes
 * whatever its MaximumMessageSize. Casts carry ids and small arguments, except continue_inspection
 * (a ramdisk's inventory), which the API checks against this before anything is written.
 */
export const MAX_CAST_BYTES = 256 * 1024;

// The SDK's command classes, loaded with the first cast or call (an API that only reads never needs them).
const sqsCommands = once(() => import('@aws-sdk/client-sqs'));
const lambdaCommands = once(() => import('@aws-sdk/client-lambda'));

export interface RpcClientProps {
  /** The SQS client, or how to build it on the first cast. */
  readonly sqs: ClientSource<SQSClient>;
  /** Conductor group → queue URL. */
  readonly queues: Readonly<Record<string, string>>;
  /** The pinned release's RPC version; messages are never newer. */
  readonly versionCap: string;
  /** For calls: the Lambda client and the conductor function (with its `live` qualifier). */
  readonly lambda?: ClientSource<LambdaClient>;
  readonly conductorFunction?: string;
}

/** An error the conductor raised while answering a call, raised again on the caller's side. */
export class RemoteError extends IronicError {
  constructor(
    readonly remoteName: string,
    private readonly status: number,
    message: string,
  ) {
    super(message);
  }
  override get code(): number {
    return this.status;
  }
}

export class ConductorRpcClient {
  private readonly sqs: ClientSource<SQSClient>;
  private readonly queues: Readonly<Record<string, string>>;
  private readonly lambda: ClientSource<LambdaClient> | undefined;
  private readonly conductorFunction: string | undefined;
  readonly versionCap: string;

  constructor(props: RpcClientProps) {
    this.sqs = props.sqs;
    this.lambda = props.lambda;
    this.conductorFunction = props.conductorFunction;
    this.queues = props.queues;
    this.versionCap = compareVersions(props.versionCap, RPC_API_VERSION) < 0 ? props.versionCap : RPC_API_VERSION;
  }

  /** Whether this client may send `method` (the cap is at least the version that introduced it). */
  canSend(method: RpcMethod): boolean {
    return compareVersions(METHOD_VERSIONS[method], this.versionCap) <= 0;
  }

  /**
   * Build a message for `method`, stamped with the version it needs (its method's, or a later one
   * for an argument added since), within the cap.
   */
  message<M extends RpcMethod>(method: M, args: RpcMethods[M], context: RequestContext, messageId: string = newUuid()): RpcMessage<M> {
    if (!this.canSend(method)) {
      throw new TemporaryFailure(
        `RPC method ${method} needs RPC API ${METHOD_VERSIONS[method]}, above this service's cap ${this.versionCap}`,
      );
    }
    let version: string = METHOD_VERSIONS[method];
    const added: Readonly<Record<string, string>> = ARG_VERSIONS[method] ?? {};
    for (const [arg, since] of Object.entries(added)) {
      if ((args as Record<string, unknown>)[arg] === undefined) continue;
      if (compareVersions(since, this.versionCap) > 0) {
        throw new TemporaryFailure(
          `RPC method ${method} with ${arg} needs RPC API ${since}, above this service's cap ${this.versionCap}: a conductor of the pinned release would ignore it`,
        );
      }
      if (compareVersions(since, version) > 0) version = since;
    }
    return { rpc: version, method, args, context, message_id: messageId };
  }

  /** The queue of a conductor group; an unknown group has no conductor (Ironic's NoValidHost). */
  queueFor(group: string): string | undefined {
    return this.queues[group.toLowerCase()];
  }

  async cast(group: string, message: RpcMessage): Promise<void> {
    const queueUrl = this.queueFor(group);
    if (queueUrl === undefined) {
      throw new TemporaryFailure(`No conductor service registered which supports conductor group "${group}".`);
    }
    const body = JSON.stringify(message);
    const size = Buffer.byteLength(body);
    if (size > MAX_CAST_BYTES) {
      throw new RequestEntityTooLarge(
        `RPC message ${message.method} of ${size} bytes is larger than a cast may be (${MAX_CAST_BYTES} bytes)`,
      );
    }
    const [sqs, { SendMessageCommand }] = await Promise.all([clientOf(this.sqs), sqsCommands()]);
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  }

  /**
   * Call the conductor synchronously (Lambda Invoke) and return its result; an Ironic error the
   * conductor raised is raised here with the same status and message.
   */
  async call<M extends keyof RpcResults & RpcMethod>(message: RpcMessage<M>): Promise<RpcResults[M]> {
    if (this.lambda === undefined || this.conductorFunction === undefined)
      throw new Error('This RPC client cannot make calls: no conductor function');
    const [lambda, { InvokeCommand }] = await Promise.all([clientOf(this.lambda), lambdaCommands()]);
    const out = await lambda.send(
      new InvokeCommand({ FunctionName: this.conductorFunction, Payload: Buffer.from(JSON.stringify({ entry: 'call', message })) }),
    );
    const text = out.Payload ? Buffer.from(out.Payload).toString('utf8') : 'null';
    if (out.FunctionError) throw new TemporaryFailure(`The conductor failed to answer ${message.method}: ${text.slice(0, 300)}`);
    const reply = JSON.parse(text) as CallReply<RpcResults[M]>;
    if ('error' in reply) throw new RemoteError(reply.error.name, reply.error.code, reply.error.message);
    return reply.result;
  }
}
