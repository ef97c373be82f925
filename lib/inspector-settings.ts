/**
 * Ironic's `[inspector]` options for in-band inspection other than its hooks (which `settings.ts`
 * checks with the redfish ones): the ports an inspection makes and keeps, the power after it, and
 * whether its boot must be managed. Apart from `settings.ts` as the ramdisk logs' are; the
 * IronlessSettings include them, and their variables are among `settingsVariables`.
 */
import { ADD_PORTS_VALUES, ENV, KEEP_PORTS_VALUES } from '../functions/common/config';

export interface InspectorSettings {
  /** Ironic `[inspector]add_ports`: which NICs of an inventory become ports (all, active, pxe, disabled). */
  readonly inspectorAddPorts: (typeof ADD_PORTS_VALUES)[number];
  /** Ironic `[inspector]keep_ports`: which existing ports an inspection keeps (all, present, added). */
  readonly inspectorKeepPorts: (typeof KEEP_PORTS_VALUES)[number];
  /** Ironic `[inspector]update_pxe_enabled`: ports' pxe_enabled follows the inventory. */
  readonly inspectorUpdatePxeEnabled: boolean;
  /** Ironic `[inspector]pre_create_ports`: ports from the BMC's NICs before the ramdisk boots. */
  readonly inspectorPreCreatePorts: boolean;
  /** Ironic `[inspector]power_off`: power the node off after in-band inspection (not with fast track). */
  readonly inspectorPowerOff: boolean;
  /**
   * Ironic `[inspector]require_managed_boot`: in-band inspection boots the ramdisk through the
   * node's boot interface only; false lets a node whose boot or network interface cannot do so be
   * inspected unmanaged (set to boot PXE once and powered on; the operator's PXE serves the ramdisk).
   */
  readonly inspectorRequireManagedBoot: boolean;
}

/** Ironic's defaults. */
export const INSPECTOR_SETTINGS_DEFAULTS: InspectorSettings = {
  inspectorAddPorts: 'pxe',
  inspectorKeepPorts: 'all',
  inspectorUpdatePxeEnabled: true,
  inspectorPreCreatePorts: true,
  inspectorPowerOff: true,
  inspectorRequireManagedBoot: true,
};

/** Refuse port policies the conductor could not read, naming the setting. */
export function validateInspectorSettings(s: InspectorSettings): void {
  if (!ADD_PORTS_VALUES.includes(s.inspectorAddPorts)) {
    throw new Error(`inspectorAddPorts "${String(s.inspectorAddPorts)}" must be one of ${ADD_PORTS_VALUES.join(', ')}`);
  }
  if (!KEEP_PORTS_VALUES.includes(s.inspectorKeepPorts)) {
    throw new Error(`inspectorKeepPorts "${String(s.inspectorKeepPorts)}" must be one of ${KEEP_PORTS_VALUES.join(', ')}`);
  }
}

/** The variables that carry them (defaults included; `settingsEnvironment` leaves those out). */
export function inspectorVariables(s: InspectorSettings): Record<string, string> {
  return {
    [ENV.inspectorAddPorts]: s.inspectorAddPorts,
    [ENV.inspectorKeepPorts]: s.inspectorKeepPorts,
    [ENV.inspectorUpdatePxeEnabled]: String(s.inspectorUpdatePxeEnabled),
    [ENV.inspectorPreCreatePorts]: String(s.inspectorPreCreatePorts),
    [ENV.inspectorPowerOff]: String(s.inspectorPowerOff),
    [ENV.inspectorRequireManagedBoot]: String(s.inspectorRequireManagedBoot),
  };
}
