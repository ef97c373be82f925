/**
 * Hardware interfaces and hardware types, after Ironic's `ironic/drivers/base.py`.
 *
 * A hardware type (fake-hardware, redfish) names, per interface type, the implementations it
 * supports, first = default. A node's `*_interface` fields pick one implementation of each type.
 * Implementations are stateless objects; everything about a node travels in the `Task`.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { BiosSettingValues } from '#objects/bios-setting';
import type { FirmwareComponentReading } from '#objects/firmware-component';
import type { InterfaceType, Node } from '#objects/node';
import type { Port } from '#objects/port';
import type { Portgroup } from '#objects/portgroup';
import type { AgentCommand } from './agent-client';
import type { TbnConfig } from './tbn/rules';

/** What a driver call gets: the locked node and a logger. The caller saves the node afterwards. */
export interface Task {
  readonly node: Node;
  readonly log: Logger;
  /**
   * Write the node as it is now, keeping the lock (Ironic's `node.save()` inside a task), where a
   * change must be stored before what follows (the agent token wiped before a reboot). Optional:
   * callers that save right after the driver call need not give it.
   */
  readonly persist?: () => Promise<void>;
  /** The node's cached BIOS settings, which the bios interface replaces; given where bios work runs (steps, verify, cleaning). */
  readonly biosSettings?: NodeBiosSettings;
  /** The node's cached firmware components, which the firmware interface records; given where firmware work runs. */
  readonly firmwareComponents?: NodeFirmwareComponents;
}

/** The node's cached firmware components as the firmware interface records them (the conductor gives the store). */
export interface NodeFirmwareComponents {
  /** Record the versions read from the hardware (Ironic's sync_firmware_components, then create/save). */
  record(readings: readonly FirmwareComponentReading[]): Promise<void>;
}

/** The node's cached BIOS settings as the bios interface writes them (the conductor gives the store). */
export interface NodeBiosSettings {
  /** Make the node's stored settings exactly these (Ironic's sync_node_setting, then create/save/delete). */
  replace(settings: readonly BiosSettingValues[]): Promise<void>;
}

/** A step as stored on a node (`driver_internal_info.deploy_steps`) and shown by the API. */
export interface Step {
  readonly interface: InterfaceType;
  readonly step: string;
  readonly priority: number;
  readonly args: Record<string, unknown>;
  /** Run by the agent: continues asynchronously until the agent reports the command finished. */
  readonly async?: boolean;
  /** An in-band step of the ramdisk agent (executed with `execute_<flow>_step`). */
  readonly inband?: boolean;
  /** Reboot the node (back into the ramdisk) once the step has finished. */
  readonly reboot_requested?: boolean;
  /**
   * Whether `abort` may stop the flow while this step runs; when not, the flow is aborted once the
   * step has finished (Ironic's `abortable`; absent counts as not abortable, as Ironic reads it).
   */
  readonly abortable?: boolean;
}

/** What a step's implementation returns: done, or wait for the agent (async). */
export type StepOutcome = { readonly wait: false } | { readonly wait: true };

export interface StepDefinition {
  readonly step: string;
  /** Default priority; 0 = not run unless asked for. */
  readonly priority: number;
  readonly argsinfo?: Readonly<Record<string, { readonly description: string; readonly required?: boolean }>>;
  /** Finishes asynchronously (the steps machine waits for agent heartbeats): run by RunStepAsync. */
  readonly async?: boolean;
  /**
   * For an async step that waits on the BMC rather than the agent (Ironic's steps that set the
   * polling flag and have a periodic task follow them: firmware updates, BIOS apply): one look at
   * how it stands, the node locked, called by the periodic task `poll_waiting_steps`. Agent
   * heartbeats leave such a step alone, unless it has `resume`.
   */
  readonly poll?: (task: Task) => Promise<StepProgress>;
  /**
   * For a polled step whose reboot booted the ramdisk again (Ironic's async step flags with
   * `polling` false): the step's second call, made when the freshly booted ramdisk heartbeats
   * (Ironic's `skip_current_step=False`); it settles the step, done or failed, never waiting.
   */
  readonly resume?: (task: Task) => Promise<Exclude<StepProgress, { readonly state: 'waiting' }>>;
  /**
   * Whether `abort` may stop the flow during this step. Defaults as Ironic's decorators: clean and
   * service steps are not abortable, deploy steps are (`deploy_step(abortable=True)`, 2026.1).
   */
  readonly abortable?: boolean;
  /** Servicing: whether the step needs the ramdisk booted first (Ironic's requires_ramdisk, default true). */
  readonly requiresRamdisk?: boolean;
  execute(task: Task, args: Record<string, unknown>): Promise<StepOutcome>;
}

/** The flows that run steps. */
export type StepFlow = 'deploy' | 'clean' | 'service';

/** A post-step hook (Ironic's `post_clean_step_hook`/`post_deploy_step_hook`): its name shows in the failure it causes. */
export interface PostStepHook {
  readonly name: string;
  /** Given the agent's finished command (its `command_result` holds `<flow>_result`); throw to fail the step. */
  run(task: Task, command: AgentCommand): void | Promise<void>;
}

/**
 * How an interface takes part in the ramdisk agent's in-band steps of its type, after Ironic's
 * agent-based interfaces (AgentDeploy for `deploy` steps, AgentRAID for `raid` steps): only an
 * interface that has this makes the agent's steps of its type part of a node's step lists.
 */
export interface InbandSteps {
  /** Before the agent is asked to run a step, by flow and step name: check and prepare the node; throw to fail the step. */
  readonly prepare?: Partial<Record<StepFlow, Readonly<Record<string, (task: Task, step: Step) => void>>>>;
  /** After the agent reports a step succeeded, by flow and step name (Ironic's post-step hooks). */
  readonly after?: Partial<Record<StepFlow, Readonly<Record<string, PostStepHook>>>>;
}

export interface HardwareInterface {
  /** The implementation name, as in `deploy_interface: "fake"`. */
  readonly name: string;
  /** Check the node has what this interface needs; throw InvalidParameterValue/MissingParameterValue. */
  validate(task: Task): Promise<void>;
  readonly deploySteps?: readonly StepDefinition[];
  readonly cleanSteps?: readonly StepDefinition[];
  readonly serviceSteps?: readonly StepDefinition[];
  /** Present on an interface that runs the agent's in-band steps of its type. */
  readonly inband?: InbandSteps;
}

/** BIOS settings (Ironic's BIOSInterface); a `no-bios` one refuses with UnsupportedDriverExtension. */
export interface BiosInterface extends HardwareInterface {
  /** Read the settings from the hardware and store them (`task.biosSettings`); UnsupportedDriverExtension when it has none. */
  cacheBiosSettings(task: Task): Promise<void>;
}

/** Firmware (Ironic's FirmwareInterface); a `no-firmware` one refuses with UnsupportedDriverExtension. */
export interface FirmwareInterface extends HardwareInterface {
  /** Read the components' versions from the hardware and record them (`task.firmwareComponents`); UnsupportedDriverExtension when it has none. */
  cacheFirmwareComponents(task: Task): Promise<void>;
}

/** Where a step that waits on the BMC stands: still running, done (the flow resumes), or failed with Ironic's message. */
export type StepProgress =
  { readonly state: 'waiting' } | { readonly state: 'done' } | { readonly state: 'failed'; readonly message: string };

/** RAID configuration (Ironic's RAIDInterface); a `no-raid` one refuses with UnsupportedDriverExtension. */
export interface RaidInterface extends HardwareInterface {
  /** Check a target configuration; InvalidParameterValue naming what is wrong. */
  validateRaidConfig(task: Task, config: Record<string, unknown>): void;
}

export interface PowerInterface extends HardwareInterface {
  /** The node's power state (`#common/states` POWER_*), or null when the BMC reports one Ironic has no name for. */
  getPowerState(task: Task): Promise<string | null>;
  /**
   * Set the power state and wait until the hardware reports it (soft states end in power on/off).
   * It does not record the state on the node: the caller does, as Ironic's `node_power_action`.
   */
  setPowerState(task: Task, state: string, timeoutSeconds?: number): Promise<void>;
  /** Hard reboot: power off (if on), then on, waiting for each. */
  reboot(task: Task, timeoutSeconds?: number): Promise<void>;
  getSupportedPowerStates(task: Task): Promise<string[]>;
}

export interface DeployInterface extends HardwareInterface {
  /** Undo a deployment (power off, clean up); part of `deleted`/`undeploy`. */
  tearDown(task: Task): Promise<void>;
  /**
   * Ironic's `deploy.prepare`, once a deploy starts: complete `instance_info` for it (e.g. a
   * partition image's layout). It changes the node only; an error fails the deploy.
   */
  prepare?(task: Task): Promise<void>;
  /** Agent-based interfaces (`direct`): steps also come from the ramdisk agent. */
  readonly usesAgent?: boolean;
  /**
   * Before cleaning/servicing: boot the ramdisk. True when the flow must wait for the agent's
   * first heartbeat (its in-band steps are known only then).
   */
  prepareCleaning?(task: Task): Promise<boolean>;
  /** After cleaning/servicing: power off and take the ramdisk away. */
  tearDownCleaning?(task: Task): Promise<void>;
}

/** Boot devices (Ironic's `ironic/common/boot_devices.py`). */
export const BOOT_DEVICES = {
  PXE: 'pxe',
  DISK: 'disk',
  CDROM: 'cdrom',
  BIOS: 'bios',
  SAFE: 'safe',
  WANBOOT: 'wanboot',
  ISCSIBOOT: 'iscsiboot',
  FLOPPY: 'floppy',
} as const;

/** Boot modes (Ironic's `ironic/common/boot_modes.py`). */
export const BOOT_MODES = { UEFI: 'uefi', LEGACY_BIOS: 'bios' } as const;

/** What `get_boot_device` answers; either value is null when the BMC does not say. */
export interface BootDeviceInfo {
  readonly boot_device: string | null;
  readonly persistent: boolean | null;
}

/** One indicator (LED) of a component, as `get_supported_indicators` describes it. */
export interface IndicatorInfo {
  readonly readonly: boolean;
  readonly states: readonly string[];
}

/**
 * Out-of-band management: boot device, boot mode, secure boot, NMI. Operations a driver lacks throw
 * UnsupportedDriverExtension, as Ironic's base class does.
 */
export interface ManagementInterface extends HardwareInterface {
  getSupportedBootDevices(task: Task): Promise<string[]>;
  /** Boot from `device` next time, or on every boot when `persistent`. */
  setBootDevice(task: Task, device: string, persistent?: boolean): Promise<void>;
  getBootDevice(task: Task): Promise<BootDeviceInfo>;
  getSupportedBootModes(task: Task): Promise<string[]>;
  setBootMode(task: Task, mode: string): Promise<void>;
  /** `uefi`, `bios`, or null when unknown. */
  getBootMode(task: Task): Promise<string | null>;
  getSecureBootState(task: Task): Promise<boolean>;
  setSecureBootState(task: Task, state: boolean): Promise<void>;
  injectNmi(task: Task): Promise<void>;
  /** The hardware vendor (Redfish: the system's Manufacturer), null when unknown; verify caches it in `properties.vendor`. */
  detectVendor(task: Task): Promise<string | null>;
  /** MACs of the node's enabled NICs as the BMC reports them (Ironic's `get_mac_addresses`); absent: not supported. */
  getMacAddresses?(task: Task): Promise<string[]>;
  /** Indicators by component and name (see `indicators.ts`); absent: UnsupportedDriverExtension. */
  getSupportedIndicators?(task: Task, component?: string): Promise<Record<string, Record<string, IndicatorInfo>>>;
  getIndicatorState?(task: Task, component: string, indicator: string): Promise<string>;
  setIndicatorState?(task: Task, component: string, indicator: string, state: string): Promise<void>;
  /** Virtual media devices (see `VMEDIA_DEVICES`); absent: UnsupportedDriverExtension, as Ironic's base class. */
  getVirtualMedia?(task: Task): Promise<VirtualMediaInfo[]>;
  /** `downloadSource`: the API's `image_download_source` (`local` copies the image to where the conductor serves it). */
  attachVirtualMedia?(task: Task, deviceType: string, imageUrl: string, downloadSource: string): Promise<void>;
  /** No `deviceTypes`: every device. */
  detachVirtualMedia?(task: Task, deviceTypes?: readonly string[]): Promise<void>;
  /**
   * The hardware's health as the BMC reports it (Ironic's `get_node_health`): "OK", "Warning",
   * "Critical", or null when it does not say; absent: not supported (the power sync skips it).
   */
  getNodeHealth?(task: Task): Promise<string | null>;
}

/** Device types that make sense for virtual media (Ironic's `boot_devices.VMEDIA_DEVICES`), in its order. */
export const VMEDIA_DEVICES = ['disk', 'cdrom', 'floppy'] as const;

/** One virtual media device of a node. */
export interface VirtualMediaInfo {
  readonly media_types: string[];
  readonly inserted: boolean;
  readonly image: string | null;
}

/** Booting the deploy/rescue ramdisk and the instance (Ironic's BootInterface). */
export interface BootInterface extends HardwareInterface {
  /** Make the node boot the ramdisk on its next power on; `ramdiskParams` are for the ramdisk's kernel. */
  prepareRamdisk(task: Task, ramdiskParams: Record<string, unknown>): Promise<void>;
  cleanUpRamdisk(task: Task): Promise<void>;
  /**
   * Whether this interface can boot the ramdisk for in-band inspection, and the node has what it
   * needs for that (Ironic's `validate_inspection`); absent: it cannot (UnsupportedDriverExtension).
   */
  validateInspection?(task: Task): Promise<void>;
  /** Make the node boot the deployed instance. */
  prepareInstance(task: Task): Promise<void>;
  cleanUpInstance(task: Task): Promise<void>;
}

/** A network interface found by inspection. */
export interface InspectedInterface {
  readonly name: string;
  /** Lower case, colon separated. */
  readonly mac_address: string;
  readonly enabled: boolean;
  readonly speed_mbps?: number;
}

/**
 * What inspection found. The conductor stores `properties` on the node and creates a port for each
 * of `macs` (Ironic 21.4's create_ports_if_not_exist). An interface that runs inspection hooks (redfish, as
 * Ironic master's) has changed the node and its ports through them already and reports no `macs`.
 */
export interface InspectResult {
  /** The node's properties with the inspected ones (memory_mb, local_gb, capabilities, what the hooks set) merged in. */
  readonly properties: Record<string, unknown>;
  readonly interfaces: readonly InspectedInterface[];
  readonly macs: readonly string[];
  /** What inspection rules read as `inventory` (the ramdisk's shape); an interface without one runs no rules. */
  readonly inventory?: Record<string, unknown>;
  /** What is stored beside the inventory as `plugin_data` (redfish: `parsed_lldp` when the BMC reports LLDP). */
  readonly pluginData?: Record<string, unknown>;
}

/**
 * What the start of an in-band inspection returns: the ramdisk is prepared and the node is to wait
 * in `inspect wait`. `start` powers it on; the caller saves the waiting node first, since the
 * ramdisk may post its data as soon as it runs. `start` tears the boot down itself when it fails.
 */
export interface InspectWait {
  readonly wait: true;
  start(): Promise<void>;
}

/**
 * A task of in-band inspection processing: the node and what the inspection hooks may do to its
 * ports (Ironic's hooks use the Port objects directly; here the conductor hands them the store).
 */
export interface InspectionTask extends Task {
  readonly ports: {
    list(): Promise<Port[]>;
    /** Create a port; false when a port has this address already (on this node or another). */
    create(port: { address: string; pxe_enabled: boolean; extra: Record<string, unknown> }): Promise<boolean>;
    save(port: Port): Promise<void>;
    destroy(port: Port): Promise<void>;
  };
}

/**
 * In-band inspection, by the ramdisk (Ironic's AgentInspect): `start` prepares the ramdisk's boot
 * and the node waits in `inspect wait`; the ramdisk's data arrives through
 * `POST /v1/continue_inspection` and is processed by `continue`.
 */
export interface InBandInspection {
  start(task: InspectionTask): Promise<InspectWait>;
  /**
   * Process the data the ramdisk posted (Ironic's `continue_inspection`): run the inspection hooks,
   * which update the node and its ports, and tear the ramdisk down. Throws when the data cannot be
   * processed; the boot is torn down then too. `pluginData` may be changed by the hooks: it is
   * stored as they leave it.
   */
  continue(task: InspectionTask, inventory: Record<string, unknown>, pluginData: Record<string, unknown>): Promise<void>;
  /** Undo what a waiting inspection set up: the ramdisk's boot, the power (Ironic's `abort`). */
  abort(task: Task): Promise<void>;
}

export interface InspectInterface extends HardwareInterface {
  /** Out-of-band inspection: what the BMC reports (its hooks may change the node's ports through the task). */
  inspectHardware(task: InspectionTask): Promise<InspectResult>;
  /** Present on an interface that inspects in band instead. */
  readonly inBand?: InBandInspection;
}

/** What a VIF attach request carries: the VIF's id, and optionally the port or portgroup to use (1.67). */
export interface VifInfo {
  readonly id: string;
  readonly port_uuid?: string;
  readonly portgroup_uuid?: string;
  readonly [key: string]: unknown;
}

/**
 * A network task: the node with its ports and portgroups (Ironic's `task.ports`/`task.portgroups`)
 * and a way to save one of them, which the caller provides (the conductor, over the stores).
 */
export interface NetworkTask extends Task {
  readonly ports: readonly Port[];
  readonly portgroups: readonly Portgroup[];
  savePort(port: Port): Promise<void>;
  savePortgroup(portgroup: Portgroup): Promise<void>;
  /** Create a portgroup (a dynamic one); PortgroupDuplicateName when the name is taken. */
  createPortgroup(portgroup: Portgroup): Promise<Portgroup>;
  destroyPortgroup(portgroup: Portgroup): Promise<void>;
  /** Trait based networking, when the conductor has rules for it (Ironic's `enable_trait_based_networking`). */
  readonly tbn?: TbnConfig;
}

/** Virtual network interfaces (VIFs) of a node (Ironic's NetworkInterface VIF methods). */
export interface NetworkInterface extends HardwareInterface {
  /** Whether the node can be inspected in band on this network (Ironic's `validate_inspection`); absent: it cannot. */
  validateInspection?(task: Task): Promise<void>;
  /** The attached VIFs, as `{id}` entries. */
  vifList(task: NetworkTask): Promise<{ id: string }[]>;
  vifAttach(task: NetworkTask, vif: VifInfo): Promise<void>;
  vifDetach(task: NetworkTask, vifId: string): Promise<void>;
}

export type AnyInterface =
  | HardwareInterface
  | PowerInterface
  | DeployInterface
  | ManagementInterface
  | BootInterface
  | InspectInterface
  | NetworkInterface
  | RaidInterface
  | BiosInterface
  | FirmwareInterface;

export interface HardwareType {
  readonly name: string;
  /** Supported implementation names per interface type; the first is the default. */
  readonly supported: Readonly<Record<InterfaceType, readonly string[]>>;
}

/** A node's driver: its hardware type and the implementation chosen for each interface type. */
export interface Driver {
  readonly hardwareType: HardwareType;
  readonly interfaces: Readonly<Record<InterfaceType, HardwareInterface>>;
  readonly power: PowerInterface;
  readonly deploy: DeployInterface;
  readonly management: ManagementInterface;
  readonly boot: BootInterface;
  readonly inspect: InspectInterface;
  readonly network: NetworkInterface;
  readonly raid: RaidInterface;
  readonly bios: BiosInterface;
  readonly firmware: FirmwareInterface;
}
