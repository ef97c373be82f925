/**
 * Ironic's `node_set_boot_device` (conductor/utils.py), the path every boot interface and deploy
 * helper sets a boot device through: `driver_info/force_persistent_boot_device` decides whether
 * the change persists, whatever the caller asked. `Always` makes every change persistent, `Never`
 * none, `Default` (or no value) keeps the caller's choice: each change one-time, except the final
 * boot-to-disk of a deploy. The values of old releases were booleans and only a true one mattered
 * (it meant `Always`); Ironic still reads any other value that way, with no error.
 *
 * NOTE: Ironic's management API (`PUT /v1/nodes/{node}/management/boot_device`) calls the
 * management interface directly, not through node_set_boot_device, so an operator's own request
 * is applied as asked; Ironless does the same (conductor/flows/management.ts).
 */
import { pyStr } from '#common/pyrepr';
import { boolFromString } from '#common/strutils';
import type { Node } from '#objects/node';
import type { ManagementInterface, Task } from './base';

/** Whether a boot device change the caller asked for as `requested` persists on this node. */
export function bootDevicePersistence(node: Pick<Node, 'driver_info'>, requested: boolean): boolean {
  const force = node.driver_info.force_persistent_boot_device;
  if (force === 'Always') return true;
  if (force === 'Never') return false;
  if (force === undefined || force === null || force === 'Default') return requested;
  // oslo's bool_from_string(strict=False): a boolean as it is, anything else through str(); a
  // true value forces persistence, a false or unreadable one leaves the request alone.
  const legacyTrue = typeof force === 'boolean' ? force : boolFromString(pyStr(force)) === true;
  return legacyTrue || requested;
}

/**
 * Validate the management interface and set the boot device, persistent as the node's
 * `force_persistent_boot_device` decides (Ironic's node_set_boot_device), for callers that go
 * through the management interface (unmanaged inspection's network boot).
 */
export async function setNodeBootDevice(management: ManagementInterface, task: Task, device: string, persistent = false): Promise<void> {
  await management.validate(task);
  await management.setBootDevice(task, device, bootDevicePersistence(task.node, persistent));
}
