/**
 * The conductor RPC client (Ironic's `ConductorAPI`): `cast` sends a message to the SQS queue of the
 * node's conductor group; `call` invokes the conductor function synchronously. The client caps the
 * version of what it sends at the pinned release's RPC version.
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { compareVersions } from '#objects/base';
import { TemporaryFailure } from '#common/errors';
import { newUuid } from '#common/ids';
import { METHOD_VERSIONS, RPC_API_VERSION, type RequestContext, type RpcMessage, type RpcMethod, type RpcMethods } from './messages';

export interface RpcClientProps {
  readonly sqs: SQSClient;
  /** Conductor group → queue URL. */
  readonly queues: Readonly<Record<string, string>>;
  /** The pinned release's RPC version; messages are never newer. */
  readonly versionCap: string;
}

export class ConductorRpcClient {
  private readonly sqs: SQSClient;
  private readonly queues: Readonly<Record<string, string>>;
  readonly versionCap: string;

  constructor(props: RpcClientProps) {
    this.sqs = props.sqs;
    this.queues = props.queues;
    this.versionCap = compareVersions(props.versionCap, RPC_API_VERSION) < 0 ? props.versionCap : RPC_API_VERSION;
  }

  /** Whether this client may send `method` (the cap is at least the version that introduced it). */
  canSend(method: RpcMethod): boolean {
    return compareVersions(METHOD_VERSIONS[method], this.versionCap) <= 0;
  }

  /** Build a message for `method`, stamped with the version it needs, within the cap. */
  message<M extends RpcMethod>(method: M, args: RpcMethods[M], context: RequestContext, messageId: string = newUuid()): RpcMessage<M> {
    if (!this.canSend(method)) {
      throw new TemporaryFailure(
        `RPC method ${method} needs RPC API ${METHOD_VERSIONS[method]}, above this service's cap ${this.versionCap}`,
      );
    }
    return { rpc: METHOD_VERSIONS[method], method, args, context, message_id: messageId };
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
    await this.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));
  }
}
