/**
 * `/v1/nodes/{node}/states` and `/states/provision` (Ironic's NodeStatesController).
 *
 * A provision request is begun here and finished by the conductor. The API checks the verb against
 * the state machine, then in one conditional write moves the node to the verb's first state (e.g.
 * available → deploying), clears last_error and locks it for the conductor — the part Ironic's
 * conductor does inside its synchronous RPC call — and then casts the work over SQS. So a client
 * polling right after the 202 already sees the new state, and no other request can slip in before
 * the conductor takes over. Should the message never be handled, the lock expires and the node's
 * stuck state is failed, as Ironic fails the states a dead conductor leaves behind.
 */
import {
  ClientSideError,
  InvalidParameterValue,
  InvalidStateRequested,
  MissingParameterValue,
  NodeLocked,
  NotAcceptable,
} from '#common/errors';
import { newUuid } from '#common/ids';
import * as st from '#common/states';
import type { Node } from '#objects/node';
import type { RpcMethod, RpcMethods } from '#rpc/messages';
import { parseBody } from '../body';
import { route } from '../route';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json } from '../http';
import { findNode, isLocked } from '../lookup';
import { atLeast } from '../microversion';
import { isoTime } from '../views/time';

/** Minimum minor version of each verb (Ironic's MIN_VERB_VERSIONS). */
const VERB_VERSIONS: Readonly<Record<string, number>> = {
  manage: 4,
  provide: 4,
  inspect: 6,
  abort: 13,
  clean: 15,
  adopt: 17,
  rescue: 38,
  unrescue: 38,
  deploy: 73,
  undeploy: 73,
  unhold: 85,
  service: 87,
};

const PROVISION_ARGS = ['target', 'configdrive', 'clean_steps', 'deploy_steps', 'rescue_password', 'disable_ramdisk', 'service_steps'];

export async function getStates(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const node = await findNode(req, ctx, params.ident);
  const body: Record<string, unknown> = {
    console_enabled: node.console_enabled,
    last_error: node.last_error,
    power_state: node.power_state,
    provision_state: node.provision_state === st.AVAILABLE && !atLeast(req.version, 2) ? null : node.provision_state,
    target_power_state: node.target_power_state,
    target_provision_state: node.target_provision_state,
    provision_updated_at: isoTime(node.provision_updated_at),
  };
  if (atLeast(req.version, 12)) {
    body.raid_config = node.raid_config ?? {};
    body.target_raid_config = node.target_raid_config ?? {};
  }
  if (atLeast(req.version, 75)) {
    body.boot_mode = node.boot_mode;
    body.secure_boot = node.secure_boot;
  }
  return json(200, body);
}

interface ProvisionBody {
  target: string;
  configdrive?: unknown;
  clean_steps?: unknown;
  deploy_steps?: unknown;
}

function readProvisionBody(req: ApiRequest): ProvisionBody {
  const body = parseBody(req);
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new MissingParameterValue('Missing mandatory parameter: target');
  }
  const record = body as Record<string, unknown>;
  const unexpected = Object.keys(record).filter((key) => !PROVISION_ARGS.includes(key));
  if (unexpected.length > 0) throw new ClientSideError(`Unexpected arguments: ${unexpected.join(', ')}`);
  if (record.target === undefined) throw new MissingParameterValue('Missing mandatory parameter: target');
  if (typeof record.target !== 'string') throw new InvalidParameterValue(`Expected string for target: ${String(record.target)}`);
  return record as unknown as ProvisionBody;
}

/** What beginning a verb does: the FSM event, and the RPC cast that finishes it (none = done here). */
function plan(node: Node, event: st.ProvisionEvent): { method: RpcMethod; action?: string } | undefined | 'unsupported' {
  switch (event) {
    case 'manage':
      return node.provision_state === st.ENROLL ? { method: 'do_provisioning_action', action: 'manage' } : undefined;
    case 'provide':
      return { method: 'do_provisioning_action', action: 'provide' };
    case 'deploy':
      return { method: 'do_node_deploy' };
    case 'delete':
      return { method: 'do_node_tear_down' };
    default:
      return 'unsupported';
  }
}

export async function setProvisionState(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const body = readProvisionBody(req);
  const node = await findNode(req, ctx, params.ident);
  const target = body.target;
  const minimum = VERB_VERSIONS[target];
  if (minimum !== undefined && !atLeast(req.version, minimum)) throw new NotAcceptable('Request not acceptable.');
  if ((target === st.ACTIVE || target === 'rebuild' || target === 'deploy') && node.maintenance) {
    throw new InvalidParameterValue(`The provisioning operation can't be performed on node ${node.uuid} because it's in maintenance mode.`);
  }
  const event = (st.VERBS[target] ?? target) as st.ProvisionEvent;
  if (!st.isAllowed(node.provision_state, event)) {
    if (isLocked(node)) throw new NodeLocked(node.uuid, node.reservation as string);
    throw new InvalidStateRequested(target, node.uuid, node.provision_state);
  }
  if (body.configdrive !== undefined && body.configdrive !== null && !['active', 'rebuild', 'deploy'].includes(target)) {
    throw new ClientSideError(`Adding a config drive is only supported when setting provision state to active or rebuild`);
  }
  if (body.clean_steps !== undefined && event !== 'clean') {
    throw new ClientSideError('"clean_steps" is only valid when setting target provision state to clean');
  }
  if (isLocked(node)) throw new NodeLocked(node.uuid, node.reservation as string);

  const next = plan(node, event);
  if (next === 'unsupported') {
    throw new InvalidParameterValue(`The requested action "${target}" is not available in this version of Ironless.`);
  }
  const before = {
    state: node.provision_state,
    target: node.target_provision_state,
    updated: node.provision_updated_at,
    error: node.last_error,
  };
  node.processEvent(event);
  node.last_error = null;
  if (event === 'deploy' && body.configdrive !== undefined && body.configdrive !== null) {
    node.instance_info = { ...node.instance_info, configdrive: body.configdrive };
  }

  if (next === undefined) {
    // A pure state change (e.g. available → manageable): nothing for a conductor to do.
    await ctx.nodes.save(node);
  } else {
    const messageId = newUuid();
    const lockToken = `rpc:${messageId}`;
    const args = {
      node_id: node.uuid,
      lock_token: lockToken,
      ...(next.action ? { action: next.action } : {}),
      ...(next.method === 'do_node_deploy' ? { rebuild: false } : {}),
    };
    const message = ctx.rpc.message(next.method, args as RpcMethods[typeof next.method], { request_id: req.requestId }, messageId);
    await ctx.nodes.save(node, { lockFor: { host: conductorHost(ctx), token: lockToken, ttlSeconds: ctx.config.lockTtlSeconds } });
    try {
      await ctx.rpc.cast(node.conductor_group, message);
    } catch (err) {
      // Undo the transition so the node is as it was; if even that fails, the lock expires and
      // the periodic stuck-state check fails the node.
      ctx.log.error('Could not cast to the conductor; undoing the transition', { node: node.uuid, error: String(err) });
      node.provision_state = before.state;
      node.target_provision_state = before.target;
      node.provision_updated_at = before.updated;
      node.last_error = before.error;
      await ctx.nodes
        .save(node, { release: true })
        .catch((undo: unknown) => ctx.log.error('Could not undo the transition', { node: node.uuid, error: String(undo) }));
      throw err;
    }
    ctx.log.info('Provision action cast', { node: node.uuid, target, method: next.method, message: messageId });
  }
  return { status: 202, headers: { Location: `${req.baseUrl}/v1/nodes/${params.ident}/states` } };
}

/** The name shown as the node's reservation while the conductor works on it. */
function conductorHost(ctx: ApiContext): string {
  return ctx.config.conductorFunction.split(':function:').pop() ?? ctx.config.conductorFunction;
}

export const NODE_STATE_ROUTES = [
  route('GET', '/v1/nodes/:ident/states', getStates),
  route('PUT', '/v1/nodes/:ident/states/provision', setProvisionState),
];
