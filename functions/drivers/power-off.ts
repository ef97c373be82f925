/**
 * Nodes that must never be powered off (API 1.95 `disable_power_off`, Ironic's conductor
 * `node_power_action`): a request to power such a node off — hard or soft — is refused with
 * PowerStateFailure by every power interface, so no flow can switch it off by mistake. The flows
 * that would power a node off on their way (booting a ramdisk, tearing an agent down, undeploying)
 * reboot it instead, as Ironic does.
 */
import { PowerStateFailure } from '#common/errors';
import { POWER_OFF, SOFT_POWER_OFF } from '#common/states';
import type { Node } from '#objects/node';

/** Throws PowerStateFailure when `state` would switch off a node with disable_power_off. */
export function refusePowerOff(node: Pick<Node, 'disable_power_off'>, state: string): void {
  if ((state === POWER_OFF || state === SOFT_POWER_OFF) && node.disable_power_off) throw new PowerStateFailure(state);
}
