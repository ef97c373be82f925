/**
 * LLDP as the BMC saw it, for out-of-band inspection (Ironic master's redfish
 * `_collect_lldp_data`): every Port of every NetworkAdapter of each of the system's chassis that
 * reports `Ethernet.LLDPReceive` gives `plugin_data.parsed_lldp[<port Id>]` with the switch's
 * `switch_chassis_id`, `switch_port_id`, `switch_system_name`, `switch_system_description` and
 * `switch_vlan_id` (each only when given). A chassis, adapter or port the BMC cannot serve is
 * skipped; LLDP never fails an inspection.
 */
import type { Task } from '../base';
import type { Resource } from './client';
import type { RedfishSystem } from './system';

/** LLDPReceive property → parsed_lldp key, in Ironic's order. */
const LLDP_FIELDS: readonly (readonly [string, string])[] = [
  ['ChassisId', 'switch_chassis_id'],
  ['PortId', 'switch_port_id'],
  ['SystemName', 'switch_system_name'],
  ['SystemDescription', 'switch_system_description'],
  ['ManagementVlanId', 'switch_vlan_id'],
];

/** One port's LLDPReceive in Ironic's parsed form; undefined when it holds none of the fields (Python-falsy values count as absent). */
export function parseLldpReceive(receive: unknown): Record<string, unknown> | undefined {
  if (receive === null || typeof receive !== 'object') return undefined;
  const parsed: Record<string, unknown> = {};
  for (const [from, to] of LLDP_FIELDS) {
    const value = (receive as Resource)[from];
    if (value !== undefined && value !== null && value !== '' && value !== 0 && value !== false) parsed[to] = value;
  }
  return Object.keys(parsed).length > 0 ? parsed : undefined;
}

const odataId = (ref: unknown): string | undefined => {
  const id = ref !== null && typeof ref === 'object' ? (ref as Resource)['@odata.id'] : undefined;
  return typeof id === 'string' ? id : undefined;
};

/** `parsed_lldp` keyed by port Id; {} when the BMC reports no LLDP. */
export async function collectLldp(task: Task, system: RedfishSystem): Promise<Record<string, Record<string, unknown>>> {
  const parsed: Record<string, Record<string, unknown>> = {};
  const node = task.node.uuid;
  try {
    const links = ((system.doc.Links ?? {}) as Resource).Chassis;
    for (const chassisPath of (Array.isArray(links) ? links : []).map(odataId)) {
      if (chassisPath === undefined) continue;
      let adapters: Resource[];
      try {
        adapters = await system.members('NetworkAdapters', await system.client.get(chassisPath));
      } catch (err) {
        task.log.debug('Failed to get network adapters for chassis', { node, chassis: chassisPath, error: String(err) });
        continue;
      }
      for (const adapter of adapters) {
        let ports: Resource[];
        try {
          ports = await system.members('Ports', adapter);
        } catch (err) {
          task.log.debug('Failed to get ports for adapter', { node, adapter: adapter.Id, error: String(err) });
          continue;
        }
        for (const port of ports) {
          const lldp = parseLldpReceive(((port.Ethernet ?? {}) as Resource).LLDPReceive);
          if (lldp !== undefined && typeof port.Id === 'string' && port.Id !== '') parsed[port.Id] = lldp;
        }
      }
    }
  } catch (err) {
    task.log.warn('Failed to collect standard Redfish LLDP data', { node, error: String(err) });
  }
  return parsed;
}
