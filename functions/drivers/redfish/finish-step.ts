/** What the redfish steps that need a reset share (Ironic's `deploy_utils.reboot_to_finish_step`). */
import { POWER_ON } from '#common/states';
import { wipeAgentToken } from '../agent/inband';
import type { BootInterface, PowerInterface, Task } from '../base';

/** Reboot to finish a step: back into the ramdisk when the flow booted it, else a plain reboot. */
export async function rebootToFinishStep(task: Task, power: PowerInterface, boot: BootInterface): Promise<void> {
  if (task.node.driver_internal_info.steps_boot_agent === true) {
    if (wipeAgentToken(task.node)) await task.persist?.();
    await boot.prepareRamdisk(task, {});
  }
  await power.reboot(task);
  task.node.power_state = POWER_ON;
}
