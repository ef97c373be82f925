/**
 * The `redfish-virtual-media` boot interface (Ironic's `redfish/boot.py`): the ramdisk boots from an
 * ISO the BMC's virtual CD pulls over HTTP. Prepare = power off, eject, insert the ISO, bring the
 * BMC's boot mode to the node's (`boot-mode-sync.ts`), boot once from CD; clean up = eject. The
 * instance boots from disk, after the same boot mode sync.
 *
 * When the node gives `<mode>_kernel`/`<mode>_ramdisk` (and a `bootloader`) instead of an ISO, the
 * conductor builds the ISO, puts it in the boot ISO bucket and inserts a presigned URL of it
 * (`boot-iso.ts`); cleaning up the ramdisk or the instance deletes it, as Ironic's `cleanup_iso_image`.
 * That ISO carries a pregenerated agent token on its kernel command line (Ironic's `prepare_ramdisk`).
 */
import { InstanceDeployFailure, InvalidParameterValue } from '#common/errors';
import {
  CLEANING,
  CLEANWAIT,
  DEPLOYING,
  DEPLOYWAIT,
  INSPECTING,
  INSPECTWAIT,
  POWER_OFF,
  RESCUEWAIT,
  RESCUING,
  SERVICEWAIT,
  SERVICING,
} from '#common/states';
import type { Node } from '#objects/node';
import { addSecretToken } from '../agent/token';
import { BOOT_DEVICES, type BootInterface, type ManagementInterface, type PowerInterface, type Task } from '../base';
import { bootDevicePersistence } from '../boot-device';
import { configureSecureBootIfNeeded, deconfigureSecureBootIfNeeded, syncBootMode } from '../boot-mode-sync';
import type { RedfishConfig } from './config';
import { parseDriverInfo } from './driver-info';
import {
  type BootIsoConfig,
  type BootIsoPlan,
  DEFAULT_KERNEL_APPEND_PARAMS,
  deleteBootIsos,
  planBootIso,
  publishBootIso,
} from './boot-iso';
import { setBootDevice } from './management';
import { powerStateOf } from './power';
import { type RedfishSystem, getSystem, isRedfishFailure, redfishFailure } from './system';
import { CD, ejectMedia, mediaTypes } from './vmedia';

/** Redfish MediaTypes. */
const USB = 'USBStick';
const FLOPPY = 'Floppy';

/** States in which the ramdisk is prepared; in any other (e.g. a takeover) preparing would disturb the node. */
const RAMDISK_STATES = [DEPLOYING, DEPLOYWAIT, CLEANING, CLEANWAIT, RESCUING, RESCUEWAIT, INSPECTING, INSPECTWAIT, SERVICING, SERVICEWAIT];

function mode(node: Node): 'deploy' | 'rescue' {
  return [RESCUING, RESCUEWAIT].includes(node.provision_state) ? 'rescue' : 'deploy';
}

const EMPTY_BOOT_ISO: BootIsoConfig = { kernelAppendParams: DEFAULT_KERNEL_APPEND_PARAMS };

function plan(node: Node, config: RedfishConfig): BootIsoPlan {
  return planBootIso(node, mode(node), config.bootIso ?? EMPTY_BOOT_ISO, config.policy.image);
}

/** Instance boot option (`instance_info.capabilities.boot_option`), Ironic's default "local". */
function bootOption(node: Node): string {
  let capabilities = node.instance_info.capabilities;
  if (typeof capabilities === 'string') {
    try {
      capabilities = JSON.parse(capabilities);
    } catch {
      capabilities = {};
    }
  }
  const option = (capabilities as Record<string, unknown> | undefined)?.boot_option;
  return typeof option === 'string' ? option : 'local';
}

/** Insert the image into the first free device of this type (or find it already there). */
async function insertMedia(task: Task, system: RedfishSystem, image: string, type: string): Promise<void> {
  for (const media of await system.virtualMedia()) {
    if (!mediaTypes(media).includes(type)) continue;
    if (media.Inserted === true) {
      if (media.Image === image) return;
      continue;
    }
    await system.insertMedia(media, image);
    task.log.info('Inserted boot media', { node: task.node.uuid, image, device: media.Id ?? media.Name });
    return;
  }
  throw new InvalidParameterValue('No suitable virtual media device found');
}

async function ejectAll(task: Task, system: RedfishSystem): Promise<void> {
  try {
    await ejectMedia(task, system, CD);
    if (task.node.driver_info.config_via_removable || task.node.driver_info.config_via_floppy) {
      await ejectMedia(task, system, USB);
      await ejectMedia(task, system, FLOPPY);
    }
  } catch (err) {
    redfishFailure(err, `Ejecting virtual media failed for node ${task.node.uuid}.`);
  }
}

/**
 * A built ISO can carry the agent's configuration (Ironic's `can_provide_config`): a new token,
 * marked pregenerated, is stored on the node (a conditional write under the node's lock) before the
 * ISO that carries it is built and booted, so the agent's lookup finds it there and answers "******".
 * A ready `deploy_iso` cannot carry it: that agent gets its token at lookup.
 */
async function pregenerate(task: Task, planned: Extract<BootIsoPlan, { kind: 'build' }>): Promise<Extract<BootIsoPlan, { kind: 'build' }>> {
  const agentToken = addSecretToken(task.node, true);
  await task.persist?.();
  return { ...planned, agentToken };
}

/** Delete the node's built ISOs; a failure is logged and left (Ironic's cleanup_iso_image only logs too). */
async function cleanUpIsos(task: Task, config: RedfishConfig): Promise<void> {
  const failure = await deleteBootIsos(task.node, config.bootIso ?? EMPTY_BOOT_ISO);
  if (failure !== undefined) task.log.warn('Deleting the boot ISOs failed', { node: task.node.uuid, error: failure.message });
}

export function createRedfishVirtualMediaBoot(
  config: RedfishConfig,
  power: PowerInterface,
  management: ManagementInterface,
): BootInterface {
  return {
    name: 'redfish-virtual-media',

    async validate(task) {
      plan(task.node, config);
      parseDriverInfo(task.node, config.policy);
    },

    // As Ironic's: no unmanaged fallback for virtual media; the ramdisk ISO and the BMC must be known.
    async validateInspection(task) {
      plan(task.node, config);
      parseDriverInfo(task.node, config.policy);
    },

    async prepareRamdisk(task) {
      const node = task.node;
      if (!RAMDISK_STATES.includes(node.provision_state)) return;
      // The BMC fetches the ISO: a URL the image host policy refuses is not handed to it (planBootIso checks).
      const planned = plan(node, config);
      const system = await getSystem(task, config);
      // As Ironic's node_power_action: only when needed, and the node records the new state.
      if (powerStateOf(system) !== POWER_OFF) await power.setPowerState(task, POWER_OFF);
      node.power_state = POWER_OFF;
      const iso =
        planned.kind === 'ready'
          ? planned.url
          : await publishBootIso(node, mode(node), await pregenerate(task, planned), config.bootIso ?? EMPTY_BOOT_ISO, config.policy.image);
      if (planned.kind === 'build') task.log.info('Built the ramdisk ISO', { node: node.uuid, mode: mode(node) });
      try {
        await ejectMedia(task, system, CD);
        await insertMedia(task, system, iso, CD);
      } catch (err) {
        if (!isRedfishFailure(err)) throw err;
        // A presigned URL carries a signature: the message names the built ISO, not its URL.
        redfishFailure(
          err,
          `Inserting virtual media ${planned.kind === 'ready' ? iso : `the built ${mode(node)} ISO`} failed for node ${node.uuid}.`,
        );
      }
      // As Ironic's: the ISO is planned for the node's boot mode before the BMC is brought to it.
      await syncBootMode(task, management);
      await system.refresh();
      await setBootDevice(task, system, BOOT_DEVICES.CDROM, bootDevicePersistence(node, false), management, config);
      task.log.info('Node is set to boot the ramdisk once from virtual CD', {
        node: node.uuid,
        iso: planned.kind === 'ready' ? iso : 'built',
      });
    },

    async cleanUpRamdisk(task) {
      await ejectAll(task, await getSystem(task, config));
      await cleanUpIsos(task, config);
    },

    async prepareInstance(task) {
      const system = await getSystem(task, config);
      await ejectAll(task, system);
      await syncBootMode(task, management);
      await configureSecureBootIfNeeded(task, management);
      const option = bootOption(task.node);
      if (option !== 'local' && task.node.driver_internal_info.is_whole_disk_image !== true) {
        throw new InstanceDeployFailure(`boot option "${option}" is not supported by the redfish-virtual-media boot interface of Ironless`);
      }
      await system.refresh();
      await setBootDevice(task, system, BOOT_DEVICES.DISK, bootDevicePersistence(task.node, true), management, config);
    },

    async cleanUpInstance(task) {
      await ejectAll(task, await getSystem(task, config));
      await deconfigureSecureBootIfNeeded(task, management);
      await cleanUpIsos(task, config);
    },
  };
}
