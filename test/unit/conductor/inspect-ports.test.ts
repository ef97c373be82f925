/** Ports from inspection: one per new valid MAC, existing addresses and non-MACs skipped. */
import { MACAlreadyExists } from '../../../functions/common/errors';
import { createPortsIfNotExist } from '../../../functions/conductor/flows/inspect-ports';
import type { PortStore } from '../../../functions/db/ports';
import type { Port } from '../../../functions/objects/port';
import { makeConductorContext, makeNode, storesWith } from '../helpers/builders';

function portStore(existing: string[]): PortStore & { created: Port[] } {
  const created: Port[] = [];
  return {
    created,
    async create(port: Port) {
      if (existing.includes(port.address ?? '') || created.some((p) => p.address === port.address))
        throw new MACAlreadyExists(port.address ?? '');
      created.push(port);
      return port;
    },
  } as unknown as PortStore & { created: Port[] };
}

it('creates a port per new MAC on the node, with Ironic’s defaults, and skips the rest', async () => {
  const base = makeConductorContext();
  const ports = portStore(['52:54:00:00:00:01']);
  const ctx = { ...base, stores: storesWith(base.nodes, { ports }) };
  const node = makeNode();
  const made = await createPortsIfNotExist(ctx, node, ['52:54:00:00:00:01', '52-54-00-00-00-02', 'not-a-mac', '52:54:00:00:00:02']);
  expect(made).toEqual(['52:54:00:00:00:02']);
  expect(ports.created.map((p) => [p.node_uuid, p.address, p.pxe_enabled])).toEqual([[node.uuid, '52:54:00:00:00:02', true]]);
});
