/**
 * The virtual machine as the agent's hardware managers see it: the in-band deploy, clean and service steps
 * they offer (IPA's generic manager's, with its priorities, plus one manager of our own offering a
 * `burnin_cpu` deploy step disabled by default, for deploy templates to enable) and what running
 * them does to the machine — mostly to its disk, where `write_image` puts a verified download.
 */
import { createHash } from 'node:crypto';
import type { AgentFaults, VirtualMachine } from '../machine';
import type { Params } from './commands';
import { AgentError, errors } from './errors';
import { downloadImage, type ImageInfo } from './image';
import { fetchConfigdrive, inspectConfigdrive } from './configdrive';
import { partitionLayout } from './partitions';

export interface Step {
  readonly step: string;
  readonly priority: number;
  readonly interface: string;
  readonly reboot_requested: boolean;
  readonly abortable?: boolean;
  readonly argsinfo?: Record<string, { description: string; required: boolean }>;
}

export type StepKind = 'deploy' | 'clean' | 'service';

const cleanStep = (step: string, priority: number, iface = 'deploy'): Step => ({
  step,
  priority,
  interface: iface,
  reboot_requested: false,
  abortable: true,
});
const deployStep = (step: string, iface = 'deploy', argsinfo?: Step['argsinfo']): Step => ({
  step,
  priority: 0,
  interface: iface,
  reboot_requested: false,
  ...(argsinfo ? { argsinfo } : {}),
});

/** IPA 9.4's generic hardware manager's steps, priorities as it reports them. */
const GENERIC = {
  name: 'generic_hardware_manager',
  version: '1.2',
  clean: [
    cleanStep('erase_devices', 10),
    cleanStep('erase_devices_metadata', 99),
    cleanStep('erase_devices_express', 0),
    cleanStep('erase_pstore', 0),
    cleanStep('delete_configuration', 0, 'raid'),
    cleanStep('create_configuration', 0, 'raid'),
    cleanStep('burnin_cpu', 0),
    cleanStep('burnin_disk', 0),
    cleanStep('burnin_memory', 0),
    cleanStep('burnin_network', 0),
  ],
  deploy: [
    deployStep('erase_devices_metadata'),
    deployStep('apply_configuration', 'raid', {
      raid_config: { description: 'The RAID configuration to apply.', required: true },
      delete_existing: {
        description:
          "Setting this to 'True' indicates to delete existing RAID configuration prior to creating the new configuration. Default value is 'True'.",
        required: false,
      },
    }),
    deployStep('write_image'),
    deployStep('inject_files', 'deploy', {
      files: { description: 'Files to inject, a list of file structures.', required: false },
      verify_ca: { description: 'Whether to verify TLS certificates. Global agent options are used by default.', required: false },
    }),
  ],
  // IPA's generic get_service_steps: RAID and burn-in (no burnin_disk: it would destroy the instance's data).
  service: [
    cleanStep('delete_configuration', 0, 'raid'),
    cleanStep('create_configuration', 0, 'raid'),
    cleanStep('burnin_cpu', 0),
    cleanStep('burnin_memory', 0),
    cleanStep('burnin_network', 0),
  ],
};

/**
 * The virtual machine's own manager: deploy steps off unless a template asks — a CPU burn-in, and
 * a firmware update that asks for a reboot (Ironic reboots the ramdisk before the next step).
 */
const VIRTUAL = {
  name: 'ironless_virtual_hardware_manager',
  version: '1.0',
  clean: [] as Step[],
  service: [] as Step[],
  deploy: [
    deployStep('burnin_cpu', 'deploy', {
      duration_ms: { description: 'How long the virtual burn-in runs, in milliseconds (default 200).', required: false },
    }),
    {
      ...deployStep('update_firmware', 'deploy', {
        duration_ms: { description: 'How long the virtual update runs, in milliseconds (default 200).', required: false },
      }),
      reboot_requested: true,
    },
  ],
};

export interface HardwareOptions {
  /** How long the steps that do no I/O (erase, burn-in, RAID) take; default 20 ms. */
  readonly stepDurationMs?: number;
  /** Images up to this size are kept on the virtual disk byte for byte (default 1 MiB). */
  readonly keepBytes?: number;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason as Error)), { once: true });
  });

export class VirtualHardware {
  /** What prepare_image recorded; null until it ran (get_partition_uuids warns then, as IPA). */
  partitionUuids: Record<string, unknown> | null = null;
  cachedImageId: string | null = null;
  /** RAID configuration applied by a step, if any. */
  raidConfig: unknown = null;

  constructor(
    readonly machine: VirtualMachine,
    private readonly faults: () => AgentFaults,
    /** Versions differ when the agent booted with the version-change fault. */
    private readonly versionTag: string | undefined,
    private readonly options: HardwareOptions = {},
  ) {}

  get device(): string {
    return `/dev/${this.machine.spec.disks[0]?.name ?? 'sda'}`;
  }

  /** `hardware.get_current_versions()`: {manager name: version}. */
  versions(): Record<string, string> {
    const tag = this.versionTag ? `+${this.versionTag}` : '';
    return { [GENERIC.name]: GENERIC.version + tag, [VIRTUAL.name]: VIRTUAL.version + tag };
  }

  /** The steps of a kind, deduplicated (every step name once) as IPA's `deduplicate_steps`. */
  steps(kind: StepKind): Record<string, Step[]> {
    return { GenericHardwareManager: GENERIC[kind], VirtualHardwareManager: VIRTUAL[kind] };
  }

  /** IPA's `check_versions`: steps from an agent of other versions must not run. */
  checkVersions(given: unknown): void {
    if (given === undefined || given === null) return;
    const current = this.versions();
    const same =
      typeof given === 'object' &&
      Object.keys(given).length === Object.keys(current).length &&
      Object.entries(current).every(([k, v]) => (given as Record<string, unknown>)[k] === v);
    if (!same) throw errors.versionMismatch(current, given);
  }

  /** Run a step by name (`dispatch_to_managers`). */
  async run(kind: StepKind, name: string, args: Params, signal: AbortSignal): Promise<unknown> {
    const known = [...GENERIC[kind], ...VIRTUAL[kind]].some((s) => s.step === name) || name === 'write_image';
    if (!known)
      throw new AgentError(
        'No HardwareManager found to handle method',
        `Could not find method: ${name}`,
        500,
        'HardwareManagerMethodNotFound',
      );
    if (this.faults().failStep === name) {
      const details = `Injected failure of step ${name} on ${this.machine.id}`;
      throw kind === 'deploy' ? errors.deployment(details) : kind === 'service' ? errors.servicing(details) : errors.cleaning(details);
    }
    const pause = this.options.stepDurationMs ?? 20;
    switch (name) {
      case 'write_image': {
        // IPA runs standby.prepare_image and waits for it: the step's result is that command's.
        const message = await this.prepareImage(
          args.image_info as ImageInfo,
          (args.configdrive as string | undefined) ?? undefined,
          signal,
        );
        return { result: `prepare_image: ${message}` };
      }
      case 'erase_devices':
        await sleep(pause, signal);
        this.machine.disk = undefined;
        return { [this.device]: null };
      case 'erase_devices_metadata':
      case 'erase_devices_express':
        await sleep(pause, signal);
        this.machine.disk = undefined;
        return null;
      case 'burnin_cpu':
      case 'update_firmware':
        await sleep(typeof args.duration_ms === 'number' ? args.duration_ms : Math.max(pause, 200), signal);
        return null;
      case 'apply_configuration':
        await sleep(pause, signal);
        this.raidConfig = args.raid_config ?? null;
        return this.raidConfig;
      case 'create_configuration':
        await sleep(pause, signal);
        this.raidConfig = (args.node as Record<string, unknown> | undefined)?.target_raid_config ?? null;
        return this.raidConfig;
      case 'delete_configuration':
        this.raidConfig = null;
        return null;
      default:
        await sleep(pause, signal);
        return null;
    }
  }

  /**
   * standby.prepare_image's work: download, verify, write to the disk (partitioned for a partition
   * image), then the config drive to its partition; its result message.
   */
  async prepareImage(info: ImageInfo, configdrive: string | undefined, signal: AbortSignal): Promise<string> {
    const hasConfigdrive = typeof configdrive === 'string' && configdrive !== '';
    const layout =
      info.image_type === 'partition' ? partitionLayout(info, this.device, `${this.machine.uuid}:${info.id}`, hasConfigdrive) : undefined;
    if (typeof layout === 'string') throw errors.commandExecution(layout);
    if (this.cachedImageId !== info.id) {
      const disk = this.machine.spec.disks[0];
      const got = await downloadImage(info, {
        signal,
        corrupt: this.faults().badChecksum === true,
        keepBytes: this.options.keepBytes,
        maxBytes: disk?.sizeBytes,
        device: this.device,
      });
      this.machine.disk = {
        device: this.device,
        imageId: info.id,
        url: got.url,
        size: got.size,
        sha256: got.sha256,
        ...(got.content ? { content: got.content } : {}),
        at: new Date().toISOString(),
        ...(layout ? { partitionTable: layout.label, partitions: layout.partitions } : {}),
      };
      this.cachedImageId = info.id;
    }
    const written = this.machine.disk;
    if (written !== undefined) {
      const { configdrive: _previous, ...rest } = written;
      const node = typeof info.node_uuid === 'string' ? info.node_uuid : this.machine.uuid;
      this.machine.disk = hasConfigdrive
        ? { ...rest, configdrive: inspectConfigdrive(await fetchConfigdrive(configdrive, node, signal)) }
        : rest;
    }
    if (layout) {
      this.partitionUuids = layout.uuids;
      return layout.message;
    }
    // A whole-disk image: the root "uuid" is the disk identifier, as IPA reads it with hexdump.
    this.partitionUuids = { 'root uuid': this.diskId() };
    return `image (${info.id}) written to device ${this.device} root_uuid=${this.diskId()}`;
  }

  /**
   * `image.install_bootloader`: on a partition image the root UUID must name its root partition
   * (IPA finds no partition to install GRUB on otherwise); recorded on the disk.
   */
  installBootloader(params: Params): null {
    const disk = this.machine.disk;
    if (disk === undefined) throw errors.commandExecution(`No image written to ${this.device}: nothing to install a boot loader for`);
    const rootUuid = typeof params.root_uuid === 'string' ? params.root_uuid : null;
    if (disk.partitions !== undefined && !disk.partitions.some((p) => p.role === 'root' && p.uuid === rootUuid)) {
      throw errors.commandExecution(
        `Installing GRUB2 boot loader to device ${this.device} failed with: no partition with UUID ${String(rootUuid)}`,
      );
    }
    const efi = typeof params.efi_system_part_uuid === 'string' ? params.efi_system_part_uuid : null;
    const mode = typeof params.target_boot_mode === 'string' ? params.target_boot_mode : null;
    this.machine.disk = { ...disk, bootloader: { rootUuid, efiSystemPartUuid: efi, bootMode: mode } };
    return null;
  }

  private diskId(): string {
    return `0x${createHash('sha256')
      .update(`${this.machine.uuid}:${this.machine.disk?.sha256 ?? ''}`)
      .digest('hex')
      .slice(0, 8)}`;
  }
}
