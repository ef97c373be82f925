/**
 * Ironic's AgentRAID (`raid_interface: agent`): RAID built by the ramdisk agent. The agent's
 * in-band `raid` steps join the node's step lists — create_configuration and
 * delete_configuration for cleaning (and servicing), apply_configuration for deploying. Before
 * create_configuration the node's target is checked and handed to the agent; before
 * apply_configuration its `raid_config` argument is validated. Once the agent reports a step
 * succeeded, a post-step hook records what the hardware now has: `raid_config`, and from the root
 * volume the node's size, root device hint and `raid_level` capability (after
 * delete_configuration: no RAID). As in Ironic, servicing runs the steps without the hooks.
 */
import { IronicError } from '#common/errors';
import { pyRepr } from '#common/pyrepr';
import type { PostStepHook, RaidInterface, StepFlow, Task } from '../base';
import { filterTargetRaidConfig, raidInterface, updateRaidInfo, validateRaidConfig } from '../raid';

/** Ironic's base exception, as its hook failures name it. */
class IronicException extends IronicError {}

/** After create_configuration (cleaning) or apply_configuration (deploying): record the RAID built. */
function createConfigurationFinal(flow: StepFlow): PostStepHook {
  return {
    name: '_create_configuration_final',
    run(task, command) {
      const result = (command.command_result ?? {})[`${flow}_result`];
      const empty = result === null || result === undefined || typeof result !== 'object' || Object.keys(result as object).length === 0;
      if (empty) {
        throw new IronicException(
          `Agent ramdisk didn't return a proper command result while building RAID on ${task.node.uuid}. It returned '${pyRepr(command)}' after command execution.`,
        );
      }
      updateRaidInfo(task.node, result as Record<string, unknown>);
    },
  };
}

/** After delete_configuration: no RAID, and no root device hint that pointed at one. */
const deleteConfigurationFinal: PostStepHook = {
  name: '_delete_configuration_final',
  run(task) {
    const { root_device: _gone, ...properties } = task.node.properties;
    task.node.properties = properties;
    task.node.raid_config = {};
  },
};

/** Ironic's AgentRAID.create_configuration, before the agent runs it: the target must be there; the agent gets it. */
function handTargetToAgent(task: Task): void {
  const target = filterTargetRaidConfig(task.node);
  task.node.driver_internal_info = { ...task.node.driver_internal_info, target_raid_config: target };
}

export const agentRaid: RaidInterface = raidInterface('agent', {
  inband: {
    prepare: {
      clean: { create_configuration: handTargetToAgent },
      service: { create_configuration: handTargetToAgent },
      deploy: {
        apply_configuration(_task, step) {
          validateRaidConfig(step.args.raid_config);
        },
      },
    },
    after: {
      clean: {
        create_configuration: createConfigurationFinal('clean'),
        delete_configuration: deleteConfigurationFinal,
      },
      deploy: { apply_configuration: createConfigurationFinal('deploy') },
    },
  },
});
