/** Whether a step's reboot brings the ramdisk back (Ironic's `deploy_utils.is_ramdisk_disabled`, negated). */
import { DEPLOYING, DEPLOYWAIT } from '#common/states';
import type { Node } from '#objects/node';

/**
 * A deploy always has the ramdisk (master has no deploy without it); a clean or service has it
 * when it booted the ramdisk itself (not `disable_ramdisk`, and a deploy interface that uses the
 * agent). A step that reboots to finish (the redfish BIOS steps) boots the ramdisk then, and the
 * freshly booted ramdisk's first heartbeat makes the step's second call.
 */
export function stepRebootBootsRamdisk(node: Node): boolean {
  if (node.provision_state === DEPLOYING || node.provision_state === DEPLOYWAIT) return true;
  return node.driver_internal_info.steps_boot_agent === true;
}
