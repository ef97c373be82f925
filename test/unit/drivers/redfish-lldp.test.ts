/** Ironic master's redfish LLDP collection: parsed_lldp from NetworkAdapters' Ports, never failing. */
import { Logger } from '@aws-lambda-powertools/logger';
import type { Task } from '../../../functions/drivers/base';
import type { Resource } from '../../../functions/drivers/redfish/client';
import { collectLldp, parseLldpReceive } from '../../../functions/drivers/redfish/lldp';
import type { RedfishSystem } from '../../../functions/drivers/redfish/system';
import { makeNode } from '../helpers/builders';

const task = { node: makeNode(), log: new Logger({ serviceName: 'test', logLevel: 'SILENT' }) } as unknown as Task;

/** A system whose client serves `docs` by path (a missing path is a BMC error). */
function systemOf(docs: Record<string, Resource>, chassis: string[]): RedfishSystem {
  const get = async (path: string): Promise<Resource> => {
    const doc = docs[path];
    if (doc === undefined) throw new Error(`404 ${path}`);
    return doc;
  };
  const members = async (key: string, from: Resource): Promise<Resource[]> => {
    const path = ((from[key] ?? {}) as Resource)['@odata.id'];
    if (typeof path !== 'string') return [];
    const list = (await get(path)).Members as Resource[];
    return Promise.all(list.map((m) => get(m['@odata.id'] as string)));
  };
  return {
    doc: { Links: { Chassis: chassis.map((c) => ({ '@odata.id': c })) } },
    client: { get },
    members,
  } as unknown as RedfishSystem;
}

const ref = (path: string) => ({ '@odata.id': path });
const LLDP = { ChassisId: 'aa:bb', ChassisIdSubtype: 'MacAddr', PortId: 'Eth1/1', SystemName: 'tor', ManagementVlanId: 0 };

it('maps LLDPReceive to parsed_lldp keys, leaving out what Python would find false', () => {
  expect(parseLldpReceive(LLDP)).toEqual({ switch_chassis_id: 'aa:bb', switch_port_id: 'Eth1/1', switch_system_name: 'tor' });
  expect(parseLldpReceive({ ChassisIdSubtype: 'MacAddr', PortId: '' })).toBeUndefined();
  expect(parseLldpReceive(null)).toBeUndefined();
});

it("collects every port's LLDP by port Id, skipping an adapter whose ports cannot be read and ports without LLDP", async () => {
  const system = systemOf(
    {
      '/c1': { NetworkAdapters: ref('/c1/na') },
      '/c1/na': { Members: [ref('/c1/na/A'), ref('/c1/na/B')] },
      '/c1/na/A': { Id: 'A', Ports: ref('/c1/na/A/p') },
      '/c1/na/A/p': { Members: [ref('/c1/na/A/p/1'), ref('/c1/na/A/p/2')] },
      '/c1/na/A/p/1': { Id: 'eth0', Ethernet: { LLDPReceive: LLDP } },
      '/c1/na/A/p/2': { Id: 'eth1', Ethernet: {} },
      '/c1/na/B': { Id: 'B', Ports: ref('/c1/na/B/p') }, // its Ports answer 404
      '/c2': { Id: 'no adapters' },
    },
    ['/c1', '/c2', '/c3'], // /c3 answers 404
  );
  expect(await collectLldp(task, system)).toEqual({
    eth0: { switch_chassis_id: 'aa:bb', switch_port_id: 'Eth1/1', switch_system_name: 'tor' },
  });
});
