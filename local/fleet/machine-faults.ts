/** The faults a virtual machine's BMC and its ramdisk agent can be given (see `machine.ts`). */
import type { InventoryResource } from './redfish-inventory';

/**
 * Faults to inject, per machine, on requests that name it. `down`: `reset` drops the connection at
 * once, `hang` never answers. `slowMs`: answer this late. `errorStatus`: answer with this status
 * (500 by default when `errorCount` is given), `errorCount` times or, without it, always; only
 * on requests with one of `errorMethods` when given (e.g. ["POST"]: actions fail, reads work).
 * `unauthorized`: reject every credential with 401. `powerStuck`: accept resets and do nothing.
 * `consoleUnavailable`: no graphical console (see `redfish-console.ts`).
 * `biosIgnoresSettings`: the firmware drops pending BIOS settings at power on (see `bios.ts`).
 * `firmwareUpdateFails`: firmware updates end in a failed Task, changing nothing (see `firmware.ts`).
 * `nicUpdateStartsOnReset`: a NIC update's Task stays in Starting until the machine is reset.
 * `bmcVersionUnchanged`: a BMC update's Task completes but the BMC keeps its version.
 * `bmcRestartMs`: after applying its own image the BMC restarts, answering nothing for this long.
 * `mediaUnreachable`: the BMC cannot fetch images, so InsertMedia is refused (400) and nothing is inserted.
 * `health`: the system's Status.Health ("OK" unless set): a BMC reporting a hardware problem.
 * `mediaCorrupt`: the ISO the BMC reads from its virtual CD arrives damaged, so the machine boots nothing from it.
 * `missingResources`: System resources (SimpleStorage, Storage, PCIeDevices) the BMC lacks: not linked, 404.
 * `brokenResources`: System resources it links but answers 404 for (see `redfish-inventory.ts`).
 * `bootModeApply`: a new BootSourceOverrideMode is accepted but reported only once the machine has
 * booted again (`reboot`: a BIOS configuration job, as Dell's) or never (`never`).
 * `bootModeDelayMs`: a new BootSourceOverrideMode is accepted but reported only this much later.
 * `postRejectsBootOverride`: the next this many PATCHes of the boot override (its target or
 * enabled) are refused with 400 `iLO.2.14.UnableToModifyDuringSystemPOST`, as an HPE iLO does
 * while the system is in POST after a reboot or a firmware update.
 * `secureBootApply`: a new SecureBootEnable is accepted but reported only once the machine has
 * booted again (`reboot`: a BIOS configuration job, as Dell's) or never (`never`).
 * `idracJobQueue`: BIOS images are staged as a Dell iDRAC stages them, through a Lifecycle
 * Controller job queue the manager links; the update's Task is purged once the image is
 * downloaded, leaving its job Scheduled until the next power on (`staged`) or Failed with nothing
 * staged (`downloadFails`) (see `idrac-jobs.ts`).
 */
export interface Faults {
  readonly down?: 'reset' | 'hang';
  readonly slowMs?: number;
  readonly errorStatus?: number;
  readonly errorCount?: number;
  readonly errorMethods?: readonly string[];
  readonly unauthorized?: boolean;
  readonly powerStuck?: boolean;
  /** The BMC's graphical console is off (GraphicalConsole.ServiceEnabled false) and its page answers 503. */
  readonly consoleUnavailable?: boolean;
  readonly biosIgnoresSettings?: boolean;
  readonly firmwareUpdateFails?: boolean;
  readonly nicUpdateStartsOnReset?: boolean;
  readonly bmcVersionUnchanged?: boolean;
  readonly bmcRestartMs?: number;
  readonly mediaUnreachable?: boolean;
  readonly health?: 'OK' | 'Warning' | 'Critical';
  readonly mediaCorrupt?: boolean;
  readonly missingResources?: readonly InventoryResource[];
  readonly brokenResources?: readonly InventoryResource[];
  readonly bootModeApply?: 'reboot' | 'never';
  readonly bootModeDelayMs?: number;
  readonly postRejectsBootOverride?: number;
  readonly secureBootApply?: 'reboot' | 'never';
  readonly idracJobQueue?: 'staged' | 'downloadFails';
}

/**
 * Faults of the ramdisk agent running on the machine (see `agent/`), kept apart from the BMC's.
 * `crash`: the agent dies (its API stops answering, no more heartbeats) — at once when true, or
 * when a command or step of that name starts ("standby.power_off", "write_image"). `hang`: it stops
 * heartbeating (its API still answers). `failStep`: that deploy/clean step (or command) fails;
 * `"inspect"`: the inspection's collector fails, and the data it posts says so (`error`).
 * `badChecksum`: image downloads are corrupted, so their checksum does not match. `versionAfterReboot`:
 * the agent comes back from its next reboot as this agent_version (other hardware manager versions
 * too), and stays so: if an agent runs when the fault is set, from the next agent boot on; if none
 * does, the first agent boot keeps the old version and the ones after it (its reboots) change.
 */
export interface AgentFaults {
  readonly crash?: boolean | string;
  readonly hang?: boolean;
  readonly failStep?: string;
  readonly badChecksum?: boolean;
  readonly versionAfterReboot?: string;
}
