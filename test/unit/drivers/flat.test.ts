import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import type { NetworkTask, VifInfo } from '../../../functions/drivers/base';
import { flatNetwork, selectPortLikeObject } from '../../../functions/drivers/flat';
import { Port, type PortData } from '../../../functions/objects/port';
import { Portgroup } from '../../../functions/objects/portgroup';
import { makeNode } from '../helpers/builders';

const node = makeNode({ network_interface: 'flat' });
const now = new Date().toISOString();

function port(overrides: Partial<PortData> = {}): Port {
  return new Port({ uuid: randomUUID(), node_uuid: node.uuid, address: null, created_at: now, ...overrides });
}

function portgroup(): Portgroup {
  return new Portgroup({ uuid: randomUUID(), node_uuid: node.uuid, created_at: now });
}

function task(ports: Port[], portgroups: Portgroup[] = []): NetworkTask & { saved: string[] } {
  const saved: string[] = [];
  return {
    node,
    log: new Logger({ serviceName: 'test', logLevel: 'SILENT' }),
    ports,
    portgroups,
    saved,
    savePort: async (p) => void saved.push(p.uuid),
    savePortgroup: async (pg) => void saved.push(pg.uuid),
    createPortgroup: async (pg) => pg,
    destroyPortgroup: async () => {},
  };
}

const vif = (id: string, extra: Partial<VifInfo> = {}): VifInfo => ({ id, ...extra });

describe('flat network: choosing a port for a VIF', () => {
  it('prefers a port on the VIF’s physical network, then portgroups, then PXE ports, else the first', () => {
    const plain = port({ pxe_enabled: false });
    const pxe = port();
    const physnet = port({ pxe_enabled: false, physical_network: 'physnet1' });
    expect(selectPortLikeObject(task([plain, pxe, physnet]), vif('v'), new Set(['physnet1']))).toBe(physnet);
    expect(selectPortLikeObject(task([plain, pxe]), vif('v'), new Set())).toBe(pxe);
    const pg = portgroup();
    const members = [port({ portgroup_uuid: pg.uuid }), port({ portgroup_uuid: pg.uuid })];
    expect(selectPortLikeObject(task([plain, pxe, ...members], [pg]), vif('v'), new Set())).toBe(pg);
    const first = port({ pxe_enabled: false });
    expect(selectPortLikeObject(task([first, port({ pxe_enabled: false })]), vif('v'), new Set())).toBe(first);
  });

  it('skips ports on another physical network, empty portgroups, and smart NIC ports without switch info', () => {
    const other = port({ physical_network: 'physnet2' });
    const none = port({ physical_network: null, pxe_enabled: false });
    expect(selectPortLikeObject(task([other, none], [portgroup()]), vif('v'), new Set(['physnet1']))).toBe(none);
    const smart = port({ is_smartnic: true });
    expect(() => selectPortLikeObject(task([smart]), vif('v'), new Set())).toThrow(
      'Unable to attach VIF v, not enough free physical ports.',
    );
    const smartOk = port({ is_smartnic: true, local_link_connection: { port_id: 'p1', hostname: 'h' } });
    expect(selectPortLikeObject(task([smartOk]), vif('v'), new Set())).toBe(smartOk);
  });

  it('uses the free member ports of a portgroup one of whose ports already has a VIF', () => {
    const pg = portgroup();
    const busy = port({ portgroup_uuid: pg.uuid, internal_info: { tenant_vif_port_id: 'a' } });
    const free = port({ portgroup_uuid: pg.uuid });
    expect(selectPortLikeObject(task([busy, free], [pg]), vif('b'), new Set())).toBe(free);
  });

  it('honours port_uuid and portgroup_uuid', () => {
    const pg = portgroup();
    const a = port({ pxe_enabled: false });
    const member = port({ portgroup_uuid: pg.uuid });
    expect(selectPortLikeObject(task([a, member], [pg]), vif('v', { port_uuid: a.uuid }), new Set())).toBe(a);
    expect(selectPortLikeObject(task([a, member], [pg]), vif('v', { portgroup_uuid: pg.uuid }), new Set())).toBe(pg);
  });

  it('refuses a VIF already attached, naming where, and a portgroup with ports on different networks', () => {
    const a = port({ internal_info: { tenant_vif_port_id: 'v' } });
    expect(() => selectPortLikeObject(task([a, port()]), vif('v'), new Set())).toThrow(
      `Unable to attach VIF because VIF v is already attached to Ironic Port ${a.uuid}`,
    );
    const pg = portgroup();
    const mixed = [port({ portgroup_uuid: pg.uuid, physical_network: 'x' }), port({ portgroup_uuid: pg.uuid, physical_network: 'y' })];
    expect(() => selectPortLikeObject(task(mixed, [pg]), vif('v'), new Set(['x', 'y']))).toThrow(
      `Port group ${pg.uuid} has member ports with inconsistent physical networks (x, y). All ports in a port group must have the same physical network.`,
    );
  });
});

describe('flat network: attach, list, detach', () => {
  it('records the VIF on the chosen port, lists it, and clears it (and extra.vif_port_id) on detach', async () => {
    const a = port({ extra: { vif_port_id: 'old', keep: 1 } });
    const t = task([a]);
    await flatNetwork.vifAttach(t, vif('v1'));
    expect(a.internal_info).toEqual({ tenant_vif_port_id: 'v1' });
    expect(t.saved).toEqual([a.uuid]);
    expect(await flatNetwork.vifList(t)).toEqual([{ id: 'v1' }]);
    await flatNetwork.vifDetach(t, 'v1');
    expect(a.internal_info).toEqual({});
    expect(a.extra).toEqual({ keep: 1 });
    await expect(flatNetwork.vifDetach(t, 'v1')).rejects.toThrow(
      `Unable to detach VIF v1 from node ${node.uuid} because it is not attached to it.`,
    );
  });

  it('takes the VIF’s physical network from the request only when some port has one', async () => {
    const plain = port({ pxe_enabled: true });
    const onNet = port({ pxe_enabled: false, physical_network: 'physnet1' });
    const t = task([plain, onNet]);
    await flatNetwork.vifAttach(t, vif('v', { physical_network: 'physnet1' }));
    expect(onNet.internal_info).toEqual({ tenant_vif_port_id: 'v' });
  });
});
