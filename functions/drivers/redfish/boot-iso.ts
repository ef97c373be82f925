/**
 * The agent ISO the `redfish-virtual-media` boot interface builds when a node gives a kernel and
 * ramdisk instead of a ready ISO (Ironic's `image_utils.prepare_deploy_iso` and
 * `images.create_esp_image_for_uefi`): the conductor downloads `<mode>_kernel`, `<mode>_ramdisk` and
 * the EFI system partition image `bootloader`, writes a UEFI-bootable ISO (El Torito, no emulation,
 * platform EFI) with a grub.cfg that boots the kernel with the ramdisk and the agent's parameters,
 * puts it in the boot ISO bucket as `<node>/<mode>.iso` (a redeploy replaces it) and hands the BMC a
 * presigned GET URL. Clean-up deletes the node's ISOs (Ironic's `cleanup_iso_image`).
 *
 * A node with `network_data` gets it on the ISO as `openstack/latest/network_data.json` (Python's
 * `json.dumps(..., indent=2)`), and the volume is then labelled `config-2` as a config drive is, so
 * the ramdisk's network tooling (glean, cloud-init) configures the NICs from it before the agent
 * looks up; without it the label is `VMEDIA_BOOT_ISO`. Both are the labels Ironic's
 * `images.create_boot_iso` gives and IPA's `copy_config_from_vmedia` searches for.
 *
 * With Ironic's `[agent]api_ca_file` (the conductor's `AGENT_API_CA_FILE`), the CA that signed the
 * API's TLS certificate goes on the ISO as `etc/ironic-python-agent/ironic.crt`, with
 * `etc/ironic-python-agent.d/ironic-tls.conf` setting IPA's `[DEFAULT]cafile` to it (Ironic's
 * `prepare_deploy_iso`): IPA's `copy_config_from_vmedia` copies both folders to /etc from a
 * volume labelled `config-2` or `VMEDIA_BOOT_ISO` when the kernel line says `boot_method=vmedia`,
 * before it reads its configuration, and then verifies the API's certificate with that CA. No
 * kernel parameter carries it (IPA's `ipa-insecure` is the only TLS one, and neither Ironic sets it).
 *
 * The kernel command line carries the agent token the boot interface pregenerated
 * (`ipa-agent-token`, as Ironic's `prepare_ramdisk` puts it), so the agent has it before it looks
 * up. NOTE: the ISO is then a secret for as long as the ramdisk runs; its URL is presigned and it
 * is deleted when the ramdisk is cleaned up.
 *
 * NOTE: memory. The downloads are streamed to files in the function's /tmp, and the ISO is
 * streamed from them to S3 (the metadata, a few sectors, is the only part built in memory), so a
 * ramdisk of any size needs /tmp space for itself, not memory for itself twice.
 *
 * A node in BIOS boot mode gets what Ironic's `create_isolinux_image_for_bios` builds instead: no
 * EFI system partition, isolinux.bin as the El Torito BIOS boot image (no emulation, 4 sectors
 * loaded, boot info table patched in), ldlinux.c32 beside it, and an isolinux.cfg with the same
 * kernel command line (`isolinux.ts`). Ironic takes isolinux from the conductor host; the stacks
 * bundle it into the conductor's code, and a conductor built without it refuses BIOS mode, saying
 * what to install or set.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { ImageCreationFailed, InvalidParameterValue, MissingParameterValue } from '#common/errors';
import { newUuid } from '#common/ids';
import { type IsoFile, isoImage } from '#common/iso9660';
import { pyJsonDumpsIndented } from '#common/pyrepr';
import type { Node } from '#objects/node';
import { bootModeOf } from '../boot-mode';
import { ISOLINUX_ISO_PATHS, type IsolinuxFiles, NO_ISOLINUX_HINT, isolinuxConfig } from './isolinux';
import { type HostRules, checkUrlHost } from '../hosts';
import { deleteArtifacts, downloadToFile, presignArtifact, putArtifact } from './artifacts';

/** Where the boot ISO goes and what it boots with (`config.ts` reads it from the environment). */
export interface BootIsoConfig {
  /** The S3 bucket the built ISOs are put in; none: kernel/ramdisk nodes cannot be booted. */
  readonly bucket?: string;
  /** The EFI system partition image used when a node names none (Ironic's `[DEFAULT]bootloader`). */
  readonly bootloader?: string;
  /** Kernel parameters (Ironic's `[redfish]kernel_append_params`), before the agent's own. */
  readonly kernelAppendParams: string;
  /** The API URL the agent calls (`ipa-api-url`); none: the ramdisk finds it itself. */
  readonly apiUrl?: string;
  /** Ironic's `[agent]api_ca_file`: the PEM the agent verifies the API's certificate with. @default none */
  readonly apiCaFile?: string;
  /** Ironic's `[DEFAULT]isolinux_bin` and `ldlinux_c32`, bundled in the conductor's code. @default none: BIOS mode refused */
  readonly isolinux?: IsolinuxFiles;
}

/** Ironic's default `[redfish]kernel_append_params`. */
export const DEFAULT_KERNEL_APPEND_PARAMS = 'nofb vga=normal';
/** Where the files go on the ISO: Ironic's layout (`EFIBOOT_LOCATION`, `[DEFAULT]grub_config_path`). */
export const ISO_PATHS = {
  kernel: 'vmlinuz',
  ramdisk: 'initrd',
  esp: 'boot/grub/efiboot.img',
  grub: 'EFI/BOOT/grub.cfg',
  networkData: 'openstack/latest/network_data.json',
  /** Ironic's `_TLS_REMOTE_FILE`, and the IPA configuration file naming it. */
  apiCa: 'etc/ironic-python-agent/ironic.crt',
  apiCaConfig: 'etc/ironic-python-agent.d/ironic-tls.conf',
} as const;

export type Mode = 'deploy' | 'rescue';

/** What the ramdisk boots from: a ready ISO, or one to build from these URLs. */
export type BootIsoPlan =
  | { readonly kind: 'ready'; readonly url: string }
  | {
      readonly kind: 'build';
      /** UEFI: El Torito for EFI with the ESP image and grub.cfg; BIOS: isolinux (Ironic builds one or the other). */
      readonly bootMode: 'uefi' | 'bios';
      readonly kernel: string;
      readonly ramdisk: string;
      /** The EFI system partition image (UEFI only). */
      readonly bootloader?: string;
      /** The pregenerated agent token the kernel command line carries (`ipa-agent-token`), set when building. */
      readonly agentToken?: string;
    };

/** A driver_info field, or its deprecated `redfish_`-prefixed name (Ironic's `get_field`). */
export function driverField(node: Node, name: string, deprecatedPrefix?: string): unknown {
  const value = node.driver_info[name];
  if (value || !deprecatedPrefix) return value;
  return node.driver_info[`${deprecatedPrefix}_${name}`] || undefined;
}

/**
 * Decide, with Ironic's messages for what is missing: the node's `<mode>_iso`, else a build from
 * `<mode>_kernel` + `<mode>_ramdisk`, with `bootloader` in UEFI mode and the bundled isolinux in
 * BIOS mode. Every URL passes the image host policy (the conductor or the BMC fetches it).
 */
export function planBootIso(node: Node, mode: Mode, config: BootIsoConfig, hosts: HostRules): BootIsoPlan {
  const iso = driverField(node, `${mode}_iso`, 'redfish');
  if (iso) {
    checkUrlHost(hosts, String(iso), `driver_info/${mode}_iso`, node.uuid);
    return { kind: 'ready', url: String(iso) };
  }
  const kernel = driverField(node, `${mode}_kernel`);
  const ramdisk = driverField(node, `${mode}_ramdisk`);
  if (!kernel || !ramdisk) {
    throw new MissingParameterValue(
      `Error validating Redfish virtual media. Some parameters were missing in node's driver_info. Missing are: ['${mode}_kernel', '${mode}_ramdisk']`,
    );
  }
  const bootMode = bootModeOf(node) === 'uefi' ? 'uefi' : 'bios';
  if (bootMode === 'bios' && config.isolinux === undefined) {
    throw new InvalidParameterValue(
      `Node ${node.uuid}: building a ${mode} ISO for BIOS boot mode needs isolinux, which this Ironless conductor was built without: ${NO_ISOLINUX_HINT}; or set driver_info/${mode}_iso to a bootable ISO, or boot the node in UEFI mode`,
    );
  }
  const bootloader = bootMode === 'uefi' ? driverField(node, 'bootloader') || config.bootloader : undefined;
  if (bootMode === 'uefi' && !bootloader) {
    throw new MissingParameterValue(
      `Node ${node.uuid}: building a UEFI ${mode} ISO needs an EFI system partition image. Some parameters were missing in node's driver_info. Missing are: ['bootloader']`,
    );
  }
  if (config.bucket === undefined) {
    throw new InvalidParameterValue(
      `Node ${node.uuid}: this deployment has no boot ISO bucket to build a ${mode} ISO in; set driver_info/${mode}_iso to a bootable ISO`,
    );
  }
  const urls: Record<string, string> = { [`${mode}_kernel`]: String(kernel), [`${mode}_ramdisk`]: String(ramdisk) };
  if (bootloader) urls.bootloader = String(bootloader);
  for (const [name, url] of Object.entries(urls)) {
    if (!/^https?:\/\//.test(url)) {
      throw new InvalidParameterValue(
        `Node ${node.uuid}: ${name} "${url}" is not supported: Ironless downloads it from http(s):// URLs only`,
      );
    }
    checkUrlHost(hosts, url, name === 'bootloader' ? 'driver_info/bootloader' : `driver_info/${name}`, node.uuid);
  }
  return {
    kind: 'build',
    bootMode,
    kernel: String(kernel),
    ramdisk: String(ramdisk),
    ...(bootloader ? { bootloader: String(bootloader) } : {}),
  };
}

/**
 * Ironic's kernel parameters: the node's `kernel_append_params` (`%default%` is the configured ones)
 * or the configured, the ISO's publisher id (`ir_pub_id`, by which the ramdisk can tell the medium
 * it booted from), then the agent's — the API URL, the pregenerated token, `boot_method=vmedia`.
 */
export function kernelParams(node: Node, config: BootIsoConfig, agentToken?: string, publisherId?: string): string {
  const own = node.driver_info.kernel_append_params;
  const base = typeof own === 'string' && own !== '' ? own.replaceAll('%default%', config.kernelAppendParams) : config.kernelAppendParams;
  const agent = [
    ...(publisherId ? [`ir_pub_id=${publisherId}`] : []),
    ...(config.apiUrl ? [`ipa-api-url=${config.apiUrl}`] : []),
    ...(agentToken ? [`ipa-agent-token=${agentToken}`] : []),
    'boot_method=vmedia',
  ];
  return [base.trim(), ...agent].filter((p) => p !== '').join(' ');
}

/** The grub.cfg that boots the kernel with the ramdisk (what Ironic's grub template yields, written our way). */
export function grubConfig(params: string): string {
  return [
    'set default=0',
    'set timeout=5',
    'set hidden_timeout_quiet=false',
    '',
    'menuentry "ironless-agent" {',
    `    linux /${ISO_PATHS.kernel} ${params} --`,
    `    initrd /${ISO_PATHS.ramdisk}`,
    '}',
    '',
  ].join('\n');
}

/** The IPA configuration that points the agent at the CA (oslo.config's `[DEFAULT]cafile`, an absolute path once copied to /etc). */
export const API_CA_CONFIG = `[DEFAULT]\ncafile = /${ISO_PATHS.apiCa}\n`;

/**
 * The files injected beside the boot files (Ironic's `inject_files` of `prepare_deploy_iso`): the
 * API's CA and the configuration naming it, when one is configured; the node's `network_data` when
 * it has any (the flat and noop network interfaces give the node's own, as Ironic's base
 * `get_node_network_data` does). Ironic skips the latter while inspecting with
 * `[inspector]force_dhcp`, whose default (off) is the only behaviour Ironless has.
 */
export function injectedFiles(node: Node, config: Pick<BootIsoConfig, 'apiCaFile'> = {}): IsoFile[] {
  const files: IsoFile[] = [];
  if (config.apiCaFile !== undefined) {
    files.push({ path: ISO_PATHS.apiCa, data: config.apiCaFile }, { path: ISO_PATHS.apiCaConfig, data: API_CA_CONFIG });
  }
  const data = node.network_data as Record<string, unknown> | null | undefined;
  if (data !== null && data !== undefined && Object.keys(data).length > 0) {
    files.push({ path: ISO_PATHS.networkData, data: pyJsonDumpsIndented(data) });
  }
  return files;
}

/** The volume label (Ironic's `images._label`): a config drive's when OpenStack metadata is on it. */
export function isoLabel(files: readonly IsoFile[]): string {
  return files.some((f) => f.path.startsWith('openstack/')) ? 'config-2' : 'VMEDIA_BOOT_ISO';
}

/** The object a node's ISO is kept under: one per node and purpose, so a rebuild replaces it. */
export function isoKey(node: Node, mode: Mode): string {
  return `${node.uuid}/${mode}.iso`;
}

/**
 * Build the ISO, put it in the bucket and return the presigned URL the BMC fetches.
 * ImageCreationFailed when a download or the upload fails (the message names which).
 */
export async function publishBootIso(
  node: Node,
  mode: Mode,
  plan: Extract<BootIsoPlan, { kind: 'build' }>,
  config: BootIsoConfig,
  hosts: HostRules,
  s3?: S3Client,
): Promise<string> {
  const bucket = config.bucket as string;
  // A new publisher id per ISO, in its volume descriptor and on its kernel line (Ironic's ir_pub_id).
  const publisherId = newUuid();
  const dir = await mkdtemp(join(tmpdir(), 'boot-iso-'));
  try {
    const [kernel, ramdisk, esp] = await Promise.all([
      download(plan.kernel, join(dir, 'kernel'), `driver_info/${mode}_kernel`, node.uuid, hosts),
      download(plan.ramdisk, join(dir, 'ramdisk'), `driver_info/${mode}_ramdisk`, node.uuid, hosts),
      plan.bootloader === undefined ? undefined : download(plan.bootloader, join(dir, 'esp'), 'driver_info/bootloader', node.uuid, hosts),
    ]);
    const params = kernelParams(node, config, plan.agentToken, publisherId);
    const boot = bootFiles(plan.bootMode, params, esp, config.isolinux);
    const files: IsoFile[] = [
      { path: ISO_PATHS.kernel, data: kernel },
      { path: ISO_PATHS.ramdisk, data: ramdisk },
      ...boot.files,
      ...injectedFiles(node, config),
    ];
    const image = isoImage(files, { volumeId: isoLabel(files), publisher: publisherId, ...boot.options });
    const key = isoKey(node, mode);
    try {
      await putArtifact(bucket, key, Readable.from(image.stream()), image.size, 'application/x-iso9660-image', s3);
    } catch (err) {
      throw new ImageCreationFailed('iso', `putting s3://${bucket}/${key} failed: ${(err as Error).message}`);
    }
    return await presignArtifact(bucket, key, s3);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The files that make the ISO boot, and the El Torito option naming its boot image: the ESP image
 * and grub.cfg for UEFI (Ironic's `create_esp_image_for_uefi`), isolinux for BIOS
 * (`create_isolinux_image_for_bios`).
 */
function bootFiles(
  bootMode: 'uefi' | 'bios',
  params: string,
  esp: IsoFile['data'] | undefined,
  isolinux: IsolinuxFiles | undefined,
): { files: IsoFile[]; options: { efiBootImage: string } | { biosBootImage: string } } {
  if (bootMode === 'uefi') {
    if (esp === undefined) throw new ImageCreationFailed('iso', 'a UEFI ISO needs an EFI system partition image');
    return {
      files: [
        { path: ISO_PATHS.esp, data: esp },
        { path: ISO_PATHS.grub, data: grubConfig(params) },
      ],
      options: { efiBootImage: ISO_PATHS.esp },
    };
  }
  if (isolinux === undefined) throw new ImageCreationFailed('iso', `a BIOS ISO needs isolinux: ${NO_ISOLINUX_HINT}`);
  return {
    files: [
      { path: ISOLINUX_ISO_PATHS.bin, data: isolinux.isolinuxBin },
      ...(isolinux.ldlinuxC32 === undefined ? [] : [{ path: ISOLINUX_ISO_PATHS.ldlinux, data: isolinux.ldlinuxC32 }]),
      { path: ISOLINUX_ISO_PATHS.cfg, data: isolinuxConfig(params, ISO_PATHS.kernel, ISO_PATHS.ramdisk, isolinux.configTemplate) },
    ],
    options: { biosBootImage: ISOLINUX_ISO_PATHS.bin },
  };
}

/** Delete the node's built ISOs (deploy and rescue); a failure is returned for the caller to log, as Ironic only logs it. */
export async function deleteBootIsos(node: Node, config: BootIsoConfig, s3?: S3Client): Promise<Error | undefined> {
  if (config.bucket === undefined) return undefined;
  return deleteArtifacts(config.bucket, [isoKey(node, 'deploy'), isoKey(node, 'rescue')], s3);
}

/** Download one of the ISO's parts; a failure is ImageCreationFailed naming the field, a refused host the policy's error. */
async function download(url: string, path: string, field: string, nodeUuid: string, hosts: HostRules) {
  try {
    return await downloadToFile(url, path, field, nodeUuid, hosts);
  } catch (err) {
    if (err instanceof InvalidParameterValue) throw err;
    throw new ImageCreationFailed('iso', `downloading ${field} from ${url} failed: ${(err as Error).message}`);
  }
}
