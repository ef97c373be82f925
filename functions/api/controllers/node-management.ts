/**
 * Node management (Ironic's NodeManagementController, BootDeviceController, InjectNmiController,
 * and NodeStatesController.boot_mode / secure_boot).
 *
 * Boot device and NMI are synchronous RPC calls (Lambda Invoke): the conductor takes the node's
 * lock, asks the BMC and answers, so errors (node locked, unsupported driver, bad device) come
 * back in this response. Boot mode and secure boot are asynchronous, as in Ironic: the API clears
 * last_error and locks the node for the message in one write, casts, and answers 202; the result
 * shows in the node's boot_mode/secure_boot or last_error.
 */
import { Conflict, NotFound, InvalidParameterValue } from '#common/errors';
import * as st from '#common/states';
import { pyStr } from '#common/pyrepr';
import { beginAndCast } from '../begin';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json, noContent } from '../http';
import { findNode, whenUnlocked } from '../lookup';
import { atLeast } from '../microversion';
import { arg, defineArgs } from '../request';
import { route } from '../route';

/** Ironic's boot modes a node may be switched to (ALLOWED_TARGET_BOOT_MODES). */
const ALLOWED_TARGET_BOOT_MODES = ['bios', 'uefi'];
/** The states that may change without an external request (Ironic's UNSTABLE_STATES). */
const UNSTABLE_STATES: readonly string[] = [
  st.DEPLOYING,
  st.DEPLOYWAIT,
  st.CLEANING,
  st.CLEANWAIT,
  st.VERIFYING,
  st.DELETING,
  st.INSPECTING,
  st.INSPECTWAIT,
  st.ADOPTING,
  st.RESCUING,
  st.RESCUEWAIT,
  st.UNRESCUING,
];
const MIN_NMI = 29;
const MIN_BOOT_MODE = 76;

// Each handler's arguments, from the query and a JSON object body's keys.
const NoArgs = defineArgs({});
const BootDeviceArgs = defineArgs({ boot_device: arg.string().required({ null: 'missing' }), persistent: arg.boolean() });
/** A null target reaches the handler, which names it in its message after the node's lookup. */
const BootModeArgs = defineArgs({ target: arg.string().nullable().required() });
const SecureBootArgs = defineArgs({ target: arg.boolean().nullable().required() });

export async function getBootDevice(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  NoArgs.read(req);
  const node = await findNode(req, ctx, params.ident);
  const message = ctx.rpc.message('get_boot_device', { node_id: node.uuid }, { request_id: req.requestId });
  return json(200, await ctx.rpc.call(message));
}

export async function getSupportedBootDevices(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  NoArgs.read(req);
  const node = await findNode(req, ctx, params.ident);
  const message = ctx.rpc.message('get_supported_boot_devices', { node_id: node.uuid }, { request_id: req.requestId });
  return json(200, { supported_boot_devices: await ctx.rpc.call(message) });
}

export async function setBootDevice(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const { boot_device: device, persistent = false } = BootDeviceArgs.read(req);
  const node = await findNode(req, ctx, params.ident);
  const message = ctx.rpc.message('set_boot_device', { node_id: node.uuid, device, persistent }, { request_id: req.requestId });
  await ctx.rpc.call(message);
  return noContent();
}

export async function injectNmi(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  if (!atLeast(req.version, MIN_NMI)) throw new NotFound('Resource could not be found.');
  NoArgs.read(req);
  const node = await findNode(req, ctx, params.ident);
  await ctx.rpc.call(ctx.rpc.message('inject_nmi', { node_id: node.uuid }, { request_id: req.requestId }));
  return noContent();
}

function notBeforeBootMode(req: ApiRequest): void {
  if (!atLeast(req.version, MIN_BOOT_MODE))
    throw new NotFound(`This endpoint is supported starting with the API version 1.${MIN_BOOT_MODE}`);
}

/** Ironic formats nothing into this message: "%(state)s" reaches the client as written. */
const TRANSITIONING =
  'Node is in %(state)s state. Since node is transitioning, the boot mode will not be set as this may interfere with ongoing changes and result in erroneous modification. Try again later.';

export async function setBootMode(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const { target } = BootModeArgs.read(req);
  const node = await findNode(req, ctx, params.ident);
  notBeforeBootMode(req);
  if (target === null || !ALLOWED_TARGET_BOOT_MODES.includes(target)) {
    throw new InvalidParameterValue(
      `Invalid boot mode ${pyStr(target)} requested for node. Allowed boot modes are: ${ALLOWED_TARGET_BOOT_MODES.join(', ')}`,
    );
  }
  if (UNSTABLE_STATES.includes(node.provision_state)) throw new Conflict(TRANSITIONING);
  await beginAndCast(
    req,
    ctx,
    await whenUnlocked(ctx, node),
    (n) => (n.last_error = null),
    'change_node_boot_mode',
    (lock_token) => ({ node_id: node.uuid, lock_token, target }),
  );
  return { status: 202, headers: { Location: `${req.baseUrl}/v1/nodes/${params.ident}/states` } };
}

export async function setSecureBoot(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const { target } = SecureBootArgs.read(req);
  const node = await findNode(req, ctx, params.ident);
  notBeforeBootMode(req);
  if (target === null) {
    throw new InvalidParameterValue('Invalid secure_boot None requested for node. Allowed secure_boot states are: True, False) ');
  }
  if (UNSTABLE_STATES.includes(node.provision_state)) throw new Conflict(TRANSITIONING);
  await beginAndCast(
    req,
    ctx,
    await whenUnlocked(ctx, node),
    (n) => (n.last_error = null),
    'change_node_secure_boot',
    (lock_token) => ({ node_id: node.uuid, lock_token, target }),
  );
  return { status: 202, headers: { Location: `${req.baseUrl}/v1/nodes/${params.ident}/states` } };
}

export const NODE_MANAGEMENT_ROUTES = [
  route('GET', '/v1/nodes/:ident/management/boot_device', getBootDevice),
  route('PUT', '/v1/nodes/:ident/management/boot_device', setBootDevice),
  route('GET', '/v1/nodes/:ident/management/boot_device/supported', getSupportedBootDevices),
  route('PUT', '/v1/nodes/:ident/management/inject_nmi', injectNmi),
  route('PUT', '/v1/nodes/:ident/states/boot_mode', setBootMode),
  route('PUT', '/v1/nodes/:ident/states/secure_boot', setSecureBoot),
];
