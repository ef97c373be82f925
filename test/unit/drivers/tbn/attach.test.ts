import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { Conflict } from '../../../../functions/common/error-base';
import type { NetworkTask } from '../../../../functions/drivers/base';
import { flatNetwork } from '../../../../functions/drivers/flat';
import { dynamicPortgroupName } from '../../../../functions/drivers/tbn/attach';
import { type TbnConfig, parseRules } from '../../../../functions/drivers/tbn/rules';
import { PortgroupDuplicateName } from '../../../../functions/common/resource-errors';
import { Port, type PortData } from '../../../../functions/objects/port';
import { type Portgroup } from '../../../../functions/objects/portgroup';
import { makeNode } from '../../helpers/builders';

const node = makeNode({ network_interface: 'flat', instance_info: { traits: ['CUSTOM_BOND'] } });
let clock = 0;
const port = (o: Partial<PortData> = {}): Port =>
  new Port({
    uuid: randomUUID(),
    node_uuid: node.uuid,
    address: null,
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, clock++)).toISOString(),
    ...o,
  });

const config = (rules: unknown, o: Partial<TbnConfig> = {}): TbnConfig => ({
  traits: parseRules(rules),
  raiseWhenNoMatch: true,
  enableDefaultTrait: true,
  ...o,
});
const BOND = { CUSTOM_BOND: { actions: [{ action: 'group_and_attach_ports', filter: "port.vendor == 'purple'", min_count: 2 }] } };

/** An in-memory task whose writes land in `ports`/`portgroups`; `failPort` makes that port’s save fail. */
function task(ports: Port[], tbn: TbnConfig, portgroups: Portgroup[] = [], failPort?: string) {
  const log: string[] = [];
  const t: NetworkTask & { log2: string[]; portgroups: Portgroup[] } = {
    node,
    log: new Logger({ serviceName: 'test', logLevel: 'SILENT' }),
    ports,
    portgroups,
    tbn,
    log2: log,
    savePort: async (p) => {
      if (p.uuid === failPort && p.portgroup_uuid !== null) throw new Conflict('changed meanwhile');
      log.push(`port ${p.uuid} pg=${p.portgroup_uuid}`);
    },
    savePortgroup: async (pg) => void log.push(`pg ${pg.uuid} vif=${String(pg.internal_info.tenant_vif_port_id)}`),
    createPortgroup: async (pg) => {
      log.push(`create ${pg.uuid}`);
      portgroups.push(pg);
      return pg;
    },
    destroyPortgroup: async (pg) => {
      log.push(`destroy ${pg.uuid}`);
      portgroups.splice(portgroups.indexOf(pg), 1);
    },
  };
  return t;
}

describe('flat network with trait based networking', () => {
  it('builds a dynamic portgroup of the matching ports, records the VIF on it, and takes it apart on detach', async () => {
    const [a, b, other] = [
      port({ vendor: 'purple', physical_network: 'fab' }),
      port({ vendor: 'purple', physical_network: 'fab' }),
      port(),
    ];
    const t = task([a!, b!, other!], config(BOND));
    await flatNetwork.vifAttach(t, { id: 'vif-1' });
    const pg = t.portgroups[0]!;
    expect([pg.dynamic_portgroup, pg.physical_network, pg.internal_info, pg.address]).toEqual([
      true,
      'fab',
      { tenant_vif_port_id: 'vif-1' },
      null,
    ]);
    expect(pg.name).toMatch(/^tbn_dyn_portgroup_[A-Za-z0-9]{8}$/);
    expect([a!.portgroup_uuid, b!.portgroup_uuid, other!.portgroup_uuid]).toEqual([pg.uuid, pg.uuid, null]);
    expect(await flatNetwork.vifList(t)).toEqual([{ id: 'vif-1' }]);
    await expect(flatNetwork.vifAttach(t, { id: 'vif-1' })).rejects.toThrow(
      `Unable to attach VIF because VIF vif-1 is already attached to Ironic Portgroup ${pg.uuid}`,
    );

    await flatNetwork.vifDetach(t, 'vif-1');
    expect(t.portgroups).toEqual([]);
    expect([a!.portgroup_uuid, b!.portgroup_uuid]).toEqual([null, null]);
    expect(t.log2.at(-1)).toBe(`destroy ${pg.uuid}`);
  });

  it('puts the ports back and removes the portgroup when a port cannot be moved into it', async () => {
    const [a, b] = [port({ vendor: 'purple' }), port({ vendor: 'purple' })];
    // Newest first: b is moved first, then a fails.
    const t = task([a!, b!], config(BOND), [], a!.uuid);
    await expect(flatNetwork.vifAttach(t, { id: 'vif-1' })).rejects.toThrow('changed meanwhile');
    expect(t.portgroups).toEqual([]);
    expect([a!.portgroup_uuid, b!.portgroup_uuid]).toEqual([null, null]);
    expect(t.log2.filter((l) => l.startsWith('port'))).toEqual([`port ${b!.uuid} pg=${t.log2[0]!.slice(7)}`, `port ${b!.uuid} pg=null`]);
  });

  it('falls back to the default trait, or refuses, when the node has no rule or no port matches', async () => {
    const bare = makeNode({ network_interface: 'flat' });
    const [older, newer] = [port(), port()];
    const t = { ...task([older!, newer!], config(BOND)), node: bare };
    await flatNetwork.vifAttach(t, { id: 'vif-1' });
    expect(newer!.internal_info).toEqual({ tenant_vif_port_id: 'vif-1' });
    expect(older!.internal_info).toEqual({});

    const strict = { ...task([port()], config(BOND, { enableDefaultTrait: false })), node: bare };
    await expect(flatNetwork.vifAttach(strict, { id: 'v' })).rejects.toThrow(
      `No Trait Based Networking traits were found which could apply to the node ${bare.uuid}.`,
    );
    const lenient = { ...task([port()], config(BOND, { enableDefaultTrait: false, raiseWhenNoMatch: false })), node: bare };
    await flatNetwork.vifAttach(lenient, { id: 'v' });
    expect(await flatNetwork.vifList(lenient)).toEqual([]);

    const oneOnly = task([port({ vendor: 'purple' }), port()], config(BOND));
    await expect(flatNetwork.vifAttach(oneOnly, { id: 'v' })).rejects.toThrow(
      `No matching ports were found when planning the networking for node ${node.uuid} and network v.`,
    );
  });

  it('matches the VIF’s name and tags from the attach request', async () => {
    const rules = { CUSTOM_BOND: { actions: [{ action: 'attach_port', filter: "network.name == 'storage' && network.tags == 'fast'" }] } };
    const p = port();
    const t = task([p], config(rules));
    await expect(flatNetwork.vifAttach(t, { id: 'v', name: 'storage' })).rejects.toThrow('No matching ports were found');
    await flatNetwork.vifAttach(t, { id: 'v', name: 'storage', tags: ['fast'] });
    expect(p.internal_info).toEqual({ tenant_vif_port_id: 'v' });
  });

  it('retries a taken dynamic portgroup name, three tries in all', async () => {
    expect(dynamicPortgroupName()).not.toBe(dynamicPortgroupName());
    const t = task([port({ vendor: 'purple' }), port({ vendor: 'purple' })], config(BOND));
    let tries = 0;
    t.createPortgroup = async (pg) => {
      tries++;
      throw new PortgroupDuplicateName(pg.name ?? '');
    };
    await expect(flatNetwork.vifAttach(t, { id: 'v' })).rejects.toThrow('already exists');
    expect(tries).toBe(3);
  });
});
