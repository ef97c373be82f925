/** `PUT /v1/nodes/{node}/states/power` (Ironic's NodeStatesController.power). */
import { Invalid, InvalidStateRequested, NotAcceptable, PowerStateFailure } from '#common/errors';
import * as st from '#common/states';
import { beginAndCast } from '../begin';
import { checkConductorFor } from '../interfaces';
import type { ApiContext } from '../context';
import type { ApiRequest, ApiResponse } from '../http';
import { findNode, whenUnlocked } from '../lookup';
import { atLeast } from '../microversion';
import { arg, defineBody } from '../request';
import { route } from '../route';

const TARGETS = [st.POWER_ON, st.POWER_OFF, st.REBOOT, st.SOFT_REBOOT, st.SOFT_POWER_OFF];

/** The power state an action ends in (Ironic's `_calculate_target_state`). */
function targetState(action: string): string {
  return action === st.SOFT_POWER_OFF ? st.POWER_OFF : action === st.REBOOT || action === st.SOFT_REBOOT ? st.POWER_ON : action;
}

/** The body of `PUT /states/power`: a target, and a timeout in seconds from 1.27. */
const PowerRequest = defineBody({
  target: arg.string().required(),
  timeout: arg.integer().since(27),
});

export async function setPowerState(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const { target, timeout } = PowerRequest.read(req);
  let node = await findNode(req, ctx, params.ident);
  if ((target === st.SOFT_REBOOT || target === st.SOFT_POWER_OFF) && !atLeast(req.version, 27)) {
    throw new NotAcceptable('Request not acceptable.');
  }
  if (timeout !== undefined && timeout < 1) throw new Invalid('timeout has to be positive integer');
  if (!TARGETS.includes(target)) throw new InvalidStateRequested(target, params.ident, node.power_state ?? 'None');
  if (node.provision_state === st.CLEANWAIT || node.provision_state === st.CLEANING) {
    throw new InvalidStateRequested(target, params.ident, node.provision_state);
  }
  // A node that must never be off (1.95 disable_power_off) is refused power off before any RPC.
  if ((target === st.POWER_OFF || target === st.SOFT_POWER_OFF) && node.disable_power_off) throw new PowerStateFailure(target);
  node = await whenUnlocked(ctx, node, (n) => n.target_power_state !== null);
  // Ironic's power handler asks for the node's conductor: NoValidHost stays a 404.
  await checkConductorFor(ctx, node.driver, node.conductor_group, node.uuid, undefined);
  await beginAndCast(
    req,
    ctx,
    node,
    (n) => {
      n.target_power_state = targetState(target);
      if (!st.FAILURE_STATES.includes(n.provision_state)) n.last_error = null;
    },
    'change_node_power_state',
    (lock_token) => ({ node_id: node.uuid, lock_token, target, ...(timeout !== undefined ? { timeout } : {}) }),
  );
  return { status: 202, headers: { Location: `${req.baseUrl}/v1/nodes/${params.ident}/states` } };
}

export async function validateNode(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const node = await findNode(req, ctx, params.ident);
  const message = ctx.rpc.message('validate_driver_interfaces', { node_id: node.uuid }, { request_id: req.requestId });
  return { status: 200, body: await ctx.rpc.call(message) };
}

export const NODE_POWER_ROUTES = [
  route('PUT', '/v1/nodes/:ident/states/power', setPowerState),
  route('GET', '/v1/nodes/:ident/validate', validateNode),
];
