/**
 * What the fleet's image server offers as the virtual agent: a ready ISO (`ironless-agent.iso`,
 * recognised by its URL) and, for a boot interface that builds its own ISO, the kernel and ramdisk
 * beside it plus an EFI system partition image (`driver_info.bootloader`). The bytes are markers:
 * the virtual machines run nothing from them; a machine boots the agent when the ISO it is given
 * carries this ramdisk (`agent/boot-media.ts`).
 */
import { createHash } from 'node:crypto';

export const AGENT_ISO_PATH = '/images/ironless-agent.iso';
export const AGENT_KERNEL_PATH = '/images/ironless-agent.kernel';
export const AGENT_RAMDISK_PATH = '/images/ironless-agent.ramdisk';
export const AGENT_ESP_PATH = '/images/ironless-esp.img';

/** Its content: a marker, since the virtual machines boot nothing real from it. */
const AGENT_ISO = Buffer.from('Ironless virtual agent ISO: booting it starts the virtual ramdisk agent, if one is plugged in.\n');
const AGENT_KERNEL = Buffer.from('Ironless virtual agent kernel: a marker, nothing runs it.\n');
/** Some hundred KiB, so the ramdisk spans many sectors of an ISO and a byte-exact check means something. */
export const AGENT_RAMDISK = Buffer.concat(
  Array.from({ length: 3200 }, (_, i) => createHash('sha256').update(`ironless-agent-ramdisk-${i}`).digest()),
);
const AGENT_ESP = Buffer.from('Ironless virtual EFI system partition: a marker where GRUB would be.\n');

const IMAGES: ReadonlyMap<string, Buffer> = new Map([
  [AGENT_ISO_PATH, AGENT_ISO],
  [AGENT_KERNEL_PATH, AGENT_KERNEL],
  [AGENT_RAMDISK_PATH, AGENT_RAMDISK],
  [AGENT_ESP_PATH, AGENT_ESP],
]);

/** The image served at a path, if any. */
export function agentImage(path: string): Buffer | undefined {
  return IMAGES.get(path);
}
