/**
 * A node's hardware interfaces on create and update (Ironic's
 * `driver_factory.check_and_update_node_interfaces`): each interface a node names must be an
 * enabled implementation (and one its hardware type supports), and each it leaves unset gets the
 * type's default. Enabled implementations are those of the registered hardware types, in order.
 */
import { InvalidParameterValue, NoValidHost, withStatus } from '#common/errors';
import { getHardwareType, hardwareTypes } from '#drivers/registry';
import type { HardwareType } from '#drivers/base';
import { NODE_INTERFACES, type InterfaceType } from '#objects/node';
import type { ApiContext } from './context';
import { pyRepr } from './pyrepr';

/** The interfaces the API shows and accepts at its versions (Ironic 21.4 has no firmware interface). */
export const API_INTERFACES = NODE_INTERFACES.filter((i) => i !== 'firmware');

function enabled(iface: InterfaceType): string[] {
  const names: string[] = [];
  for (const type of hardwareTypes()) for (const name of type.supported[iface]) if (!names.includes(name)) names.push(name);
  return names;
}

function checkInterface(type: HardwareType, iface: InterfaceType, name: string): void {
  const valid = enabled(iface);
  if (!valid.includes(name)) {
    throw new InvalidParameterValue(
      `Could not find the following interface in the 'ironic.hardware.interfaces.${iface}' entrypoint: ${name}. Valid interfaces are ${pyRepr(valid)}.`,
    );
  }
  // fake-hardware takes any enabled implementation, as in Ironic.
  if (type.name !== 'fake-hardware' && !type.supported[iface].includes(name)) {
    throw new InvalidParameterValue(`${iface} interface implementation '${name}' is not supported by hardware type ${type.name}.`);
  }
}

/**
 * Check the interfaces in `data` (a node's fields) and fill the unset ones with defaults, in place.
 * `instance_info` may override an interface for one deployment; those values are checked too.
 */
export function checkAndUpdateInterfaces(data: Record<string, unknown>): void {
  const type = getHardwareType(String(data.driver));
  const instanceInfo = (data.instance_info ?? {}) as Record<string, unknown>;
  for (const iface of NODE_INTERFACES) {
    const field = `${iface}_interface`;
    let setDefault = true;
    const override = instanceInfo[field];
    if (override !== undefined && override !== null) {
      checkInterface(type, iface, String(override));
      setDefault = false;
    }
    const value = data[field];
    if (value !== undefined && value !== null) {
      checkInterface(type, iface, String(value));
      setDefault = false;
    }
    if (setDefault) data[field] = type.supported[iface][0] ?? null;
  }
}

/** The conductor group must have a conductor for the driver (Ironic's get_topic_for; 400 from the API). */
export function checkConductorFor(ctx: ApiContext, driver: string, group: string): void {
  let known = true;
  try {
    getHardwareType(driver);
  } catch {
    known = false;
  }
  if (!known || ctx.rpc.queueFor(group) === undefined) {
    throw withStatus(
      new NoValidHost(
        `No valid host was found. Reason: No conductor service registered which supports driver ${driver} for conductor group "${group}".`,
      ),
      400,
    );
  }
}
