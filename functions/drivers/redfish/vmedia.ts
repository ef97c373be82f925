/**
 * Virtual media through Redfish (Ironic's RedfishManagement get/attach/detach_virtual_media, which
 * use `redfish/boot.py`'s get_vmedia, insert_vmedia and eject_vmedia): the VirtualMedia devices of
 * the system's managers, listed, filled with InsertMedia and emptied with EjectMedia.
 *
 * Ironic's device types map to Redfish MediaTypes: cdrom → CD, floppy → Floppy, disk → USBStick.
 * A device that offers DVD but not CD serves as a CD (Cisco UCS has only those), as in Ironic.
 * Attaching first ejects whatever the devices of that type hold, then inserts into the first one
 * that accepts the image; a device that refuses it (400, 405) is skipped for the next, and when
 * none accepts it the error is Ironic's "Virtual media mount failed …". Answers of 5xx have been
 * retried by the client already (Ironic retries them with tenacity).
 */
import { InvalidParameterValue } from '#common/errors';
import type { ManagementInterface, Task, VirtualMediaInfo } from '../base';
import { checkUrlHost } from '../hosts';
import { RedfishRequestError, type Resource } from './client';
import type { RedfishConfig } from './config';
import { type RedfishSystem, getSystem } from './system';
import { cleanupVmediaImages, prepareVmediaImage } from './vmedia-image';

/** Redfish MediaTypes. */
export const CD = 'CD';
const DVD = 'DVD';
const USB = 'USBStick';
const FLOPPY = 'Floppy';

/** Ironic's VMEDIA_DEVICES_MAP_REV: an API device type → the Redfish MediaType. */
const MEDIA_TYPE_OF: Readonly<Record<string, string>> = { cdrom: CD, floppy: FLOPPY, disk: USB };

export function mediaTypes(media: Resource): string[] {
  return Array.isArray(media.MediaTypes) ? media.MediaTypes.map(String) : [];
}

/** Whether a device serves this MediaType (a DVD drive serves as a CD drive); every device when no type is given. */
function serves(media: Resource, type: string | undefined): boolean {
  if (type === undefined) return true;
  const types = mediaTypes(media);
  return types.includes(type) || (type === CD && types.includes(DVD));
}

/** Eject every inserted device of this type (all types when none is given); whether any was ejected. */
export async function ejectMedia(task: Task, system: RedfishSystem, type?: string): Promise<boolean> {
  let found = false;
  for (const media of await system.virtualMedia()) {
    if (!serves(media, type) || media.Inserted !== true) continue;
    await system.ejectMedia(media);
    found = true;
    task.log.info('Ejected virtual media', { node: task.node.uuid, device: media.Id ?? media.Name });
  }
  return found;
}

/** Refusals after which the next device is tried (sushy's BadRequestError; 405 from slots without remote media). */
function skipsDevice(err: unknown): err is RedfishRequestError {
  return err instanceof RedfishRequestError && (err.status === 400 || err.status === 405);
}

/** Ironic's `_insert_vmedia`: eject this type, then insert into the first device that takes the image. */
export async function insertMedia(task: Task, system: RedfishSystem, image: string, type: string): Promise<void> {
  const node = task.node.uuid;
  try {
    await ejectMedia(task, system, type);
  } catch (err) {
    // Best effort, as Ironic: the insert below reports what really fails.
    task.log.debug('Could not eject the media before inserting', { node, error: String(err) });
  }
  const errors: string[] = [];
  for (const media of await system.virtualMedia()) {
    if (!serves(media, type)) continue;
    try {
      await system.insertMedia(media, image);
    } catch (err) {
      if (skipsDevice(err)) {
        const message = `Inserting virtual media into ${type} failed for node ${node}, moving to next virtual media device, if available. ${err.message}`;
        errors.push(message);
        task.log.warn(message, { node });
        continue;
      }
      // A server error the client's retries did not cure ends the search, as Ironic's does.
      if (err instanceof RedfishRequestError && err.kind === 'http') {
        errors.push(err.message);
        break;
      }
      throw err;
    }
    task.log.info('Inserted virtual media', { node, image, device: media.Id ?? media.Name, type });
    return;
  }
  const [first, last] = [errors[0], errors[errors.length - 1]];
  if (first === undefined)
    throw new InvalidParameterValue(`No suitable virtual media device found for node ${node} to mount image ${image}`);
  if (first === last) throw new InvalidParameterValue(`Virtual media mount failed for node ${node} with image ${image}. Error: ${first}`);
  throw new InvalidParameterValue(
    `Virtual media mount failed for node ${node} with image ${image} after multiple attempts. First error: ${first}. Last error: ${last}`,
  );
}

function mediaTypeOf(deviceType: string): string {
  const type = MEDIA_TYPE_OF[deviceType];
  if (type === undefined) throw new InvalidParameterValue(`Invalid device type ${deviceType} (valid are disk, cdrom, floppy)`);
  return type;
}

export function createRedfishVirtualMedia(
  config: RedfishConfig,
): Required<Pick<ManagementInterface, 'getVirtualMedia' | 'attachVirtualMedia' | 'detachVirtualMedia'>> {
  return {
    async getVirtualMedia(task) {
      const devices = await (await getSystem(task, config)).virtualMedia();
      if (devices.length === 0) throw new InvalidParameterValue('No suitable virtual media device found');
      return devices.map((media): VirtualMediaInfo => ({
        media_types: mediaTypes(media),
        inserted: media.Inserted === true,
        image: typeof media.Image === 'string' ? media.Image : null,
      }));
    },

    async attachVirtualMedia(task, deviceType, imageUrl, downloadSource) {
      const type = mediaTypeOf(deviceType);
      // Whoever fetches the image (the BMC, or the conductor for `local`): a URL the image host policy refuses is not fetched.
      checkUrlHost(config.policy.image, imageUrl, 'image_url', task.node.uuid);
      const url = await prepareVmediaImage(task, deviceType, imageUrl, downloadSource, config);
      try {
        await insertMedia(task, await getSystem(task, config), url, type);
      } catch (err) {
        // A presigned URL carries a signature: last_error names the copy's source instead.
        if (url !== imageUrl && err instanceof Error) err.message = err.message.replaceAll(url, `the conductor's copy of ${imageUrl}`);
        throw err;
      }
    },

    async detachVirtualMedia(task, deviceTypes) {
      const system = await getSystem(task, config);
      if (deviceTypes === undefined) await ejectMedia(task, system);
      else for (const deviceType of deviceTypes) await ejectMedia(task, system, mediaTypeOf(deviceType));
      // As Ironic's do_detach_virtual_media: the copies kept for `local` go once ejected.
      await cleanupVmediaImages(task, deviceTypes, config);
    },
  };
}
