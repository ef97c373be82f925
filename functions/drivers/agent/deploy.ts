/**
 * The `direct` deploy interface (Ironic's `agent.AgentDeploy` with the decomposed deploy steps):
 *
 * | step                         | prio | what                                                        |
 * | ---------------------------- | ---- | ----------------------------------------------------------- |
 * | deploy                       | 100  | boot the ramdisk; waits for the agent's first heartbeat     |
 * | write_image                  |  80  | in-band `deploy.write_image` (download, verify checksum)    |
 * | prepare_instance_boot        |  60  | boot the instance from disk next                            |
 * | tear_down_agent              |  40  | power the ramdisk off                                       |
 * | switch_to_tenant_network     |  30  | network (noop network: nothing)                             |
 * | boot_instance                |  20  | power on                                                    |
 *
 * Steps the agent offers (`deploy.get_deploy_steps`) are merged in by the conductor after the first
 * heartbeat; they run with `deploy.execute_deploy_step` (see `inband.ts`).
 */
import { InstanceDeployFailure } from '#common/errors';
import { POWER_OFF, POWER_ON } from '#common/states';
import type { DeployInterface, StepDefinition, Task } from '../base';
import type { Driver } from '../base';
import { validateImageSource, imageInfo, imageUrl, isWholeDiskImage } from './image-source';
import { agentClient, executeInbandStep, wipeAgentToken } from './inband';

const done = { wait: false } as const;
const wait = { wait: true } as const;

/** The node's driver, resolved lazily (the registry imports this module). */
type DriverOf = (task: Task) => Driver;

/** Whether the agent on this node has heartbeaten recently enough to reuse (Ironic's fast track). */
export function agentAlive(task: Task, heartbeatTimeoutSeconds: number): boolean {
  const info = task.node.driver_internal_info;
  const last = info.agent_last_heartbeat;
  // Ironic's [deploy]fast_track, here FAST_TRACK=true in the conductor's environment.
  if (process.env.FAST_TRACK !== 'true' || typeof info.agent_url !== 'string' || typeof last !== 'string') return false;
  return Date.now() - Date.parse(last) < heartbeatTimeoutSeconds * 1000 && task.node.power_state === POWER_ON;
}

/** Boot the deploy ramdisk: wipe the old agent's token, prepare the boot device, reboot. */
export async function bootRamdisk(task: Task, driver: Driver): Promise<void> {
  wipeAgentToken(task.node);
  await driver.boot.prepareRamdisk(task, {});
  await driver.power.reboot(task);
  task.node.power_state = POWER_ON;
}

let resolver: DriverOf | undefined;

/** The registry tells the `direct` interface how to load a node's other interfaces (no import cycle). */
export function setDriverResolver(resolve: DriverOf): void {
  resolver = resolve;
}

function heartbeatTimeoutFromEnv(): number {
  const value = Number(process.env.HEARTBEAT_TIMEOUT ?? '');
  return Number.isInteger(value) && value > 0 ? value : 300;
}

/** The one `direct` implementation the hardware types offer. */
export const directDeploy: DeployInterface = createDirectDeploy(
  (task) => {
    if (resolver === undefined) throw new Error('direct deploy: no driver resolver registered');
    return resolver(task);
  },
  { heartbeatTimeoutSeconds: heartbeatTimeoutFromEnv },
);

export function createDirectDeploy(driverOf: DriverOf, options: { heartbeatTimeoutSeconds: () => number }): DeployInterface {
  const deployStep: StepDefinition = {
    step: 'deploy',
    priority: 100,
    async: true,
    async execute(task) {
      const node = task.node;
      const url = await imageUrl(String(node.instance_info.image_source));
      node.instance_info = { ...node.instance_info, image_url: url };
      node.driver_internal_info = { ...node.driver_internal_info, is_whole_disk_image: isWholeDiskImage(node) };
      if (agentAlive(task, options.heartbeatTimeoutSeconds())) {
        task.log.info('Fast track: the agent is already running, not rebooting', { node: node.uuid });
        return done;
      }
      await bootRamdisk(task, driverOf(task));
      return wait;
    },
  };

  const writeImage: StepDefinition = {
    step: 'write_image',
    priority: 80,
    async: true,
    async execute(task) {
      const node = task.node;
      const url =
        typeof node.instance_info.image_url === 'string'
          ? node.instance_info.image_url
          : await imageUrl(String(node.instance_info.image_source));
      const info = imageInfo(node, url);
      await executeInbandStep(task, 'deploy', {
        interface: 'deploy',
        step: 'write_image',
        priority: 80,
        args: { image_info: info, configdrive: node.instance_info.configdrive ?? null },
      });
      return wait;
    },
  };

  const prepareInstanceBoot: StepDefinition = {
    step: 'prepare_instance_boot',
    priority: 60,
    async execute(task) {
      const driver = driverOf(task);
      if (!isWholeDiskImage(task.node)) {
        // Partition images need the agent to install a bootloader (image.install_bootloader), which
        // needs the partition UUIDs; Ironless deploys whole-disk images only for now.
        throw new InstanceDeployFailure(
          `Node ${task.node.uuid}: partition images are not supported by Ironless yet; use a whole-disk image`,
        );
      }
      await driver.boot.prepareInstance(task);
      return done;
    },
  };

  const tearDownAgent: StepDefinition = {
    step: 'tear_down_agent',
    priority: 40,
    async execute(task) {
      const driver = driverOf(task);
      try {
        // Let the ramdisk flush its disks; a failure here is no reason to fail the deploy.
        await agentClient().command(task.node, 'standby.sync', {}, true);
      } catch (err) {
        task.log.warn('Could not sync the agent before powering off', { node: task.node.uuid, error: String(err) });
      }
      await driver.power.setPowerState(task, POWER_OFF);
      task.node.power_state = POWER_OFF;
      wipeAgentToken(task.node);
      await driver.boot.cleanUpRamdisk(task);
      return done;
    },
  };

  const switchToTenantNetwork: StepDefinition = {
    step: 'switch_to_tenant_network',
    priority: 30,
    async execute() {
      // The noop network interface has no provisioning or tenant networks to switch.
      return done;
    },
  };

  const bootInstance: StepDefinition = {
    step: 'boot_instance',
    priority: 20,
    async execute(task) {
      await driverOf(task).power.setPowerState(task, POWER_ON);
      task.node.power_state = POWER_ON;
      return done;
    },
  };

  return {
    name: 'direct',
    usesAgent: true,
    async validate(task) {
      validateImageSource(task.node);
    },
    deploySteps: [deployStep, writeImage, prepareInstanceBoot, tearDownAgent, switchToTenantNetwork, bootInstance],
    async tearDown(task) {
      const driver = driverOf(task);
      await driver.power.setPowerState(task, POWER_OFF);
      task.node.power_state = POWER_OFF;
      wipeAgentToken(task.node);
      await driver.boot.cleanUpInstance(task);
    },
    async prepareCleaning(task) {
      if (agentAlive(task, options.heartbeatTimeoutSeconds())) return false;
      await bootRamdisk(task, driverOf(task));
      return true;
    },
    async tearDownCleaning(task) {
      const driver = driverOf(task);
      await driver.power.setPowerState(task, POWER_OFF);
      task.node.power_state = POWER_OFF;
      wipeAgentToken(task.node);
      await driver.boot.cleanUpRamdisk(task);
    },
  };
}
