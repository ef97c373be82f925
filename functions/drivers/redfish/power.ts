/**
 * Redfish power (Ironic's `redfish/power.py`): ComputerSystem.Reset, then wait until the BMC
 * reports the state asked for, or fail with Ironic's PowerStateFailure.
 */
import { InvalidParameterValue, PowerStateFailure } from '#common/errors';
import { POWER_OFF, POWER_ON, REBOOT, SOFT_POWER_OFF, SOFT_REBOOT } from '#common/states';
import { refusePowerOff } from '../power-off';
import type { PowerInterface, Task } from '../base';
import type { RedfishConfig } from './config';
import { parseDriverInfo } from './driver-info';
import { restoreBootDevice } from './management';
import { type RedfishSystem, getSystem, reachFailure, redfishFailure } from './system';

/** Redfish PowerState → Ironic power state; a transition counts as where it is going, as in Ironic. */
const GET_POWER_STATE: Readonly<Record<string, string>> = {
  On: POWER_ON,
  PoweringOn: POWER_ON,
  Off: POWER_OFF,
  PoweringOff: POWER_OFF,
};

/** Ironic power state → ResetType. */
const SET_POWER_STATE: Readonly<Record<string, string>> = {
  [POWER_ON]: 'On',
  [POWER_OFF]: 'ForceOff',
  [REBOOT]: 'ForceRestart',
  [SOFT_REBOOT]: 'GracefulRestart',
  [SOFT_POWER_OFF]: 'GracefulShutdown',
};

/** The state each action ends in. */
const TARGET_STATE: Readonly<Record<string, string>> = { [REBOOT]: POWER_ON, [SOFT_REBOOT]: POWER_ON, [SOFT_POWER_OFF]: POWER_OFF };

/** The longest pause between two polls of the power state. */
const MAX_POLL_INTERVAL_MS = 5_000;

export function powerStateOf(system: RedfishSystem): string | null {
  return GET_POWER_STATE[system.powerState ?? ''] ?? null;
}

/** Whether the node's management interface is Redfish's, which keeps a boot device to restore on power on. */
function managedByRedfish(task: Task): boolean {
  return (task.node.management_interface ?? 'redfish') === 'redfish';
}

/**
 * Poll the power state, backing off, until it is `target` (Ironic's `node_wait_for_power_state`).
 * @throws PowerStateFailure when the timeout passes first.
 */
async function waitForPowerState(
  task: Task,
  system: RedfishSystem,
  target: string,
  timeoutSeconds: number | undefined,
  config: RedfishConfig,
) {
  const timeoutMs = timeoutSeconds ? timeoutSeconds * 1000 : config.powerStateChangeTimeoutMs;
  const deadline = Date.now() + timeoutMs;
  let interval = config.powerPollIntervalMs;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(interval, deadline - Date.now()))));
    try {
      await system.refresh();
    } catch (err) {
      reachFailure(task.node.uuid, err);
    }
    if (powerStateOf(system) === target) return;
    if (Date.now() >= deadline) {
      task.log.error('Timed out waiting for a power state', { node: task.node.uuid, target, timeoutMs, reported: system.powerState });
      throw new PowerStateFailure(target);
    }
    interval = Math.min(interval * 2, MAX_POLL_INTERVAL_MS);
  }
}

async function resetAndWait(task: Task, system: RedfishSystem, state: string, timeoutSeconds: number | undefined, config: RedfishConfig) {
  await system.reset(SET_POWER_STATE[state] as string);
  await waitForPowerState(task, system, TARGET_STATE[state] ?? state, timeoutSeconds, config);
}

export function createRedfishPower(config: RedfishConfig): PowerInterface {
  return {
    name: 'redfish',
    async validate(task) {
      parseDriverInfo(task.node, config.policy);
    },

    async getPowerState(task) {
      return powerStateOf(await getSystem(task, config));
    },

    async setPowerState(task, state, timeoutSeconds) {
      if (SET_POWER_STATE[state] === undefined) {
        throw new InvalidParameterValue(`set_power_state called with an invalid power state: ${state}.`);
      }
      refusePowerOff(task.node, state);
      const system = await getSystem(task, config);
      if ([POWER_ON, SOFT_REBOOT, REBOOT].includes(state) && managedByRedfish(task)) await restoreBootDevice(task, system, config);
      try {
        await resetAndWait(task, system, state, timeoutSeconds, config);
      } catch (err) {
        redfishFailure(err, `Setting power state to ${state} failed for node ${task.node.uuid}.`);
      }
    },

    async reboot(task, timeoutSeconds) {
      const system = await getSystem(task, config);
      let next = POWER_OFF;
      try {
        // A node that may not be off (1.95) is reset in place after its boot device is restored.
        const resetInPlace = powerStateOf(system) === POWER_ON && task.node.disable_power_off;
        if (powerStateOf(system) === POWER_ON && !resetInPlace) await resetAndWait(task, system, POWER_OFF, timeoutSeconds, config);
        if (managedByRedfish(task)) await restoreBootDevice(task, system, config);
        next = resetInPlace ? REBOOT : POWER_ON;
        await resetAndWait(task, system, next, timeoutSeconds, config);
      } catch (err) {
        redfishFailure(err, `Reboot failed for node ${task.node.uuid} when setting power state to ${next}.`);
      }
    },

    async getSupportedPowerStates() {
      return Object.keys(SET_POWER_STATE);
    },
  };
}
