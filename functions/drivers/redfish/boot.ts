/**
 * The `redfish-virtual-media` boot interface (Ironic's `redfish/boot.py`): the ramdisk boots from an
 * ISO the BMC's virtual CD pulls over HTTP. Prepare = power off, eject, insert the ISO, boot once
 * from CD; clean up = eject. The instance boots from disk.
 *
 * NOTE: Ironic can build the ISO itself from `deploy_kernel`/`deploy_ramdisk` (and serve it); Ironless
 * has no image service yet, so it needs a ready `deploy_iso` (or `rescue_iso`). Validation keeps
 * Ironic's messages for missing parameters and then says so when only a kernel/ramdisk is given.
 */
import { InstanceDeployFailure, InvalidParameterValue, MissingParameterValue } from '#common/errors';
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
import { BOOT_DEVICES, type BootInterface, type PowerInterface, type Task } from '../base';
import type { RedfishConfig } from './config';
import { parseDriverInfo } from './driver-info';
import { checkUrlHost } from '../hosts';
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

/** A driver_info field, or its deprecated `redfish_`-prefixed name (Ironic's `get_field`). */
function field(node: Node, name: string, deprecatedPrefix?: string): unknown {
  const value = node.driver_info[name];
  if (value || !deprecatedPrefix) return value;
  return node.driver_info[`${deprecatedPrefix}_${name}`] || undefined;
}

/** The ISO the ramdisk boots from; Ironic's messages when neither an ISO nor a kernel/ramdisk pair is given. */
function deployIso(node: Node): string {
  const m = mode(node);
  const iso = field(node, `${m}_iso`, 'redfish');
  if (iso) return String(iso);
  const kernel = field(node, `${m}_kernel`);
  const ramdisk = field(node, `${m}_ramdisk`);
  if (!kernel || !ramdisk) {
    throw new MissingParameterValue(
      `Error validating Redfish virtual media. Some parameters were missing in node's driver_info. Missing are: ['${m}_kernel', '${m}_ramdisk']`,
    );
  }
  throw new InvalidParameterValue(
    `Node ${node.uuid}: Ironless cannot build a boot ISO from ${m}_kernel and ${m}_ramdisk yet; set driver_info/${m}_iso to a bootable ISO`,
  );
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

export function createRedfishVirtualMediaBoot(config: RedfishConfig, power: PowerInterface): BootInterface {
  return {
    name: 'redfish-virtual-media',

    async validate(task) {
      checkUrlHost(config.policy.image, deployIso(task.node), `driver_info/${mode(task.node)}_iso`, task.node.uuid);
      parseDriverInfo(task.node, config.policy);
    },

    // As Ironic's: no unmanaged fallback for virtual media; the ramdisk ISO and the BMC must be known.
    async validateInspection(task) {
      checkUrlHost(config.policy.image, deployIso(task.node), `driver_info/${mode(task.node)}_iso`, task.node.uuid);
      parseDriverInfo(task.node, config.policy);
    },

    async prepareRamdisk(task) {
      const node = task.node;
      if (!RAMDISK_STATES.includes(node.provision_state)) return;
      const iso = deployIso(node);
      // The BMC fetches the ISO: a URL the image host policy refuses is not handed to it.
      checkUrlHost(config.policy.image, iso, `driver_info/${mode(node)}_iso`, node.uuid);
      const system = await getSystem(task, config);
      // As Ironic's node_power_action: only when needed, and the node records the new state.
      if (powerStateOf(system) !== POWER_OFF) await power.setPowerState(task, POWER_OFF);
      node.power_state = POWER_OFF;
      try {
        await ejectMedia(task, system, CD);
        await insertMedia(task, system, iso, CD);
      } catch (err) {
        if (!isRedfishFailure(err)) throw err;
        redfishFailure(err, `Inserting virtual media ${iso} failed for node ${node.uuid}.`);
      }
      await system.refresh();
      await setBootDevice(task, system, BOOT_DEVICES.CDROM, false);
      task.log.info('Node is set to boot the ramdisk once from virtual CD', { node: node.uuid, iso });
    },

    async cleanUpRamdisk(task) {
      await ejectAll(task, await getSystem(task, config));
    },

    async prepareInstance(task) {
      const system = await getSystem(task, config);
      await ejectAll(task, system);
      const option = bootOption(task.node);
      if (option !== 'local' && task.node.driver_internal_info.is_whole_disk_image !== true) {
        throw new InstanceDeployFailure(`boot option "${option}" is not supported by the redfish-virtual-media boot interface of Ironless`);
      }
      await system.refresh();
      await setBootDevice(task, system, BOOT_DEVICES.DISK, true);
    },

    async cleanUpInstance(task) {
      await ejectAll(task, await getSystem(task, config));
    },
  };
}
