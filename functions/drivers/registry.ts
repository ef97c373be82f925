/**
 * Enabled hardware types and interface implementations, and loading a node's driver from its
 * `driver` and `*_interface` fields (Ironic's `driver_factory`).
 */
import { DriverNotFound, InvalidParameterValue } from '#common/errors';
import { type InterfaceType, NODE_INTERFACES, type Node } from '#objects/node';
import type {
  AnyInterface,
  BiosInterface,
  FirmwareInterface,
  BootInterface,
  DeployInterface,
  Driver,
  HardwareInterface,
  HardwareType,
  InspectInterface,
  ManagementInterface,
  NetworkInterface,
  PowerInterface,
  RaidInterface,
} from './base';
import { setDriverResolver } from './agent/deploy';
import { setInspectorDriverResolver } from './inspector/index';
import { FAKE_INTERFACES, fakeHardware } from './fake';
import type { VendorInterface } from './vendor';
import { hardwareTypeOf, redfishImplementations } from './redfish/index';

const IMPLEMENTATIONS_BY_TYPE: ReadonlyMap<string, Readonly<Record<string, readonly AnyInterface[]>>> = new Map([
  [fakeHardware.name, FAKE_INTERFACES],
  ['redfish', redfishImplementations()],
]);

const HARDWARE_TYPES: ReadonlyMap<string, HardwareType> = new Map(
  [...IMPLEMENTATIONS_BY_TYPE].map(([name, impls]) => [name, name === fakeHardware.name ? fakeHardware : hardwareTypeOf(name, impls)]),
);

/** `<hardware type>/<interface type>/<name>` → implementation. */
const IMPLEMENTATIONS: ReadonlyMap<string, HardwareInterface> = new Map(
  [...IMPLEMENTATIONS_BY_TYPE].flatMap(([hw, byType]) =>
    Object.entries(byType).flatMap(([type, impls]) => impls.map((impl) => [`${hw}/${type}/${impl.name}`, impl] as const)),
  ),
);

export function hardwareTypes(): HardwareType[] {
  return [...HARDWARE_TYPES.values()];
}

export function getHardwareType(name: string): HardwareType {
  const type = HARDWARE_TYPES.get(name);
  if (type === undefined) throw new DriverNotFound(name);
  return type;
}

/**
 * The interface fields a new node gets: each one given, checked against what its hardware type
 * supports, or else the type's default (Ironic's `check_and_update_node_interfaces`).
 */
export function defaultInterfaces(driver: string, given: Partial<Record<InterfaceType, string | null>>): Record<InterfaceType, string> {
  const type = getHardwareType(driver);
  const out = {} as Record<InterfaceType, string>;
  for (const iface of NODE_INTERFACES) {
    const supported = type.supported[iface];
    const value = given[iface];
    if (value === undefined || value === null) {
      out[iface] = supported[0] as string;
    } else if (!supported.includes(value)) {
      throw new InvalidParameterValue(
        `Could not find the following interface in the 'ironic.hardware.interfaces.${iface}' entrypoint: ${value}. Valid interfaces are ${supported.join(', ')}.`,
      );
    } else {
      out[iface] = value;
    }
  }
  return out;
}

/** A hardware type's default vendor interface (driver-level vendor passthru uses it, as Ironic). */
export function defaultVendorInterface(type: HardwareType): VendorInterface {
  return IMPLEMENTATIONS.get(`${type.name}/vendor/${type.supported.vendor[0] as string}`) as VendorInterface;
}

export function loadDriver(node: Node): Driver {
  const hardwareType = getHardwareType(node.driver);
  const interfaces = {} as Record<InterfaceType, HardwareInterface>;
  for (const iface of NODE_INTERFACES) {
    const name = (node as unknown as Record<string, string | null>)[`${iface}_interface`] ?? hardwareType.supported[iface][0];
    const impl = IMPLEMENTATIONS.get(`${hardwareType.name}/${iface}/${name}`);
    if (impl === undefined || !hardwareType.supported[iface].includes(name as string)) {
      throw new InvalidParameterValue(
        `Node ${node.uuid}: ${iface} interface "${name}" is not supported by hardware type ${hardwareType.name}`,
      );
    }
    interfaces[iface] = impl;
  }
  return {
    hardwareType,
    interfaces,
    power: interfaces.power as PowerInterface,
    deploy: interfaces.deploy as DeployInterface,
    management: interfaces.management as ManagementInterface,
    boot: interfaces.boot as BootInterface,
    inspect: interfaces.inspect as InspectInterface,
    network: interfaces.network as NetworkInterface,
    raid: interfaces.raid as RaidInterface,
    bios: interfaces.bios as BiosInterface,
    firmware: interfaces.firmware as FirmwareInterface,
  };
}

setDriverResolver((task) => loadDriver(task.node));
setInspectorDriverResolver((task) => loadDriver(task.node));
