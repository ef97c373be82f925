/**
 * The node console (Ironic's manager.py set_console_mode / _set_console_mode and
 * get_console_information).
 *
 * `set_console_mode` is a cast: the API has validated the console interface, cleared last_error
 * and locked the node for the message (Ironic's synchronous part); here the console is started or
 * stopped and `console_enabled` recorded. A failure leaves `console_enabled` as it was and becomes
 * the node's last_error and a `console` history event, as Ironic's worker records it.
 */
import { NodeConsoleNotEnabled } from '#common/errors';
import * as st from '#common/states';
import { validatedConsole } from '#drivers/console';
import { loadDriver } from '#drivers/registry';
import type { RpcMethods, RpcResults } from '#rpc/messages';
import { shouldRetry } from '../attempt';
import { type MessageArgs, claimForMessage } from '../claim';
import type { ConductorContext } from '../context';
import { historyEventType } from '../history';

export async function setConsoleMode(ctx: ConductorContext, args: MessageArgs & { enabled: boolean }): Promise<void> {
  const node = await claimForMessage(ctx, args, st.ALL_STATES);
  if (node === undefined) return;
  const task = { node, log: ctx.log };
  try {
    const console = await validatedConsole(loadDriver(node), task);
    if (args.enabled) await console.startConsole(task);
    else await console.stopConsole(task);
    node.console_enabled = args.enabled;
    node.last_error = null;
    ctx.log.info(args.enabled ? 'Console started' : 'Console stopped', { node: node.uuid });
  } catch (err) {
    if (shouldRetry(ctx, err)) throw err;
    const op = args.enabled ? 'enabling' : 'disabling';
    node.last_error = `Error ${op} the console on node ${node.uuid}. Reason: ${(err as Error).message}`;
    historyEventType(node, 'console');
    ctx.log.error('Setting the console mode failed', { node: node.uuid, error: node.last_error });
  }
  await ctx.nodes.save(node, { release: true });
}

/** Read-only, without the lock (Ironic's shared task). */
export async function getConsoleInformation(
  ctx: ConductorContext,
  args: RpcMethods['get_console_information'],
): Promise<RpcResults['get_console_information']> {
  const node = await ctx.nodes.get(args.node_id);
  if (!node.console_enabled) throw new NodeConsoleNotEnabled(node.uuid);
  const task = { node, log: ctx.log };
  const console = await validatedConsole(loadDriver(node), task);
  return console.getConsole(task);
}
