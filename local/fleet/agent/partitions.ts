/**
 * A partition image on the virtual disk, laid out as IPA's `work_on_disk` (ironic-lib's
 * `make_partitions`) lays it out: an EFI system partition first in UEFI mode (a BIOS boot
 * partition for GPT in BIOS mode), then ephemeral, swap and config drive partitions when asked
 * for, the root partition last, holding the image. The UUIDs are derived from the machine and the
 * image, so the same deploy gives the same UUIDs, and are what `get_partition_uuids` reports.
 */
import { createHash } from 'node:crypto';
import type { ImageInfo } from './image';

/** ironic-lib `[disk_utils]efi_system_partition_size` and `bios_boot_partition_size` (MiB). */
const EFI_SYSTEM_PARTITION_MB = 550;
const BIOS_BOOT_PARTITION_MB = 1;
/** IPA's config drive partition, at most 64 MiB. */
const CONFIGDRIVE_MB = 64;

export interface Partition {
  readonly number: number;
  /** What it holds: `efi system partition`, `bios boot partition`, `ephemeral`, `swap`, `configdrive`, `root`. */
  readonly role: string;
  readonly device: string;
  readonly sizeMb: number;
  readonly uuid: string;
}

export interface PartitionLayout {
  /** The partition table: `gpt` or `msdos`. */
  readonly label: string;
  readonly partitions: readonly Partition[];
  /** `standby.get_partition_uuids`' answer after this deploy. */
  readonly uuids: Record<string, unknown>;
  /** prepare_image's result message (IPA's `_message_format`). */
  readonly message: string;
}

function uuidFrom(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function megabytes(value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : 0;
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

/**
 * The layout of `info` (a partition image's image_info) on `device`, or an error message naming
 * what is missing, as IPA refuses a partition image without a root size.
 */
export function partitionLayout(info: ImageInfo, device: string, seed: string, withConfigdrive: boolean): PartitionLayout | string {
  const rootMb = megabytes(info.root_mb);
  if (rootMb === 0) return `Invalid root_mb for partition image ${info.id}: ${String(info.root_mb)}`;
  const uefi = info.deploy_boot_mode === 'uefi';
  const label = typeof info.disk_label === 'string' ? info.disk_label : uefi ? 'gpt' : 'msdos';
  const wanted: [string, number][] = [];
  if (uefi) wanted.push(['efi system partition', EFI_SYSTEM_PARTITION_MB]);
  else if (label === 'gpt') wanted.push(['bios boot partition', BIOS_BOOT_PARTITION_MB]);
  if (megabytes(info.ephemeral_mb) > 0) wanted.push(['ephemeral', megabytes(info.ephemeral_mb)]);
  if (megabytes(info.swap_mb) > 0) wanted.push(['swap', megabytes(info.swap_mb)]);
  if (withConfigdrive) wanted.push(['configdrive', CONFIGDRIVE_MB]);
  wanted.push(['root', rootMb]);
  const partitions = wanted.map(([role, sizeMb], i) => ({
    number: i + 1,
    role,
    device: `${device}${i + 1}`,
    sizeMb,
    uuid: uuidFrom(`${seed}:${role}`),
  }));
  const byRole = (role: string) => partitions.find((p) => p.role === role);
  const root = byRole('root') as Partition;
  const efi = byRole('efi system partition');
  const uuids: Record<string, unknown> = {
    'root uuid': root.uuid,
    partitions: Object.fromEntries(partitions.map((p) => [p.role, p.device])),
    ...(efi ? { 'efi system partition uuid': efi.uuid } : {}),
  };
  const written = `image (${info.id}) written to device ${device} `;
  const message =
    uefi && efi ? `${written}root_uuid=${root.uuid} efi_system_partition_uuid=${efi.uuid}` : `${written}root_uuid=${root.uuid}`;
  return { label, partitions, uuids, message };
}
