/**
 * A node's hardware interfaces on create and update (Ironic's
 * `driver_factory.check_and_update_node_interfaces`): each interface a node names must be an
 * enabled implementation (and one its hardware type supports), and each it leaves unset gets the
 * type's default. Enabled implementations are those of the registered hardware types, in order.
 */
import { InvalidParameterValue, NoValidHost, withStatus } from '#common/errors';
import { noConductorFor } from '#rpc/ring';
import { getHardwareType, hardwareTypes } from '#drivers/registry';
import type { HardwareType } from '#drivers/base';
import { NODE_INTERFACES, type InterfaceType } from '#objects/node';
import type { ApiContext } from './context';
import { pyRepr } from './pyrepr';

/** The interfaces the API shows and accepts (firmware from 1.86; see NODE_FIELD_VERSIONS). */
export const API_INTERFACES = NODE_INTERFACES;

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

/**
 * A live conductor must serve the driver in the node's group (Ironic's `get_topic_for`). Node
 * create, update, delete and maintenance answer NoValidHost as 400 (Ironic sets `e.code`); other
 * callers pass `status` undefined and keep Ironic's 404. No live conductor at all is 503.
 */
export async function checkConductorFor(
  ctx: ApiContext,
  driver: string,
  group: string,
  uuid = '',
  status: number | undefined = 400,
): Promise<void> {
  let known = true;
  try {
    getHardwareType(driver);
  } catch {
    known = false;
  }
  try {
    if (!known || ctx.rpc.queueFor(group) === undefined) throw noConductorFor(driver, group);
    await ctx.conductors.conductorFor({ uuid, driver, conductor_group: group });
  } catch (err) {
    if (err instanceof NoValidHost && status !== undefined) throw withStatus(err, status);
    throw err;
  }
}
