/**
 * The `flat` network interface: VIFs recorded on the node's ports and portgroups, with the
 * selection rules of Ironic's `network/common.py` (VIFPortIDMixin, get_free_port_like_object).
 *
 * NOTE: Ironic's flat interface also binds the VIF's Neutron port; Ironless has no Neutron, so a
 * VIF is only recorded (`internal_info.tenant_vif_port_id`), as Ironic's standalone mixin does.
 * The VIF's physical network, which Ironic asks Neutron for, may be given in the attach request
 * as `physical_network` (vif_info allows extra keys); without it every port's network is allowed.
 */
import { NoFreePhysicalPorts, PortgroupPhysnetInconsistent, VifAlreadyAttached, VifNotAttached } from '#common/errors';
import type { Port } from '#objects/port';
import type { Portgroup } from '#objects/portgroup';
import type { NetworkInterface, NetworkTask, VifInfo } from './base';
import { releaseDynamicPortgroup, tbnVifAttach } from './tbn/attach';
import { type PortLike, TENANT_VIF_KEY, attachedVif, isPortgroup, recordVif, savePortLike } from './vif-record';

export { TENANT_VIF_KEY };

/** True when another VIF is attached; VifAlreadyAttached when this one is. */
function vifAttached(obj: PortLike, vifId: string): boolean {
  const attached = attachedVif(obj);
  if (attached === vifId) throw new VifAlreadyAttached(vifId, isPortgroup(obj) ? 'Portgroup' : 'Port', obj.uuid);
  return attached !== undefined;
}

function physnetAllowed(port: Port, physnets: ReadonlySet<string>): boolean {
  return physnets.size === 0 || port.physical_network === null || physnets.has(port.physical_network);
}

/** Ironic's validate_port_info for a non-neutron interface: smart NIC ports need their switch info, others must not have it. */
function usablePort(port: Port): boolean {
  if (typeof port.extra['client-id'] === 'string' && port.extra['client-id'] !== '') return true;
  const llc = port.local_link_connection;
  const smartNicInfo = typeof llc.port_id === 'string' && typeof llc.hostname === 'string';
  return port.is_smartnic === smartNicInfo;
}

/** The physical network of a portgroup's ports (one, or none); inconsistent member ports are an error. */
function portgroupPhysnet(task: NetworkTask, portgroup: Portgroup): string | null {
  const physnets = new Set(task.ports.filter((p) => p.portgroup_uuid === portgroup.uuid).map((p) => p.physical_network));
  if (physnets.size > 1) throw new PortgroupPhysnetInconsistent(portgroup.uuid, [...physnets].map(String).join(', '));
  return [...physnets][0] ?? null;
}

/** The ports and portgroups `vif` may be attached to (Ironic's `_get_free_portgroups_and_ports`). */
function freePortLikeObjects(task: NetworkTask, vif: VifInfo, physnets: ReadonlySet<string>): PortLike[] {
  const free: PortLike[] = [];
  const byPortgroup = new Map<string | null, Port[]>();
  const unusablePortgroups = new Set<string | null>();
  const portUuid = vif.port_uuid;
  const portgroupUuid = portUuid === undefined ? vif.portgroup_uuid : undefined;
  for (const port of task.ports) {
    if ((portUuid !== undefined && portUuid !== port.uuid) || !usablePort(port)) continue;
    if (vifAttached(port, vif.id)) {
      unusablePortgroups.add(port.portgroup_uuid);
      continue;
    }
    if (!physnetAllowed(port, physnets)) continue;
    if (port.portgroup_uuid === null && portgroupUuid === undefined) free.push(port);
    else byPortgroup.set(port.portgroup_uuid, [...(byPortgroup.get(port.portgroup_uuid) ?? []), port]);
  }
  if (portUuid === undefined) {
    for (const portgroup of task.portgroups) {
      if ((portgroupUuid !== undefined && portgroupUuid !== portgroup.uuid) || vifAttached(portgroup, vif.id)) continue;
      const members = byPortgroup.get(portgroup.uuid) ?? [];
      if (unusablePortgroups.has(portgroup.uuid)) {
        // A member port has a VIF: use the free members one by one rather than the group.
        if (portgroupUuid === undefined) free.push(...members);
      } else if (members.length > 0) {
        free.push(portgroup);
      }
    }
  }
  return free;
}

/**
 * The port or portgroup to attach `vif` to: one whose physical network is the VIF's, then
 * portgroups before ports, then PXE-enabled ports; among equals the first (Ironic's order).
 */
export function selectPortLikeObject(task: NetworkTask, vif: VifInfo, physnets: ReadonlySet<string>): PortLike {
  const free = freePortLikeObjects(task, vif, physnets);
  if (free.length === 0) throw new NoFreePhysicalPorts(vif.id);
  const key = (obj: PortLike): number[] => {
    if (isPortgroup(obj)) {
      const physnet = portgroupPhysnet(task, obj);
      return [physnet !== null && physnets.has(physnet) ? 1 : 0, 1, 1];
    }
    return [obj.physical_network !== null && physnets.has(obj.physical_network) ? 1 : 0, 0, obj.pxe_enabled ? 1 : 0];
  };
  const keyed = free.map((obj, index) => ({ obj, index, key: key(obj) }));
  keyed.sort((a, b) => {
    for (let i = 0; i < a.key.length; i++) {
      const diff = (b.key[i] as number) - (a.key[i] as number);
      if (diff !== 0) return diff;
    }
    return a.index - b.index;
  });
  return (keyed[0] as { obj: PortLike }).obj;
}

export const flatNetwork: NetworkInterface = {
  name: 'flat',
  async validate() {},

  async vifList(task) {
    return [...task.ports, ...task.portgroups].flatMap((obj) => {
      const vif = attachedVif(obj);
      return vif === undefined ? [] : [{ id: vif }];
    });
  },

  async vifAttach(task, vif) {
    // As Ironic: with trait based networking on, its rules choose the ports instead.
    if (task.tbn !== undefined) return tbnVifAttach(task, vif, task.tbn);
    // As Ironic: the VIF's physical networks matter only when some port of the node has one.
    const given = typeof vif.physical_network === 'string' && vif.physical_network !== '' ? [vif.physical_network] : [];
    const physnets = new Set(task.ports.some((p) => p.physical_network !== null) ? given : []);
    await recordVif(task, selectPortLikeObject(task, vif, physnets), vif.id);
  },

  async vifDetach(task, vifId) {
    const target = [...task.portgroups, ...task.ports].find((obj) => attachedVif(obj) === vifId);
    if (target === undefined) throw new VifNotAttached(vifId, task.node.uuid);
    const info = { ...target.internal_info };
    delete info[TENANT_VIF_KEY];
    target.internal_info = info;
    const extra = { ...target.extra };
    if ('vif_port_id' in extra) {
      delete extra.vif_port_id;
      target.extra = extra;
    }
    await savePortLike(task, target);
    // As Ironic: a dynamic portgroup lives as long as its VIF.
    if (isPortgroup(target) && target.dynamic_portgroup) await releaseDynamicPortgroup(task, target);
  },
};
