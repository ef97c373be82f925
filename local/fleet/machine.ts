/**
 * A virtual bare-metal machine as its BMC sees it: power, the boot source override, virtual media,
 * secure boot, and a fixed inventory. It knows nothing of HTTP (see `redfish.ts`, `server.ts`).
 *
 * Powering on "boots" it: the machine works out what it boots from (override, else its disk) and
 * announces it with a `powerOn` event and to its guest factory, so something can run "on" it — the
 * virtual ramdisk agent hooks in there, started when a machine boots the agent ISO from virtual CD
 * and stopped when the machine powers off or resets.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { IndicatorLed } from './redfish-console';
import type { AgentFaults, Faults } from './machine-faults';

export type { AgentFaults, Faults } from './machine-faults';

export type PowerState = 'On' | 'Off' | 'PoweringOn' | 'PoweringOff';
export type BootTarget = 'None' | 'Pxe' | 'Hdd' | 'Cd' | 'BiosSetup' | 'UefiHttp';
export type BootEnabled = 'Disabled' | 'Once' | 'Continuous';
export type BootMode = 'UEFI' | 'Legacy';
export type MediaSlot = 'Cd' | 'Floppy';

export const BOOT_TARGETS: readonly BootTarget[] = ['None', 'Pxe', 'Hdd', 'Cd', 'BiosSetup', 'UefiHttp'];
export const RESET_TYPES = ['On', 'ForceOff', 'GracefulShutdown', 'GracefulRestart', 'ForceRestart', 'PowerCycle', 'Nmi'] as const;
export type ResetType = (typeof RESET_TYPES)[number];

export interface Processor {
  readonly model: string;
  /** Redfish ProcessorArchitecture: x86, ARM, … */
  readonly arch: string;
  readonly cores: number;
  readonly threads: number;
}

export interface Disk {
  readonly name: string;
  readonly sizeBytes: number;
}

export interface Nic {
  readonly id: string;
  /** Lower case, colon separated. */
  readonly mac: string;
  readonly enabled: boolean;
  readonly speedMbps: number;
}

export interface MachineSpec {
  /** The system's Id in its Redfish path (`/redfish/v1/Systems/<id>`). */
  readonly id: string;
  readonly uuid?: string;
  readonly username: string;
  readonly password: string;
  readonly processors: readonly Processor[];
  readonly memoryGiB: number;
  readonly disks: readonly Disk[];
  readonly nics: readonly Nic[];
  readonly bootMode?: BootMode;
  /** How long a power transition takes (PoweringOn/PoweringOff in between); 0 = at once. */
  readonly powerDelayMs?: number;
  /** Whether the BMC accepts BootSourceOverrideEnabled=Continuous (some refuse it). Default true. */
  readonly continuousBootOverride?: boolean;
  /** Whether the running OS answers ACPI (graceful shutdown/restart). Default true. */
  readonly acpi?: boolean;
}

/** What the instance finds in its config drive partition. */
export interface ConfigdriveOnDisk {
  readonly sizeBytes: number;
  /** The ISO 9660 volume label (`config-2` for cloud-init to find it), null when it is no ISO image. */
  readonly label: string | null;
  /** Its files by path, as text. */
  readonly files: Readonly<Record<string, string>>;
  /** Why its files could not be read, when they could not. */
  readonly unreadable?: string;
}

/** What the ramdisk agent wrote to the machine's disk (the bytes themselves only when small). */
export interface DiskImage {
  readonly device: string;
  readonly imageId: string;
  readonly url: string;
  readonly size: number;
  /** sha256 of what was written, whatever checksum the image was verified with. */
  readonly sha256: string;
  readonly content?: Buffer;
  /** The config drive partition written with the image, if one was given. */
  readonly configdrive?: ConfigdriveOnDisk;
  readonly at: string;
  /** A partition image's partition table (`gpt`/`msdos`) and partitions; none for a whole-disk image. */
  readonly partitionTable?: string;
  readonly partitions?: readonly { number: number; role: string; device: string; sizeMb: number; uuid: string }[];
  /** What `image.install_bootloader` installed, if it ran since the image was written. */
  readonly bootloader?: { readonly rootUuid: string | null; readonly efiSystemPartUuid: string | null; readonly bootMode: string | null };
}

export interface BootEvent {
  readonly machine: VirtualMachine;
  /** What it boots from. */
  readonly device: BootTarget;
  /** The image in the virtual CD when it boots from Cd. */
  readonly image: string | undefined;
  readonly mode: BootMode;
  /** Whether the boot source override chose the device (else the machine's own boot order). */
  readonly override: boolean;
  readonly at: string;
}

/** Something running on a powered-on machine (e.g. a virtual ramdisk agent). */
export interface Guest {
  stop(): void | Promise<void>;
}

/** Decides what runs after a boot; undefined = nothing the fleet needs to stop later. */
export type GuestFactory = (event: BootEvent) => Guest | undefined | Promise<Guest | undefined>;

export interface MediaState {
  inserted: boolean;
  image: string | null;
  writeProtected: boolean;
}

interface MachineEvents {
  powerOn: [BootEvent];
  powerOff: [{ machine: VirtualMachine; graceful: boolean }];
  nmi: [{ machine: VirtualMachine }];
  agentFaults: [AgentFaults];
}

/** A refused change: the status and Redfish message the BMC answers with. */
export class MachineRequestError extends Error {
  constructor(
    readonly status: number,
    readonly messageId: string,
    message: string,
  ) {
    super(message);
  }
}

const HISTORY = 20;

/** One request a virtual BMC received: when it arrived, and what it asked (a reset's type, if one). */
export interface BmcRequest {
  readonly at: number;
  readonly method: string;
  readonly path: string;
  readonly resetType?: string;
}

export class VirtualMachine extends EventEmitter<MachineEvents> {
  readonly id: string;
  readonly uuid: string;
  powerState: PowerState = 'Off';
  boot: { target: BootTarget; enabled: BootEnabled; mode: BootMode };
  secureBoot = false;
  readonly media: Record<MediaSlot, MediaState> = {
    Cd: { inserted: false, image: null, writeProtected: true },
    Floppy: { inserted: false, image: null, writeProtected: true },
  };
  faults: Faults = {};
  /** Indicator LEDs of the system, its chassis and its drives by index (Redfish IndicatorLED; a drive's is Off until set). */
  readonly leds: { system: IndicatorLed; chassis: IndicatorLed; drives: Record<number, IndicatorLed> } = {
    system: 'Off',
    chassis: 'Off',
    drives: {},
  };
  /** How many times its graphical console page was opened. */
  consoleViews = 0;
  /**
   * The Redfish requests its BMC received (newest last, the latest 1,000), as a BMC's audit log:
   * tests read what the conductor did to the machine, and when.
   */
  readonly requests: BmcRequest[] = [];
  /** The latest boots, newest last. */
  readonly boots: BootEvent[] = [];
  /** The latest reset types asked for, newest last. */
  readonly resets: ResetType[] = [];
  guestFactory: GuestFactory | undefined;
  agentFaults: AgentFaults = {};
  /** The image on the disk, once an agent wrote one; undefined after an erase. */
  disk: DiskImage | undefined;

  private guest: Guest | undefined;
  private pending: NodeJS.Timeout | undefined;
  /** A boot mode the firmware applies at its next boot (`bootModeApply: 'reboot'`). */
  private pendingBootMode: BootMode | undefined;
  private bootModeTimer: NodeJS.Timeout | undefined;
  /** A secure boot state the firmware applies at its next boot (`secureBootApply: 'reboot'`). */
  private pendingSecureBoot: boolean | undefined;
  /** Agent boots left before `versionAfterReboot` takes effect. */
  private bootsBeforeVersionChange = 0;

  constructor(readonly spec: MachineSpec) {
    super();
    this.id = spec.id;
    this.uuid = spec.uuid ?? randomUUID();
    this.boot = { target: 'None', enabled: 'Disabled', mode: spec.bootMode ?? 'UEFI' };
  }

  /** What runs on the machine now (e.g. its ramdisk agent), if anything. */
  get runningGuest(): Guest | undefined {
    return this.guest;
  }

  /** A Redfish ComputerSystem.Reset. */
  reset(type: ResetType): void {
    this.resets.push(type);
    if (this.resets.length > HISTORY) this.resets.shift();
    if (this.faults.powerStuck) return;
    const on = this.powerState === 'On' || this.powerState === 'PoweringOn';
    const acpi = this.spec.acpi !== false;
    switch (type) {
      case 'On':
        if (!on) this.transition('On');
        return;
      case 'ForceOff':
        if (on) this.transition('Off');
        return;
      case 'GracefulShutdown':
        if (on && acpi) this.transition('Off', true);
        return;
      case 'GracefulRestart':
        if (on && acpi) this.restart(true);
        return;
      case 'ForceRestart':
      case 'PowerCycle':
        this.restart(false);
        return;
      case 'Nmi':
        if (on) this.emit('nmi', { machine: this });
        return;
    }
  }

  /** Change the boot source override; refuses what this BMC does not support. */
  setBoot(patch: { target?: unknown; enabled?: unknown; mode?: unknown }): void {
    if (patch.target !== undefined && !BOOT_TARGETS.includes(patch.target as BootTarget)) {
      throw new MachineRequestError(
        400,
        'Base.1.8.PropertyValueNotInList',
        `The value ${String(patch.target)} for BootSourceOverrideTarget is not allowed`,
      );
    }
    const allowedEnabled = this.spec.continuousBootOverride === false ? ['Disabled', 'Once'] : ['Disabled', 'Once', 'Continuous'];
    if (patch.enabled !== undefined && !allowedEnabled.includes(patch.enabled as string)) {
      throw new MachineRequestError(
        400,
        'Base.1.8.PropertyValueNotInList',
        `The value ${String(patch.enabled)} for BootSourceOverrideEnabled is not allowed`,
      );
    }
    if (patch.mode !== undefined && patch.mode !== 'UEFI' && patch.mode !== 'Legacy') {
      throw new MachineRequestError(
        400,
        'Base.1.8.PropertyValueNotInList',
        `The value ${String(patch.mode)} for BootSourceOverrideMode is not allowed`,
      );
    }
    if (patch.mode === 'Legacy' && this.secureBoot) {
      throw new MachineRequestError(400, 'Base.1.8.ActionNotSupported', 'Legacy boot is not possible while secure boot is enabled');
    }
    const rejections = this.faults.postRejectsBootOverride ?? 0;
    if (rejections > 0 && (patch.target !== undefined || patch.enabled !== undefined)) {
      this.faults = { ...this.faults, postRejectsBootOverride: rejections - 1 };
      throw new MachineRequestError(
        400,
        'iLO.2.14.UnableToModifyDuringSystemPOST',
        'The value for the property cannot be changed while the server is in POST. Retry the operation once POST is complete.',
      );
    }
    // A target alone leaves BootSourceOverrideEnabled as it is: the client must say when it changes.
    if (patch.target !== undefined) this.boot.target = patch.target as BootTarget;
    if (patch.enabled !== undefined) this.boot.enabled = patch.enabled as BootEnabled;
    if (patch.mode !== undefined) this.requestBootMode(patch.mode as BootMode);
  }

  /**
   * A new boot mode: reported at once, or as the `bootModeApply`/`bootModeDelayMs` faults say (a
   * mode asked for again replaces one still pending; the mode it already reports cancels it).
   */
  private requestBootMode(mode: BootMode): void {
    clearTimeout(this.bootModeTimer);
    this.pendingBootMode = undefined;
    if (mode === this.boot.mode || this.faults.bootModeApply === 'never') return;
    if (this.faults.bootModeApply === 'reboot') {
      this.pendingBootMode = mode;
      return;
    }
    const delay = this.faults.bootModeDelayMs ?? 0;
    if (delay <= 0) this.boot.mode = mode;
    else this.bootModeTimer = setTimeout(() => (this.boot.mode = mode), delay);
  }

  setSecureBoot(enabled: unknown): void {
    if (typeof enabled !== 'boolean')
      throw new MachineRequestError(400, 'Base.1.8.PropertyValueTypeError', 'SecureBootEnable must be a boolean');
    if (enabled && this.boot.mode !== 'UEFI') throw new MachineRequestError(400, 'Base.1.8.ActionNotSupported', 'Secure boot needs UEFI');
    // As a new boot mode (`secureBootApply`): a state asked for again replaces one still pending.
    this.pendingSecureBoot = undefined;
    if (enabled === this.secureBoot || this.faults.secureBootApply === 'never') return;
    if (this.faults.secureBootApply === 'reboot') this.pendingSecureBoot = enabled;
    else this.secureBoot = enabled;
  }

  insertMedia(slot: MediaSlot, image: unknown, writeProtected: unknown = true): void {
    if (typeof image !== 'string' || image === '')
      throw new MachineRequestError(400, 'Base.1.8.ActionParameterMissing', 'InsertMedia needs an Image');
    if (this.faults.mediaUnreachable)
      throw new MachineRequestError(400, 'Base.1.8.ResourceAtUriUnauthorized', `The image ${image} could not be fetched by the BMC`);
    this.media[slot] = { inserted: true, image, writeProtected: writeProtected !== false };
  }

  ejectMedia(slot: MediaSlot): void {
    this.media[slot] = { inserted: false, image: null, writeProtected: true };
  }

  setFaults(faults: Faults): void {
    this.faults = { ...faults };
  }

  clearFaults(): void {
    this.faults = {};
  }

  /** Set the agent's faults; a running agent sees them at once (`agentFaults` event). */
  setAgentFaults(faults: AgentFaults): void {
    if (faults.versionAfterReboot !== this.agentFaults.versionAfterReboot) this.bootsBeforeVersionChange = this.guest ? 0 : 1;
    this.agentFaults = { ...faults };
    this.emit('agentFaults', this.agentFaults);
  }

  /** The agent_version an agent booting now reports instead of its own (`versionAfterReboot`), if any. */
  agentVersionAtBoot(): string | undefined {
    const changed = this.agentFaults.versionAfterReboot;
    if (changed === undefined) return undefined;
    if (this.bootsBeforeVersionChange > 0) {
      this.bootsBeforeVersionChange--;
      return undefined;
    }
    return changed;
  }

  /**
   * The running OS powers the machine off or reboots it (IPA's `poweroff`/`reboot`): not a BMC
   * request, so neither recorded among `resets` nor stopped by BMC faults.
   */
  osShutdown(reboot: boolean): void {
    if (this.powerState === 'Off') return;
    if (reboot) this.restart(true);
    else this.transition('Off', true);
  }

  /** Stop timers and whatever runs on the machine (the fleet is shutting down). */
  async dispose(): Promise<void> {
    clearTimeout(this.pending);
    clearTimeout(this.bootModeTimer);
    await this.stopGuest();
  }

  private restart(graceful: boolean): void {
    if (this.powerState !== 'Off') this.settle('Off', graceful);
    this.transition('On');
  }

  private transition(to: 'On' | 'Off', graceful = false): void {
    clearTimeout(this.pending);
    const delay = this.spec.powerDelayMs ?? 0;
    if (delay <= 0) {
      this.settle(to, graceful);
      return;
    }
    this.powerState = to === 'On' ? 'PoweringOn' : 'PoweringOff';
    this.pending = setTimeout(() => this.settle(to, graceful), delay);
  }

  private settle(to: 'On' | 'Off', graceful: boolean): void {
    if (to === 'Off') {
      this.powerState = 'Off';
      void this.stopGuest();
      this.emit('powerOff', { machine: this, graceful });
      return;
    }
    this.powerState = 'On';
    if (this.pendingBootMode !== undefined) this.boot.mode = this.pendingBootMode;
    if (this.pendingSecureBoot !== undefined) this.secureBoot = this.pendingSecureBoot;
    this.pendingBootMode = undefined;
    this.pendingSecureBoot = undefined;
    const event = this.bootEvent();
    this.boots.push(event);
    if (this.boots.length > HISTORY) this.boots.shift();
    this.emit('powerOn', event);
    void this.startGuest(event);
  }

  /** What the firmware boots: the override when on (a one-time one is then spent), else the disk. */
  private bootEvent(): BootEvent {
    const { target, enabled, mode } = this.boot;
    const override = enabled !== 'Disabled' && target !== 'None';
    const device: BootTarget = override ? target : 'Hdd';
    if (override && enabled === 'Once') this.boot = { ...this.boot, target: 'None', enabled: 'Disabled' };
    const image = device === 'Cd' && this.media.Cd.inserted ? (this.media.Cd.image ?? undefined) : undefined;
    return { machine: this, device, image, mode, override, at: new Date().toISOString() };
  }

  private async startGuest(event: BootEvent): Promise<void> {
    if (!this.guestFactory) return;
    try {
      const guest = (await this.guestFactory(event)) ?? undefined;
      // The firmware may take a while (fetching an ISO): a machine switched off or rebooted
      // meanwhile runs nothing of this boot, and a later boot's guest stays the machine's.
      if (this.powerState !== 'On' || this.boots[this.boots.length - 1] !== event) {
        await guest?.stop();
        return;
      }
      this.guest = guest;
    } catch {
      // A guest that fails to start is a machine that booted into nothing useful.
      if (this.boots[this.boots.length - 1] === event) this.guest = undefined;
    }
  }

  private async stopGuest(): Promise<void> {
    const guest = this.guest;
    this.guest = undefined;
    try {
      await guest?.stop();
    } catch {
      // The machine is off either way.
    }
  }
}
