/**
 * The node console (Ironic's NodeConsoleController): `GET /v1/nodes/{node}/states/console` and
 * `PUT` with `{"enabled": bool}`.
 *
 * PUT does what Ironic's synchronous RPC does before its worker runs: it validates the node's
 * console interface (a 400 for `no-console` or bad driver_info) and, when the console is to
 * change, clears last_error and locks the node for the `set_console_mode` cast in one write
 * (waiting for a held lock as Ironic's conductor does). The 202 comes at once; `console_enabled`
 * changes when the conductor has started or stopped the console, or last_error says why not.
 * GET asks the conductor for the connection info only when the console is on.
 */
import { validatedConsole } from '#drivers/console';
import { loadDriver } from '#drivers/registry';
import { beginAndCast } from '../begin';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json } from '../http';
import { findNode, whenUnlocked } from '../lookup';
import { route } from '../route';
import { NO_QUERY, arg, defineArgs } from '../request';

/** PUT's one argument, from the query or the body; a null `enabled` means off. */
const SetConsoleArgs = defineArgs({ enabled: arg.boolean().nullable().required() });

export async function getConsole(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  NO_QUERY.read(req);
  const node = await findNode(req, ctx, params.ident);
  if (!node.console_enabled) return json(200, { console_enabled: false, console_info: null });
  try {
    const info = await ctx.rpc.call(ctx.rpc.message('get_console_information', { node_id: node.uuid }, { request_id: req.requestId }));
    return json(200, { console_enabled: true, console_info: info });
  } catch (err) {
    // Switched off since the node was read: Ironic's NodeConsoleNotEnabled, shown as a disabled console.
    if ((err as { remoteName?: string }).remoteName === 'NodeConsoleNotEnabled')
      return json(200, { console_enabled: false, console_info: null });
    throw err;
  }
}

export async function setConsole(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const enabled = SetConsoleArgs.read(req).enabled ?? false;
  const found = await findNode(req, ctx, params.ident);
  await validatedConsole(loadDriver(found), { node: found, log: ctx.log });
  const location = { Location: `${req.baseUrl}/v1/nodes/${params.ident}/states/console` };
  if (enabled === found.console_enabled) {
    ctx.log.info('No console action: the console is already in that mode', { node: found.uuid, enabled });
    return { status: 202, headers: location };
  }
  const node = await whenUnlocked(ctx, found);
  await beginAndCast(
    req,
    ctx,
    node,
    (n) => (n.last_error = null),
    'set_console_mode',
    (lock_token) => ({ node_id: node.uuid, lock_token, enabled }),
  );
  return { status: 202, headers: location };
}

export const NODE_CONSOLE_ROUTES = [
  route('GET', '/v1/nodes/:ident/states/console', getConsole),
  route('PUT', '/v1/nodes/:ident/states/console', setConsole),
];
