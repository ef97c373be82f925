/**
 * The conductor RPC API: method names, their arguments, and the envelope every message travels in.
 *
 * Like Ironic's `conductor/rpcapi.py`, the API is versioned as a whole ("1.N"); each method says
 * the version that introduced it, and a client capped below that version may not send it. Every
 * message carries the version it was built for, so a receiver can refuse what it cannot handle.
 */

// RPC API version history:
// 1.0: do_node_deploy, do_node_tear_down, do_provisioning_action.
export const RPC_API_VERSION = '1.0';

export interface RequestContext {
  /** The request id of the API call that caused this message (Ironic's `openstack-request-id`). */
  readonly request_id: string;
}

export interface RpcMethods {
  /** Deploy (or rebuild) a node the API has moved to `deploying` and locked for this message. */
  do_node_deploy: { node_id: string; rebuild: boolean; lock_token: string };
  /** Tear down a node the API has moved to `deleting`. */
  do_node_tear_down: { node_id: string; lock_token: string };
  /** manage, provide, and the other verbs that start a flow from a stable state. */
  do_provisioning_action: { node_id: string; action: string; lock_token: string };
}

export type RpcMethod = keyof RpcMethods;

/** The version of the RPC API that introduced each method. */
export const METHOD_VERSIONS: Readonly<Record<RpcMethod, string>> = {
  do_node_deploy: '1.0',
  do_node_tear_down: '1.0',
  do_provisioning_action: '1.0',
};

export interface RpcMessage<M extends RpcMethod = RpcMethod> {
  /** RPC API version this message was built for. */
  readonly rpc: string;
  readonly method: M;
  readonly args: RpcMethods[M];
  readonly context: RequestContext;
  /** Unique per message; receivers de-duplicate redeliveries by it. */
  readonly message_id: string;
}

export function isRpcMessage(value: unknown): value is RpcMessage {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Record<string, unknown>;
  return (
    typeof m.rpc === 'string' &&
    typeof m.method === 'string' &&
    typeof m.args === 'object' &&
    m.args !== null &&
    typeof m.message_id === 'string'
  );
}
