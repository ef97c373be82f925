/**
 * Where the agent downloads the instance image from. `instance_info.image_source` is an http(s)
 * URL (used as is) or `s3://bucket/key`, which becomes a presigned GET URL so the ramdisk needs no
 * AWS credentials and Ironless no image service. The checksum travels with it (`image_checksum`,
 * or `image_os_hash_algo` + `image_os_hash_value`) and the agent verifies it, as in Ironic.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { InvalidParameterValue, MissingParameterValue } from '#common/errors';
import { once } from '#common/lazy';
import { ACCEPTABLE_BOOLEANS, boolFromString } from '#common/strutils';
import type { Node } from '#objects/node';
import { bootModeOf, diskLabelOf } from '../boot-mode';
import { type FetchPolicy, type HostRules, checkUrlHost, fetchPolicyFromEnv } from '../hosts';

/** How long a presigned image URL stays valid: long enough for a slow download of a large image. */
export const PRESIGN_SECONDS = 6 * 3600;

const VALID_IMAGE_TYPES = ['partition', 'whole-disk'];

let policy: FetchPolicy | undefined;

/** The image host policy from the environment, read once. */
function imageHosts(): HostRules {
  policy ??= fetchPolicyFromEnv();
  return policy.image;
}

/**
 * The image URLs a node names (its http(s) `image_source`, a config drive given as a URL) must
 * pass the image host policy before they are handed to an agent or a BMC to fetch.
 */
export function checkImageHosts(node: Node, rules: HostRules = imageHosts()): void {
  const source = node.instance_info.image_source;
  if (typeof source === 'string' && /^https?:\/\//.test(source)) checkUrlHost(rules, source, 'instance_info/image_source', node.uuid);
  const configdrive = node.instance_info.configdrive;
  if (typeof configdrive === 'string' && /^https?:\/\//.test(configdrive)) {
    checkUrlHost(rules, configdrive, 'instance_info/configdrive', node.uuid);
  }
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

/**
 * Ironic's AgentDeploy.validate for the image: a source, a known type, and a checksum for URLs.
 * An `s3://` source must name one of `allowedBuckets` (settings.imageBuckets): the conductor's
 * role may read exactly those, and a presigned URL lends the agent that role's authority.
 */
export function validateImageSource(node: Node, allowedBuckets: readonly string[] = []): void {
  const info = node.instance_info;
  const source = info.image_source;
  if (!present(source)) {
    throw new MissingParameterValue(
      `Node ${node.uuid} failed to validate deploy image info. Some parameters were missing. Missing are: ['instance_info.image_source']`,
    );
  }
  if (typeof source !== 'string') throw new InvalidParameterValue(`Node ${node.uuid}: instance_info.image_source must be a string`);
  const type = info.image_type;
  if (present(type) && !VALID_IMAGE_TYPES.includes(String(type))) {
    throw new InvalidParameterValue(`Invalid image_type "${String(type)}", valid are ${VALID_IMAGE_TYPES.join(', ')}`);
  }
  if (!/^(https?|s3):\/\//.test(source)) {
    throw new InvalidParameterValue(
      `Node ${node.uuid}: image_source "${source}" is not supported: Ironless deploys images from http(s):// and s3:// URLs only`,
    );
  }
  checkImageHosts(node);
  if (source.startsWith('s3://')) {
    const s3Source = parseS3(source);
    if (s3Source === undefined) {
      throw new InvalidParameterValue(`Node ${node.uuid}: image_source "${source}" is not of the form s3://bucket/key`);
    }
    if (!allowedBuckets.includes(s3Source.bucket)) {
      const allowed = allowedBuckets.length > 0 ? `allowed: ${allowedBuckets.join(', ')}` : 'none is allowed';
      throw new InvalidParameterValue(
        `Node ${node.uuid}: image_source "${source}" is in S3 bucket "${s3Source.bucket}", which this deployment does not allow (${allowed}); the operator adds buckets with the stack setting imageBuckets`,
      );
    }
  }
  const algo = info.image_os_hash_algo;
  const value = info.image_os_hash_value;
  if ((present(value) && !present(algo)) || (!present(value) && (present(algo) || !present(info.image_checksum)))) {
    throw new MissingParameterValue(
      `image_source's "image_checksum", or "image_os_hash_algo" and "image_os_hash_value" must be provided in instance_info for node ${node.uuid}`,
    );
  }
}

export function parseS3(source: string): { bucket: string; key: string } | undefined {
  const match = /^s3:\/\/([^/]+)\/(.+)$/.exec(source);
  return match ? { bucket: match[1] as string, key: match[2] as string } : undefined;
}

// The S3 client is loaded for the first image in S3 (lib/bundling.ts: a conductor's cold start loads none).
const s3Sdk = once(() => import('@aws-sdk/client-s3'));
const s3 = once(async () => new (await s3Sdk()).S3Client({}));

/** The URL the agent downloads from: the source itself, or an S3 object's presigned URL. */
export async function imageUrl(source: string, client?: S3Client): Promise<string> {
  const s3Source = parseS3(source);
  if (s3Source === undefined) return source;
  const [{ GetObjectCommand }, { getSignedUrl }] = await Promise.all([s3Sdk(), import('@aws-sdk/s3-request-presigner')]);
  return getSignedUrl(client ?? (await s3()), new GetObjectCommand({ Bucket: s3Source.bucket, Key: s3Source.key }), {
    expiresIn: PRESIGN_SECONDS,
  });
}

/** A whole-disk image unless a kernel and ramdisk are given (partition images boot those). */
export function isWholeDiskImage(node: Node): boolean {
  const info = node.instance_info;
  if (info.image_type === 'partition') return false;
  if (info.image_type === 'whole-disk') return true;
  return !(present(info.kernel) && present(info.ramdisk));
}

/** Ironic `[pxe]default_ephemeral_format`. */
const DEFAULT_EPHEMERAL_FORMAT = 'ext4';

/** Ironic's AgentDeploy PARTITION_IMAGE_LABELS: what a partition image's `image_info` carries. */
const PARTITION_IMAGE_LABELS = [
  'kernel',
  'ramdisk',
  'root_gb',
  'root_mb',
  'swap_mb',
  'ephemeral_mb',
  'ephemeral_format',
  'configdrive',
  'preserve_ephemeral',
  'image_type',
  'deploy_boot_mode',
] as const;

function wholeNumber(param: string, value: unknown): number {
  const parsed = typeof value === 'number' ? value : typeof value === 'string' && /^\s*[-+]?\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(parsed)) {
    throw new InvalidParameterValue(`Invalid parameter ${param}: ${String(value)} is not an integer value.`);
  }
  return parsed;
}

/**
 * Ironic's `build_instance_info_for_deploy` for image URLs, at the start of a deploy: the image
 * type recorded, and for a partition image its layout (`parse_instance_info`): `root_gb` required,
 * `root_mb`, `swap_mb`, `ephemeral_mb` and `ephemeral_format` worked out, `preserve_ephemeral` a
 * strict boolean. Changes `node.instance_info`; raises Ironic's errors for a bad layout.
 */
export function prepareInstanceInfo(node: Node): void {
  const info = { ...node.instance_info };
  const preserve = info.preserve_ephemeral ?? false;
  const preserveEphemeral = typeof preserve === 'boolean' ? preserve : boolFromString(String(preserve));
  if (preserveEphemeral === undefined) {
    throw new InvalidParameterValue(
      `Invalid parameter preserve_ephemeral: Unrecognized value '${String(preserve)}', acceptable values are: ${ACCEPTABLE_BOOLEANS}`,
    );
  }
  if (isWholeDiskImage(node)) {
    info.image_type = 'whole-disk';
  } else {
    info.image_type = 'partition';
    if (!present(info.root_gb) || info.root_gb === 0 || info.root_gb === '0') {
      throw new MissingParameterValue(`Some parameters were missing in node's instance_info. Missing are: ['root_gb']`);
    }
    const rootGb = wholeNumber('root_gb', info.root_gb);
    const swapMb = wholeNumber('swap_mb', info.swap_mb ?? 0);
    const ephemeralGb = wholeNumber('ephemeral_gb', info.ephemeral_gb ?? 0);
    info.root_mb = 1024 * rootGb;
    info.swap_mb = swapMb;
    info.ephemeral_mb = 1024 * ephemeralGb;
    info.ephemeral_format = present(info.ephemeral_format)
      ? info.ephemeral_format
      : ephemeralGb
        ? DEFAULT_EPHEMERAL_FORMAT
        : (info.ephemeral_format ?? null);
    info.preserve_ephemeral = preserveEphemeral;
  }
  node.instance_info = info;
}

/** The `image_info` of the agent's in-band `deploy.write_image` (Ironic's AgentDeploy.write_image). */
export function imageInfo(node: Node, url: string, configdrive?: string): Record<string, unknown> {
  const info = node.instance_info;
  const source = String(info.image_source);
  const out: Record<string, unknown> = {
    id: source.split('/').pop(),
    urls: [url],
    disk_format: info.image_disk_format ?? null,
    container_format: info.image_container_format ?? null,
    stream_raw_images: true,
    node_uuid: node.uuid,
  };
  if (present(info.image_checksum)) out.checksum = info.image_checksum;
  if (present(info.image_os_hash_algo) && present(info.image_os_hash_value)) {
    out.os_hash_algo = info.image_os_hash_algo;
    out.os_hash_value = info.image_os_hash_value;
  }
  if (!isWholeDiskImage(node)) {
    for (const label of PARTITION_IMAGE_LABELS) out[label] = info[label] ?? null;
    out.deploy_boot_mode = bootModeOf(node);
    out.boot_option = 'local';
    const label = diskLabelOf(node);
    if (label !== undefined) out.disk_label = label;
  }
  if (configdrive !== undefined) out.configdrive = configdrive;
  return out;
}
