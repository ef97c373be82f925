/**
 * Ports from an out-of-band inspection that reports MACs (Ironic's
 * `inspect_utils.create_ports_if_not_exist`): one port per MAC. An address that already has a
 * port — on this node or any other — is skipped, and so is a string that is not a MAC. New ports
 * get Ironic's defaults (pxe_enabled true). Redfish inspection reports none: its `ports` hook
 * makes them, as Ironic master's.
 */
import { MACAlreadyExists } from '#common/errors';
import { newUuid } from '#common/ids';
import { normalizeMac } from '#common/strutils';
import type { Node } from '#objects/node';
import { Port } from '#objects/port';
import type { ConductorContext } from '../context';

/** Create the ports that do not exist yet; returns the addresses created. */
export async function createPortsIfNotExist(ctx: ConductorContext, node: Node, macs: readonly string[]): Promise<string[]> {
  const created: string[] = [];
  for (const raw of macs) {
    const address = normalizeMac(raw);
    if (address === undefined) {
      ctx.log.warn(`Ignoring NIC address ${raw} for node ${node.uuid} because it is not a valid MAC`);
      continue;
    }
    try {
      await ctx.stores.ports.create(new Port({ uuid: newUuid(), node_uuid: node.uuid, address, created_at: new Date().toISOString() }));
      created.push(address);
      ctx.log.info(`Port created for MAC address ${address} for node ${node.uuid}`);
    } catch (err) {
      if (!(err instanceof MACAlreadyExists)) throw err;
      ctx.log.info(`Port already exists for MAC address ${address} for node ${node.uuid}`);
    }
  }
  return created;
}
