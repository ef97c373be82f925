/**
 * The keys a redfish firmware update keeps in `driver_internal_info` (Ironic's own, so an operator
 * reading the node finds what Ironic shows), and Ironic master's rule for a failed update's
 * bookkeeping: on a node that failed (`clean failed`, `deploy failed`, `service failed`) and is in
 * maintenance, the updates still to do are discarded, so that leaving maintenance does not carry
 * on with them. Master's periodic `_query_update_failed` looks for such nodes every
 * `[redfish]firmware_update_fail_interval`; Ironless applies the rule in the writes that make a
 * node so (a flow failing in maintenance, maintenance set through the API), which costs no
 * periodic invocation and leaves no window in which the updates could go on. The power sync, the
 * one other writer of maintenance, leaves nodes with updates alone (`power-sync.ts`).
 *
 * Here rather than beside the redfish driver: the API applies it, and must not load driver code.
 */
import { CLEANFAIL, DEPLOYFAIL, SERVICEFAIL } from './states';

/** The updates still to do, the first being the one running (Ironic's key). */
export const FW_UPDATES_KEY = 'redfish_fw_updates';
/** When the step started the updates (Ironic's key); the overall timeout counts from it. */
export const FW_UPDATE_START_KEY = 'redfish_fw_update_start_time';
/** A reboot is owed once the last update is done (Ironic master's key). */
export const FW_REBOOT_REQUESTED_KEY = 'firmware_reboot_requested';
/** The BMC's version when its update was posted (Ironic master's key). */
export const BMC_VERSION_BEFORE_KEY = 'bmc_fw_version_before_update';

/** What Ironic's _clear_updates removes from `driver_internal_info`. */
export const FW_UPDATE_KEYS: readonly string[] = [
  FW_UPDATES_KEY,
  FW_UPDATE_START_KEY,
  FW_REBOOT_REQUESTED_KEY,
  BMC_VERSION_BEFORE_KEY,
  'firmware_cleanup',
];

/** The provision states master's _query_update_failed looks at (with maintenance). */
const FAILED_UPDATE_STATES: ReadonlySet<string> = new Set([CLEANFAIL, DEPLOYFAIL, SERVICEFAIL]);

interface NodeFields {
  readonly uuid: string;
  readonly provision_state: string;
  readonly maintenance: boolean;
  driver_internal_info: Record<string, unknown>;
}

/**
 * Discard a failed node's firmware updates if it is in maintenance (master's _query_update_failed
 * and _clear_updates), on the copy about to be written. True when there was something to discard.
 */
export function discardFailedUpdates(node: NodeFields): boolean {
  if (!node.maintenance || !FAILED_UPDATE_STATES.has(node.provision_state)) return false;
  if (node.driver_internal_info[FW_UPDATES_KEY] === undefined || node.driver_internal_info[FW_UPDATES_KEY] === null) return false;
  const info = { ...node.driver_internal_info };
  for (const key of FW_UPDATE_KEYS) delete info[key];
  node.driver_internal_info = info;
  return true;
}
