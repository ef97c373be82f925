/**
 * Which URL the BMC gets for an image attached as virtual media (Ironic's `prepare_remote_image`
 * as `do_attach_virtual_media` calls it, and `cleanup_remote_image` on attach and detach).
 *
 * `image_download_source`:
 * - `local` (the API's default): the conductor copies the image and serves it itself. Ironic
 *   downloads it to its own web server (or Swift); Ironless streams it into the boot ISO bucket as
 *   `<node>/<device>-<node>.<iso|img>` (Ironic's file name) and hands the BMC a presigned GET URL.
 *   NFS and CIFS/SMB URLs are refused with Ironic's message: the BMC reads those itself.
 * - `http`: the URL as it is.
 * - `swift`: as `http` for the URLs the API accepts (Ironic's `swift` differs only for Glance
 *   images, which get Swift temporary URLs; Ironless has no Glance).
 *
 * NOTE: the copy is bounded (`VMEDIA_MAX_IMAGE_BYTES`) by the conductor's /tmp, where it lands on
 * its way to S3; the bucket's lifecycle rule expires a copy a day after it was put, and its URL
 * is valid for 6 hours, so an image attached longer than that must be attached again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { ImageDownloadFailed, ImageRefValidationFailed, InvalidParameterValue } from '#common/errors';
import type { Node } from '#objects/node';
import type { Task } from '../base';
import { DownloadStatusError, deleteArtifacts, downloadToFile, presignArtifact, putArtifact } from './artifacts';
import type { RedfishConfig } from './config';

/** The largest image the conductor copies: what its /tmp (2 GiB in the CDK stack) holds with room to spare. */
export const VMEDIA_MAX_IMAGE_BYTES = 1536 * 1024 * 1024;
/** Ironic's VMEDIA_DEVICES, the types whose copies detaching everything removes. */
const DEVICE_TYPES = ['cdrom', 'floppy', 'disk'] as const;
const BMC_READ_SCHEMES = ['nfs', 'cifs', 'smb'];

/** The object a node's copy for a device type is kept under (Ironic's `_virtual_media_file_name`, under the node). */
export function vmediaImageKey(node: Node, deviceType: string): string {
  return `${node.uuid}/${deviceType.toLowerCase()}-${node.uuid}.${deviceType === 'cdrom' ? 'iso' : 'img'}`;
}

/** The URL to hand the BMC, copying the image into the bucket first for `local`. */
export async function prepareVmediaImage(
  task: Task,
  deviceType: string,
  imageUrl: string,
  downloadSource: string,
  config: RedfishConfig,
  options: { s3?: S3Client; maxBytes?: number } = {},
): Promise<string> {
  const node = task.node;
  const scheme = (/^([A-Za-z][A-Za-z0-9+.-]*):/.exec(imageUrl)?.[1] ?? '').toLowerCase();
  if (downloadSource !== 'local') return imageUrl;
  if (BMC_READ_SCHEMES.includes(scheme)) {
    throw new InvalidParameterValue(
      `image_download_source is set to 'local' but the image URL ${imageUrl} uses the ${scheme} protocol which cannot be downloaded by the conductor. Set image_download_source to 'http' or remove it to use the default.`,
    );
  }
  const bucket = config.bootIso?.bucket;
  if (bucket === undefined) {
    throw new InvalidParameterValue(
      `Node ${node.uuid}: this deployment has no boot ISO bucket to copy ${imageUrl} to for image_download_source 'local'; set image_download_source to 'http' to hand the BMC the URL as it is`,
    );
  }
  const key = vmediaImageKey(node, deviceType);
  const dir = await mkdtemp(join(tmpdir(), 'vmedia-'));
  try {
    let file: Awaited<ReturnType<typeof downloadToFile>>;
    try {
      file = await downloadToFile(
        imageUrl,
        join(dir, 'image'),
        'image_url',
        node.uuid,
        config.policy.image,
        options.maxBytes ?? VMEDIA_MAX_IMAGE_BYTES,
      );
    } catch (err) {
      if (err instanceof InvalidParameterValue) throw err;
      if (err instanceof DownloadStatusError)
        throw new ImageRefValidationFailed(imageUrl, `Got HTTP code ${err.status} instead of 200 in response to GET request.`);
      throw new ImageDownloadFailed(imageUrl, (err as Error).message);
    }
    try {
      await putArtifact(bucket, key, file.open(), file.size, 'application/octet-stream', options.s3);
    } catch (err) {
      throw new ImageDownloadFailed(imageUrl, `putting the copy in s3://${bucket}/${key} failed: ${(err as Error).message}`);
    }
    task.log.info('Copied the virtual media image to the bucket', { node: node.uuid, image_url: imageUrl, key, size: file.size });
    return await presignArtifact(bucket, key, options.s3);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Remove the node's copies for these device types (all when none are named); a failure is only logged, as in Ironic. */
export async function cleanupVmediaImages(
  task: Task,
  deviceTypes: readonly string[] | undefined,
  config: RedfishConfig,
  s3?: S3Client,
): Promise<void> {
  const bucket = config.bootIso?.bucket;
  if (bucket === undefined) return;
  const keys = (deviceTypes ?? DEVICE_TYPES).map((d) => vmediaImageKey(task.node, d));
  const failure = await deleteArtifacts(bucket, keys, s3);
  if (failure) task.log.warn('Could not delete the virtual media image copies', { node: task.node.uuid, error: failure.message });
}
