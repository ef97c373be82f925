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
import { type AgentConfig, loadAgentConfig } from '#common/config';
import { ACCEPTABLE_BOOLEANS, boolFromString } from '#common/strutils';
import { InstanceDeployFailure, InvalidParameterValue } from '#common/errors';
import { POWER_OFF, POWER_ON } from '#common/states';
import type { AgentCommand } from '../agent-client';
import type { DeployInterface, StepDefinition, Task } from '../base';
import type { Driver } from '../base';
import { bootModeOf } from '../boot-mode';
import { configdriveImage } from '../configdrive';
import { checkImageHosts, validateImageSource, imageInfo, imageUrl, isWholeDiskImage, prepareInstanceInfo } from './image-source';
import { agentClient, executeInbandStep, wipeAgentToken } from './inband';
import { lockDownAgent } from './lockdown';
import { collectRamdiskLogs } from './ramdisk-logs';

const done = { wait: false } as const;
const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const wait = { wait: true } as const;

/** The node's driver, resolved lazily (the registry imports this module). */
type DriverOf = (task: Task) => Driver;

/** Ironic's `fast_track_enabled`: the node's `driver_info.fast_track`, else the deployment's setting. */
export function fastTrackEnabled(node: Task['node'], config: AgentConfig): boolean {
  const value = node.driver_info.fast_track;
  if (value === undefined || value === null) return config.fastTrack;
  const parsed = strictBoolean(value);
  if (parsed === undefined) {
    throw new InvalidParameterValue(
      `Invalid value of fast_track: Unrecognized value '${String(value)}', acceptable values are: ${ACCEPTABLE_BOOLEANS}`,
    );
  }
  return parsed;
}

/**
 * Ironic's `is_fast_track`: fast track is on, the node has no error, the BMC says it is on and its
 * agent heartbeated within the fast-track timeout — so the running agent is used, not rebooted.
 */
export async function isFastTrack(task: Task, driver: Pick<Driver, 'power'>, config: AgentConfig): Promise<boolean> {
  const node = task.node;
  if (!fastTrackEnabled(node, config) || node.last_error !== null) return false;
  const info = node.driver_internal_info;
  if (typeof info.agent_url !== 'string' || info.agent_url === '' || typeof info.agent_last_heartbeat !== 'string') return false;
  if (Date.now() - Date.parse(info.agent_last_heartbeat) > config.fastTrackTimeoutSeconds * 1000) return false;
  return (await driver.power.getPowerState(task)) === POWER_ON;
}

/** A boolean driver_info value: a JSON boolean, or a string oslo reads as one; undefined otherwise. */
function strictBoolean(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : boolFromString(String(value));
}

/**
 * Boot the deploy ramdisk: wipe the old agent's token, prepare the boot device, reboot. The wiped
 * token is stored before the power action (as Ironic's node_power_action does): the agent that
 * boots looks up at once, and would be refused a token the node still holds. (No token, no write.)
 */
export async function bootRamdisk(task: Task, driver: Driver): Promise<void> {
  if (wipeAgentToken(task.node)) await task.persist?.();
  await driver.boot.prepareRamdisk(task, {});
  await driver.power.reboot(task);
  task.node.power_state = POWER_ON;
}

let resolver: DriverOf | undefined;

/** The registry tells the `direct` interface how to load a node's other interfaces (no import cycle). */
export function setDriverResolver(resolve: DriverOf): void {
  resolver = resolve;
}

let config: AgentConfig | undefined;

/** Replace the deployment's agent settings (unit tests: no waits between power polls). */
export function setAgentConfig(replacement: AgentConfig | undefined): void {
  config = replacement;
}

/** The deployment's agent settings, read once (or what `setAgentConfig` put in their place). */
export function currentAgentConfig(): AgentConfig {
  return (config ??= loadAgentConfig());
}

/** The one `direct` implementation the hardware types offer. */
export const directDeploy: DeployInterface = createDirectDeploy((task) => {
  if (resolver === undefined) throw new Error('direct deploy: no driver resolver registered');
  return resolver(task);
}, currentAgentConfig);

export function createDirectDeploy(driverOf: DriverOf, agentConfig: () => AgentConfig, sleep = defaultSleep): DeployInterface {
  const deployStep: StepDefinition = {
    step: 'deploy',
    priority: 100,
    async: true,
    async execute(task) {
      const node = task.node;
      const url = await imageUrl(String(node.instance_info.image_source));
      node.instance_info = { ...node.instance_info, image_url: url };
      node.driver_internal_info = { ...node.driver_internal_info, is_whole_disk_image: isWholeDiskImage(node) };
      if (await isFastTrack(task, driverOf(task), agentConfig())) {
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
      // Checked again where the URLs are handed over: the policy may have changed since validation.
      checkImageHosts(node);
      // Ironic's get_configdrive_image: a JSON configdrive becomes an ISO image only now.
      const configdrive = configdriveImage(node);
      const info = imageInfo(node, url, configdrive);
      await executeInbandStep(task, 'deploy', {
        interface: 'deploy',
        step: 'write_image',
        priority: 80,
        args: { image_info: info, configdrive: configdrive ?? null },
      });
      return wait;
    },
  };

  /**
   * Ironic's `prepare_instance_boot` with `configure_local_boot`: ask the agent for the partition
   * UUIDs it wrote, and have it install a bootloader where the image brings none of its own use —
   * a partition image, a whole-disk image booting in UEFI mode (its boot entry), a software RAID —
   * then boot the instance from disk.
   */
  const prepareInstanceBoot: StepDefinition = {
    step: 'prepare_instance_boot',
    priority: 60,
    async execute(task) {
      const driver = driverOf(task);
      const node = task.node;
      const wholeDisk = node.driver_internal_info.is_whole_disk_image !== false;
      const client = agentClient();
      const uuids = ((await client.command(node, 'standby.get_partition_uuids', {}, true)).command_result ?? {}) as Record<string, unknown>;
      const rootUuid = typeof uuids['root uuid'] === 'string' && uuids['root uuid'] !== '' ? uuids['root uuid'] : undefined;
      if (rootUuid !== undefined) {
        node.driver_internal_info = { ...node.driver_internal_info, root_uuid_or_disk_id: rootUuid };
      } else if (!wholeDisk) {
        task.log.error(
          `No root UUID returned from the ramdisk for node ${node.uuid}, the deploy will likely fail. Partition UUIDs are ${JSON.stringify(uuids)}`,
        );
      }
      const bootMode = bootModeOf(node);
      const efiUuid = !wholeDisk && bootMode === 'uefi' ? uuids['efi system partition uuid'] : undefined;
      const cpuArch = node.properties.cpu_arch;
      const prepUuid = typeof cpuArch === 'string' && cpuArch.startsWith('ppc64') ? uuids['PReP Boot partition uuid'] : undefined;
      const logicalDisks = (node.target_raid_config as { logical_disks?: { controller?: unknown }[] } | null)?.logical_disks ?? [];
      const softwareRaid = logicalDisks.some((d) => d.controller === 'software');
      const root =
        softwareRaid && typeof node.instance_info.image_rootfs_uuid === 'string' ? node.instance_info.image_rootfs_uuid : rootUuid;
      if (softwareRaid || (root !== undefined && !wholeDisk) || (wholeDisk && bootMode === 'uefi')) {
        const result = await installBootloader(task, {
          root_uuid: root ?? null,
          efi_system_part_uuid: efiUuid ?? null,
          prep_boot_part_uuid: prepUuid ?? null,
          target_boot_mode: bootMode,
          ...(softwareRaid ? { software_raid: true } : {}),
        });
        if (result.command_status === 'FAILED') {
          throw new InstanceDeployFailure(
            `Failed to install a bootloader when deploying node ${node.uuid}: ${commandErrorText(result.command_error)}`,
          );
        }
      }
      try {
        await driver.boot.prepareInstance(task);
      } catch (err) {
        task.log.error(
          `Preparing instance for booting failed for instance ${String(node.instance_uuid)}. ${(err as Error).name}: ${(err as Error).message}`,
        );
        throw new InstanceDeployFailure('Failed to prepare instance for booting');
      }
      return done;
    },
  };

  /**
   * `image.install_bootloader`, polled to its end (Ironic's `_command(poll=True)`): every
   * `agentCommandWaitIntervalSeconds`, at most `agentCommandWaitAttempts` times.
   */
  async function installBootloader(task: Task, params: Record<string, unknown>): Promise<AgentCommand> {
    const client = agentClient();
    const node = task.node;
    await client.command(node, 'image.install_bootloader', params);
    const { commandWaitIntervalSeconds: interval, commandWaitAttempts: attempts } = agentConfig();
    for (let attempt = 0; attempt < attempts; attempt++) {
      const last = await client.lastCommand(node, ['image.install_bootloader']);
      if (last !== undefined && last.command_status !== 'RUNNING') return last;
      await sleep(interval * 1000);
    }
    throw new InstanceDeployFailure(`Timeout while waiting for command image.install_bootloader on node ${node.uuid}.`);
  }

  /** Poll the BMC until the node is off, Ironic's post-deploy retries; false if it never is. */
  async function poweredOff(task: Task, driver: Driver): Promise<boolean> {
    const { postDeployPowerStateRetries: retries, postDeployPowerStateRetryIntervalSeconds: interval } = agentConfig();
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await sleep(interval * 1000);
      try {
        if ((await driver.power.getPowerState(task)) === POWER_OFF) return true;
      } catch (err) {
        task.log.warn('Could not read the power state after the soft power off', { node: task.node.uuid, error: String(err) });
      }
    }
    return false;
  }

  const tearDownAgent: StepDefinition = {
    step: 'tear_down_agent',
    priority: 40,
    async execute(task) {
      const driver = driverOf(task);
      const node = task.node;
      // With deployLogsCollect "always" Ironic keeps the ramdisk's logs of a deploy that went well here.
      await collectRamdiskLogs(node, { outcome: 'success' }, task.log);
      try {
        if (node.disable_power_off) {
          // Never off (1.95): the agent locks itself down; boot_instance reboots into the instance.
          await lockDownAgent(task, agentConfig(), sleep);
        } else if (strictBoolean(node.driver_info.deploy_forces_oob_reboot ?? false) === true) {
          // Out of band by request: flush the disks first, then cut the power.
          try {
            await agentClient().command(node, 'standby.sync', {}, true);
          } catch (err) {
            task.log.warn('Failed to flush the file system prior to hard rebooting the node', { node: node.uuid, error: String(err) });
          }
          await driver.power.setPowerState(task, POWER_OFF);
        } else {
          // Ironic's soft power off: the agent shuts the machine down itself (its disks flushed);
          // the BMC forces it only if the machine is not off within the retries.
          try {
            await agentClient().command(node, 'standby.power_off', {});
          } catch (err) {
            task.log.warn(`Failed to soft power off node ${node.uuid}. ${(err as Error).name}: ${(err as Error).message}`);
          }
          if (!(await poweredOff(task, driver))) {
            const { postDeployPowerStateRetries: retries, postDeployPowerStateRetryIntervalSeconds: interval } = agentConfig();
            task.log.warn(
              `Failed to soft power off node ${node.uuid} in at least ${retries * interval} seconds. Forcing hard power off and proceeding.`,
            );
            await driver.power.setPowerState(task, POWER_OFF);
          }
        }
      } catch (err) {
        throw new InstanceDeployFailure(
          `Error rebooting node ${node.uuid} after deploy. ${(err as Error).name}: ${(err as Error).message}`,
        );
      }
      if (!node.disable_power_off) node.power_state = POWER_OFF;
      wipeAgentToken(node);
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
      // A node never powered off is still running the locked-down ramdisk: reset it.
      if (task.node.disable_power_off) await driverOf(task).power.reboot(task);
      else await driverOf(task).power.setPowerState(task, POWER_ON);
      task.node.power_state = POWER_ON;
      return done;
    },
  };

  return {
    name: 'direct',
    usesAgent: true,
    // The agent's in-band `deploy` steps (erase_devices, burn-in…) join the node's step lists.
    inband: {},
    async validate(task) {
      validateImageSource(task.node, agentConfig().imageS3Buckets);
    },
    async prepare(task) {
      prepareInstanceInfo(task.node);
    },
    deploySteps: [deployStep, writeImage, prepareInstanceBoot, tearDownAgent, switchToTenantNetwork, bootInstance],
    async tearDown(task) {
      const driver = driverOf(task);
      const neverOff = task.node.disable_power_off;
      if (!neverOff) {
        await driver.power.setPowerState(task, POWER_OFF);
        task.node.power_state = POWER_OFF;
      }
      wipeAgentToken(task.node);
      await driver.boot.cleanUpInstance(task);
      // Ironic's clean_up: a node that stayed on must stop running the instance, so it reboots.
      if (neverOff) await driver.power.reboot(task);
    },
    async prepareCleaning(task) {
      if (await isFastTrack(task, driverOf(task), agentConfig())) return false;
      await bootRamdisk(task, driverOf(task));
      return true;
    },
    async tearDownCleaning(task) {
      // Ironic's tear_down_inband_cleaning: with fast track (or after a cleaning failure) the
      // agent stays up for what comes next; otherwise the node is powered off and forgets it.
      const driver = driverOf(task);
      const failed = task.node.fault === 'clean failure' || task.node.fault === 'service failure';
      const keepAgent = failed || (await isFastTrack(task, driver, agentConfig()));
      // A node that may not be powered off is rebooted out of the ramdisk instead (Ironic's
      // tear_down_inband_cleaning with disable_power_off).
      const neverOff = task.node.disable_power_off;
      if (!keepAgent && !neverOff) {
        await driver.power.setPowerState(task, POWER_OFF);
        task.node.power_state = POWER_OFF;
      }
      if (!keepAgent) wipeAgentToken(task.node);
      await driver.boot.cleanUpRamdisk(task);
      if (!keepAgent && neverOff) await driver.power.reboot(task);
    },
  };
}

/** An agent command's error as Ironic's `get_command_error` words it: its message, or the whole of it. */
function commandErrorText(error: unknown): string {
  if (error === null || error === undefined) return 'unknown error';
  if (typeof error === 'string') return error;
  const e = error as { message?: unknown; details?: unknown };
  if (typeof e.details === 'string' && e.details !== '') return e.details;
  if (typeof e.message === 'string') return e.message;
  return JSON.stringify(error);
}
