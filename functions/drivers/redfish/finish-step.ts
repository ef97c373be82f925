/**
 * What the redfish steps that need a reset share: Ironic's `deploy_utils.reboot_to_finish_step`
 * (the BIOS steps) and the plain reboot of a firmware update.
 */
import type { AgentConfig } from '#common/config';
import { POWER_OFF, POWER_ON } from '#common/states';
import { currentAgentConfig, isFastTrack } from '../agent/deploy';
import { wipeAgentToken } from '../agent/inband';
import { stepRebootBootsRamdisk } from '../agent/step-ramdisk';
import type { BootInterface, PowerInterface, Task } from '../base';

/**
 * Reboot to finish a step (Ironic's `reboot_to_finish_step`): into the ramdisk unless the flow runs
 * without one. Under fast track (a live agent, the node on) the node is powered off first, unless
 * it may never be off (`disable_power_off`), so the ramdisk boots afresh rather than the running
 * agent carrying on. The old agent's token is wiped and stored before the power action: the
 * ramdisk that boots looks up at once and would be refused while the node still holds one.
 */
export async function rebootToFinishStep(
  task: Task,
  power: PowerInterface,
  boot: BootInterface,
  agentConfig: () => AgentConfig = currentAgentConfig,
): Promise<void> {
  const ramdisk = stepRebootBootsRamdisk(task.node);
  if (ramdisk && !task.node.disable_power_off && (await isFastTrack(task, { power }, agentConfig()))) {
    task.log.debug('Forcing power off for a clean reboot into the agent image', { node: task.node.uuid });
    await power.setPowerState(task, POWER_OFF);
    task.node.power_state = POWER_OFF;
  }
  await reboot(task, power, boot, ramdisk);
}

/**
 * The reboot a firmware update owes: a plain reboot, as Ironic master's firmware interface does,
 * except that a clean or service that booted the ramdisk has it prepared again, so the node comes
 * back to it (master relies on the boot device the flow set). `timeoutSeconds` bounds each power
 * state change (master's `power_timeout`; none or 0: the power state timeout).
 */
export async function rebootForFirmware(task: Task, power: PowerInterface, boot: BootInterface, timeoutSeconds?: number): Promise<void> {
  await reboot(task, power, boot, task.node.driver_internal_info.steps_boot_agent === true, timeoutSeconds);
}

/** Reboot, into the ramdisk (the old agent's token wiped and stored first) when `ramdisk`. */
async function reboot(task: Task, power: PowerInterface, boot: BootInterface, ramdisk: boolean, timeoutSeconds?: number): Promise<void> {
  if (ramdisk) {
    if (wipeAgentToken(task.node)) await task.persist?.();
    await boot.prepareRamdisk(task, {});
  }
  await power.reboot(task, timeoutSeconds);
  task.node.power_state = POWER_ON;
}
