/**
 * The inventory resources of a virtual machine's System that inspection reads beyond processors,
 * memory and NICs: SimpleStorage, Storage (a controller with its Drives and Volumes) and
 * PCIeDevices with their PCIeFunctions (a virtio NIC per NIC, a virtio SCSI controller). All are
 * derived from the machine's spec and UUID, so the same machine always reports the same. A drive
 * has an `IndicatorLED` (Off until set) that a PATCH of the drive sets; the rest is read-only.
 * The chassis has NetworkAdapters, one per NIC with one controller reporting the NICs' firmware.
 *
 * Faults: `missingResources` lists System resources the BMC lacks (no link, their paths 404);
 * `brokenResources` lists ones it links but cannot serve (their paths 404).
 */
import { firmwareOf } from './firmware';
import type { VirtualMachine } from './machine';
import { ledField, patchLed } from './redfish-console';
import { ROOT, type RedfishReply, type RedfishRequest, collection, notFound, redfishError, ref } from './redfish-common';

type Doc = Record<string, unknown>;

/** The System resources `missingResources` and `brokenResources` may name. */
export const INVENTORY_RESOURCES = ['SimpleStorage', 'Storage', 'PCIeDevices'] as const;
export type InventoryResource = (typeof INVENTORY_RESOURCES)[number];

const ok = (body: Doc): RedfishReply => ({ status: 200, body });
const enabled = { State: 'Enabled', Health: 'OK' };

/** The System's links to the inventory resources the machine has (all but its `missingResources`). */
export function inventoryLinks(m: VirtualMachine): Doc {
  const path = `${ROOT}/Systems/${m.id}`;
  const missing = m.faults.missingResources ?? [];
  return Object.fromEntries(INVENTORY_RESOURCES.filter((r) => !missing.includes(r)).map((r) => [r, ref(`${path}/${r}`)]));
}

/** A serial number of the machine's own: a tag and part of its UUID. */
const serial = (m: VirtualMachine, tag: string) => `${tag}${m.uuid.replace(/-/g, '').slice(0, 10).toUpperCase()}`;

function drive(m: VirtualMachine, base: string, index: number): Doc | undefined {
  const disk = m.spec.disks[index];
  if (disk === undefined) return undefined;
  return {
    '@odata.type': '#Drive.v1_9_0.Drive',
    '@odata.id': `${base}/1/Drives/${index}`,
    Id: String(index),
    Name: disk.name,
    CapacityBytes: disk.sizeBytes,
    MediaType: 'SSD',
    Protocol: 'SATA',
    Manufacturer: 'Ironless',
    Model: 'Virtual SSD',
    Revision: '1.0',
    SerialNumber: `${serial(m, 'VD')}${index}`,
    Status: enabled,
    ...ledField(m.leds.drives[index] ?? 'Off'),
  };
}

/** The PCIe devices: one virtio network device per NIC, then a virtio SCSI controller. */
function pcieDevices(m: VirtualMachine): { id: string; name: string; fn: Doc }[] {
  const nics = m.spec.nics.map((n, i) => ({
    id: `NIC${i}`,
    name: `Virtio network device (${n.id})`,
    fn: {
      DeviceClass: 'NetworkController',
      DeviceId: '0x1041',
      VendorId: '0x1af4',
      SubsystemId: '0x1100',
      SubsystemVendorId: '0x1af4',
      RevisionId: '0x01',
    },
  }));
  const scsi = {
    id: 'SCSI0',
    name: 'Virtio SCSI controller',
    fn: {
      DeviceClass: 'MassStorageController',
      DeviceId: '0x1048',
      VendorId: '0x1af4',
      SubsystemId: '0x1100',
      SubsystemVendorId: '0x1af4',
      RevisionId: '0x01',
    },
  };
  return [...nics, scsi];
}

/** A drive's PATCH: its IndicatorLED only. */
function patchDrive(m: VirtualMachine, index: number, body: unknown): RedfishReply {
  const refused = patchLed(m, index, (body ?? {}) as Doc);
  return refused === undefined ? { status: 204 } : redfishError(400, 'Base.1.8.PropertyValueNotInList', refused);
}

/**
 * GET under `/redfish/v1/Systems/<id>/<sub>` for the resources above (and PATCH of a drive);
 * undefined for any other `sub`.
 */
export function inventoryResource(m: VirtualMachine, req: RedfishRequest, rest: string[]): RedfishReply | undefined {
  const [sub, item, more, moreItem, extra] = rest;
  if (!INVENTORY_RESOURCES.includes(sub as InventoryResource)) return undefined;
  const faults = m.faults;
  if (faults.missingResources?.includes(sub as InventoryResource) || faults.brokenResources?.includes(sub as InventoryResource)) {
    return notFound(req.path);
  }
  const isDrive = sub === 'Storage' && item === '1' && more === 'Drives' && extra === undefined && /^\d+$/.test(moreItem ?? '');
  if (req.method !== 'GET' && !(isDrive && req.method === 'PATCH')) {
    return redfishError(405, 'Base.1.8.OperationNotAllowed', `${req.method} is not allowed on ${req.path}.`);
  }
  const base = `${ROOT}/Systems/${m.id}/${sub}`;
  if (sub === 'SimpleStorage') {
    if (item === undefined) return ok(collection(base, 'SimpleStorage', [`${base}/1`]));
    if (item !== '1' || more !== undefined) return notFound(req.path);
    const devices = m.spec.disks.map((d) => ({ Name: d.name, CapacityBytes: d.sizeBytes, Status: enabled }));
    return ok({
      '@odata.type': '#SimpleStorage.v1_2_0.SimpleStorage',
      '@odata.id': `${base}/1`,
      Id: '1',
      Name: 'Simple Storage Controller',
      Devices: devices,
    });
  }
  if (sub === 'Storage') {
    if (item === undefined) return ok(collection(base, 'Storage', [`${base}/1`]));
    if (item !== '1') return notFound(req.path);
    if (more === undefined) {
      return ok({
        '@odata.type': '#Storage.v1_8_0.Storage',
        '@odata.id': `${base}/1`,
        Id: '1',
        Name: 'Storage Controller',
        StorageControllers: [
          {
            '@odata.id': `${base}/1#/StorageControllers/0`,
            MemberId: '0',
            Name: 'Virtual SATA controller',
            SpeedGbps: 6,
            SupportedRAIDTypes: [],
            SupportedControllerProtocols: ['PCIe'],
            SupportedDeviceProtocols: ['SATA'],
            Status: enabled,
          },
        ],
        Drives: m.spec.disks.map((_, i) => ref(`${base}/1/Drives/${i}`)),
        Volumes: ref(`${base}/1/Volumes`),
        Status: enabled,
      });
    }
    if (more === 'Volumes' && moreItem === undefined) return ok(collection(`${base}/1/Volumes`, 'Volume', []));
    if (isDrive) {
      const doc = drive(m, base, Number(moreItem));
      if (doc) return req.method === 'PATCH' ? patchDrive(m, Number(moreItem), req.body) : ok(doc);
    }
    return notFound(req.path);
  }
  // PCIeDevices
  const devices = pcieDevices(m);
  if (item === undefined)
    return ok(
      collection(
        base,
        'PCIeDevice',
        devices.map((d) => `${base}/${d.id}`),
      ),
    );
  const device = devices.find((d) => d.id === item);
  if (device === undefined) return notFound(req.path);
  const devicePath = `${base}/${device.id}`;
  if (more === undefined) {
    return ok({
      '@odata.type': '#PCIeDevice.v1_5_0.PCIeDevice',
      '@odata.id': devicePath,
      Id: device.id,
      Name: device.name,
      Manufacturer: 'Red Hat, Inc.',
      DeviceType: 'SingleFunction',
      Status: enabled,
      PCIeFunctions: ref(`${devicePath}/PCIeFunctions`),
    });
  }
  if (more !== 'PCIeFunctions' || extra !== undefined) return notFound(req.path);
  if (moreItem === undefined) return ok(collection(`${devicePath}/PCIeFunctions`, 'PCIeFunction', [`${devicePath}/PCIeFunctions/0`]));
  if (moreItem !== '0') return notFound(req.path);
  return ok({
    '@odata.type': '#PCIeFunction.v1_2_0.PCIeFunction',
    '@odata.id': `${devicePath}/PCIeFunctions/0`,
    Id: '0',
    Name: device.name,
    FunctionId: 0,
    FunctionType: 'Physical',
    ...device.fn,
    Status: enabled,
  });
}

/** GET under `/redfish/v1/Chassis/<id>/NetworkAdapters`: one adapter per NIC, its controller at the machine's NIC firmware, its one Port. */
export function networkAdapterResource(m: VirtualMachine, req: RedfishRequest, rest: string[]): RedfishReply {
  const [item, ...more] = rest;
  if (req.method !== 'GET') return redfishError(405, 'Base.1.8.OperationNotAllowed', `${req.method} is not allowed on ${req.path}.`);
  const base = `${ROOT}/Chassis/${m.id}/NetworkAdapters`;
  const ids = m.spec.nics.map((_, i) => `NIC${i}`);
  if (item === undefined)
    return ok(
      collection(
        base,
        'NetworkAdapter',
        ids.map((id) => `${base}/${id}`),
      ),
    );
  const index = ids.indexOf(item);
  const nic = m.spec.nics[index];
  if (nic === undefined) return notFound(req.path);
  if (more.length > 0) return portResource(m, req, `${base}/${item}/Ports`, index, more);
  return ok({
    '@odata.type': '#NetworkAdapter.v1_7_0.NetworkAdapter',
    '@odata.id': `${base}/${item}`,
    Id: item,
    Name: `Virtio network adapter (${nic.id})`,
    Manufacturer: 'Red Hat, Inc.',
    Model: 'Virtio network device',
    SerialNumber: `${serial(m, 'NA')}${index}`,
    Controllers: [{ FirmwarePackageVersion: firmwareOf(m).nic, ControllerCapabilities: { NetworkPortCount: 1 } }],
    Ports: { '@odata.id': `${base}/${item}/Ports` },
    Status: enabled,
  });
}

/**
 * An adapter's one Port (Id: the NIC's EthernetInterface Id), with the LLDP its top-of-rack switch
 * sends: a virtual switch per rack (the machine id's prefix), the port numbered by machine and NIC.
 */
function portResource(m: VirtualMachine, req: RedfishRequest, base: string, index: number, rest: string[]): RedfishReply {
  const nic = m.spec.nics[index] as (typeof m.spec.nics)[number];
  const [collectionName, id, ...more] = rest;
  if (collectionName !== 'Ports' || more.length > 0) return notFound(req.path);
  if (id === undefined) return ok(collection(base, 'Port', [`${base}/${nic.id}`]));
  if (id !== nic.id) return notFound(req.path);
  const rack = m.id.replace(/-?\d+$/, '') || m.id;
  const position = Number(/(\d+)$/.exec(m.id)?.[1] ?? 0);
  return ok({
    '@odata.type': '#Port.v1_11_0.Port',
    '@odata.id': `${base}/${nic.id}`,
    Id: nic.id,
    Name: `Port of ${nic.id}`,
    LinkStatus: nic.enabled ? 'LinkUp' : 'LinkDown',
    Ethernet: {
      AssociatedMACAddresses: [nic.mac],
      LLDPReceive: {
        ChassisId: `52:54:00:ff:${hexByte([...rack].reduce((sum, c) => sum + c.charCodeAt(0), 0))}:01`,
        ChassisIdSubtype: 'MacAddr',
        PortId: `Ethernet1/${position * m.spec.nics.length + index + 1}`,
        PortIdSubtype: 'IfName',
        SystemName: `tor-${rack}`,
        SystemDescription: 'Ironless virtual switch',
        ManagementVlanId: 100,
      },
    },
    Status: enabled,
  });
}

const hexByte = (n: number): string => (n & 0xff).toString(16).padStart(2, '0');
