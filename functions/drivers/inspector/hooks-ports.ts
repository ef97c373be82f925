/**
 * The inspection hooks for network interfaces, after Ironic's `validate_interfaces` and `ports`:
 * which NICs of the inventory are usable, ports for them (`[inspector]add_ports`), and the node's
 * existing ports brought in line (`keep_ports`, `update_pxe_enabled`, the InfiniBand client-id).
 */
import { InvalidNodeInventory } from '#common/errors';
import type { InspectorConfig } from '#common/config';
import { normalizeMac } from '#common/strutils';
import type { Node } from '#objects/node';
import type { InspectionHook, Inventory } from './hook-types';

type Iface = Record<string, unknown> & { mac_address: string; pxe_enabled: boolean };

function isLoopback(ip: string): boolean {
  return ip.startsWith('127.') || ip === '::1';
}

/** The PXE NIC's MAC the ramdisk reports (`boot.pxe_interface`, maybe pxelinux's "01-aa-bb-…"). */
export function pxeMac(inventory: Inventory): string | undefined {
  const boot = inventory.boot as Record<string, unknown> | undefined;
  let mac = typeof boot?.pxe_interface === 'string' ? boot.pxe_interface : undefined;
  if (mac && mac.includes('-')) mac = mac.slice(mac.indexOf('-') + 1).replace(/-/g, ':');
  return mac ? mac.toLowerCase() : undefined;
}

/** Ironic's `get_interfaces`: the inventory's NICs by name, those with a valid MAC, marked whether they PXE-booted. */
export function getInterfaces(
  node: Node,
  inventory: Inventory,
  log: { debug(m: string): void; warn(m: string): void; error(m: string): void },
) {
  if (!Array.isArray(inventory.interfaces)) throw new InvalidNodeInventory(node.uuid, 'no interfaces present in inventory');
  const pxe = pxeMac(inventory);
  const result: Record<string, Iface> = {};
  for (const raw of inventory.interfaces as unknown[]) {
    const iface = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const name = iface.name;
    if (typeof name !== 'string' || name === '') {
      log.error(`Malformed interface record for node ${node.uuid}: ${JSON.stringify(raw)}`);
      continue;
    }
    if (typeof iface.mac_address !== 'string' || iface.mac_address === '') {
      log.debug(`Skipping interface ${name} for node ${node.uuid} without link information`);
      continue;
    }
    const mac = normalizeMac(iface.mac_address);
    if (mac === undefined) {
      log.warn(`MAC address of interface ${name} of node ${node.uuid} is not valid, skipping`);
      continue;
    }
    // An IPv6 address may carry its scope ("fd00::1%enp2s0"), which is not part of the address.
    const v6 = typeof iface.ipv6_address === 'string' ? iface.ipv6_address.split('%')[0] : iface.ipv6_address;
    result[name] = { ...iface, mac_address: mac, pxe_enabled: mac === pxe, ipv6_address: v6 ?? null };
  }
  return result;
}

/** Ironic's `validate_interfaces`: the NICs that qualify for ports under `[inspector]add_ports`. */
export function validInterfaces(
  node: Node,
  inventory: Inventory,
  interfaces: Record<string, Iface>,
  config: InspectorConfig,
  log: { debug(m: string): void; warn(m: string): void },
) {
  if (Object.keys(interfaces).length === 0) throw new InvalidNodeInventory(node.uuid, 'no valid network interfaces');
  const pxe = pxeMac(inventory);
  if (!pxe && config.addPorts === 'pxe') {
    log.warn(`No boot interface provided in the inventory for node ${node.uuid}, will add all ports with IP addresses`);
  }
  const result: Record<string, Iface> = {};
  for (const [name, iface] of Object.entries(interfaces)) {
    const ip = (iface.ipv4_address || iface.ipv6_address) as string | null | undefined;
    if (name === 'lo' || (ip && isLoopback(ip))) {
      log.debug(`Skipping local interface ${name} for node ${node.uuid}`);
      continue;
    }
    if (config.addPorts === 'pxe' && pxe && !iface.pxe_enabled) continue;
    if (config.addPorts === 'active' && !ip) continue;
    result[name] = { ...iface };
  }
  if (Object.keys(result).length === 0) {
    throw new InvalidNodeInventory(node.uuid, `no network interfaces match the configuration (add_ports set to "${config.addPorts}")`);
  }
  return result;
}

/** Records in plugin data the interfaces (all and valid) and the valid MACs. */
export const validateInterfaces: InspectionHook = {
  name: 'validate-interfaces',
  preprocess(task, inventory, pluginData, config) {
    const all = getInterfaces(task.node, inventory, task.log);
    const valid = validInterfaces(task.node, inventory, all, config, task.log);
    pluginData.all_interfaces = all;
    pluginData.valid_interfaces = valid;
    pluginData.macs = Object.values(valid).map((i) => i.mac_address);
  },
};

/** Ports for the valid interfaces, then the node's ports updated to match the inventory. */
export const ports: InspectionHook = {
  name: 'ports',
  dependencies: ['validate-interfaces'],
  async run(task, _inventory, pluginData, config) {
    const valid = (pluginData.valid_interfaces ?? {}) as Record<string, Iface>;
    const all = (pluginData.all_interfaces ?? {}) as Record<string, Iface>;
    if (config.addPorts !== 'disabled') {
      for (const iface of Object.values(valid)) {
        const extra = iface.client_id ? { 'client-id': iface.client_id } : {};
        const created = await task.ports.create({ address: iface.mac_address, pxe_enabled: iface.pxe_enabled, extra });
        task.log.info(
          created
            ? `Port created for MAC address ${iface.mac_address} for node ${task.node.uuid}${iface.pxe_enabled ? ' (PXE booting)' : ''}`
            : `Port already exists for MAC address ${iface.mac_address} for node ${task.node.uuid}`,
        );
      }
    }
    const macsOf = (ifaces: Iface[]) => new Set(ifaces.map((i) => i.mac_address));
    const expected =
      config.keepPorts === 'present'
        ? macsOf(Object.values(all))
        : config.keepPorts === 'added'
          ? new Set(((pluginData.macs ?? []) as string[]).map((m) => m.toLowerCase()))
          : undefined;
    const pxeMacs = macsOf(Object.values(all).filter((i) => i.pxe_enabled));
    const clientIds = new Map(Object.values(all).map((i) => [i.mac_address, i.client_id]));
    for (const port of await task.ports.list()) {
      const address = (port.address ?? '').toLowerCase();
      // As Ironic: an empty expected set (nothing qualified) deletes nothing.
      if (expected !== undefined && expected.size > 0 && !expected.has(address)) {
        task.log.info(
          `Deleting port ${port.uuid} of node ${task.node.uuid} as its MAC ${address} is not in the expected MAC list [${[...expected].sort().join(', ')}]`,
        );
        await task.ports.destroy(port);
        continue;
      }
      let changed = false;
      if (config.updatePxeEnabled && pxeMacs.has(address) !== port.pxe_enabled) {
        port.pxe_enabled = pxeMacs.has(address);
        changed = true;
      }
      const clientId = clientIds.get(address);
      if (clientId && clientId !== port.extra['client-id']) {
        port.extra = { ...port.extra, 'client-id': clientId };
        changed = true;
      }
      if (changed) await task.ports.save(port);
    }
  },
};
