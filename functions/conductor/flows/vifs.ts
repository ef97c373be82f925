/**
 * VIFs of a node (Ironic's manager.py vif_list, vif_attach, vif_detach): calls answered through
 * the node's network interface, with its ports and portgroups. Attach and detach hold the node's
 * lock (NodeLocked, 409, when someone else does); the list reads without it. A port or portgroup
 * changed meanwhile fails its conditional write (409) rather than losing the other change.
 */
import type { NetworkTask, VifInfo } from '#drivers/base';
import { loadDriver } from '#drivers/registry';
import { type TbnConfig, loadTbnConfig } from '#drivers/tbn/rules';
import type { PageOf } from '#db/query';
import type { Node } from '#objects/node';
import type { RpcMethods, RpcResults } from '#rpc/messages';
import type { ConductorContext } from '../context';
import { withNodeLock } from './management';

let tbn: { config: TbnConfig | undefined } | undefined;

/** The trait based networking rules, read from the environment once (invalid rules: ConfigError, loudly). */
function tbnConfig(): TbnConfig | undefined {
  tbn ??= { config: loadTbnConfig() };
  return tbn.config;
}

async function all<T>(page: (marker: string | undefined) => Promise<PageOf<T & { uuid: string }>>): Promise<T[]> {
  const out: T[] = [];
  let marker: string | undefined;
  for (;;) {
    const { items, more } = await page(marker);
    out.push(...items);
    if (!more || items.length === 0) return out;
    marker = items[items.length - 1]?.uuid;
  }
}

/** The node with its ports and portgroups, in creation order (Ironic's task.ports / task.portgroups). */
export async function networkTask(ctx: ConductorContext, node: Node): Promise<NetworkTask> {
  const [ports, portgroups] = await Promise.all([
    all((marker) => ctx.stores.ports.list({ nodeUuid: node.uuid }, { limit: 1000, marker })),
    all((marker) => ctx.stores.portgroups.list({ nodeUuid: node.uuid }, { limit: 1000, marker })),
  ]);
  return {
    node,
    log: ctx.log,
    ports,
    portgroups,
    savePort: async (port) => void (await ctx.stores.ports.save(port)),
    savePortgroup: async (portgroup) => void (await ctx.stores.portgroups.save(portgroup)),
    createPortgroup: (portgroup) => ctx.stores.portgroups.create(portgroup),
    destroyPortgroup: (portgroup) => ctx.stores.portgroups.destroy(portgroup),
    tbn: tbnConfig(),
  };
}

export async function vifList(ctx: ConductorContext, args: RpcMethods['vif_list']): Promise<RpcResults['vif_list']> {
  const node = await ctx.nodes.get(args.node_id);
  const network = loadDriver(node).network;
  const task = await networkTask(ctx, node);
  await network.validate(task);
  return network.vifList(task);
}

export async function vifAttach(ctx: ConductorContext, args: RpcMethods['vif_attach']): Promise<null> {
  return withNodeLock(ctx, args.node_id, async (node) => {
    const network = loadDriver(node).network;
    const task = await networkTask(ctx, node);
    await network.validate(task);
    await network.vifAttach(task, args.vif_info as VifInfo);
    ctx.log.info(`VIF ${args.vif_info.id} successfully attached to node ${node.uuid}`);
    return null;
  });
}

export async function vifDetach(ctx: ConductorContext, args: RpcMethods['vif_detach']): Promise<null> {
  return withNodeLock(ctx, args.node_id, async (node) => {
    const network = loadDriver(node).network;
    const task = await networkTask(ctx, node);
    await network.validate(task);
    await network.vifDetach(task, args.vif_id);
    ctx.log.info(`VIF ${args.vif_id} successfully detached from node ${node.uuid}`);
    return null;
  });
}
