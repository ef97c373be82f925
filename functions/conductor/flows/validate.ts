/**
 * The `validate_driver_interfaces` call (GET /v1/nodes/{id}/validate): each interface of the
 * node's driver checks the node has what it needs. Read-only, no lock, as in Ironic.
 */
import { UnsupportedDriverExtension } from '#common/errors';
import type { RpcResults } from '#rpc/messages';
import { loadDriver } from '#drivers/registry';
import type { InterfaceType } from '#objects/node';
import type { ConductorContext } from '../context';

/** Ironic's order (`non_vendor_interfaces`): the core interfaces, then the optional ones, firmware among them since 2023.2. */
const ORDER: readonly InterfaceType[] = [
  'boot',
  'deploy',
  'management',
  'network',
  'power',
  'bios',
  'console',
  'firmware',
  'inspect',
  'raid',
  'rescue',
  'storage',
];

export async function validateDriverInterfaces(
  ctx: ConductorContext,
  args: { node_id: string },
): Promise<RpcResults['validate_driver_interfaces']> {
  const node = await ctx.nodes.get(args.node_id);
  const driver = loadDriver(node);
  const result: RpcResults['validate_driver_interfaces'] = {};
  for (const iface of ORDER) {
    const impl = driver.interfaces[iface];
    if (impl.name.startsWith('no-')) {
      result[iface] = { result: false, reason: new UnsupportedDriverExtension(node.driver, iface).message };
      continue;
    }
    try {
      await impl.validate({ node, log: ctx.log });
      result[iface] = { result: true };
    } catch (err) {
      result[iface] = { result: false, reason: (err as Error).message };
    }
  }
  return result;
}
