/**
 * The conductor's periodic tasks and how often they run. The CDK stack turns each into an
 * EventBridge schedule and the local stack into a timer; both send `{ entry: 'periodic', task }`.
 * A task without `everySeconds` runs as often as a setting says (Ironic's intervals; 0 turns it
 * off): `lib/periodic-schedule.ts`.
 */
export const PERIODIC_TASKS = {
  /**
   * Fail nodes left in a transitional state by a conductor that died: the state is one Ironic
   * cannot resume (deploying, cleaning, …) and the node's lock has expired.
   */
  fail_stuck_nodes: { everySeconds: 60 },
  /**
   * Read every node's power state from its BMC; maintenance after repeated failures, and back.
   * Every `syncPowerStateIntervalSeconds` (Ironic's `[conductor]sync_power_state_interval`).
   */
  sync_power_states: {},
  /**
   * Fail nodes that waited longer than the callback timeout for their ramdisk. Every
   * `checkProvisionStateIntervalSeconds` (Ironic's `[conductor]check_provision_state_interval`).
   */
  fail_timed_out_waits: {},
  /**
   * Follow the steps that wait on the BMC in `clean wait` / `service wait` / `deploy wait` (firmware
   * updates, BIOS apply and factory reset; Ironic's `[redfish]firmware_update_status_interval`,
   * 60 s): a page of waiting nodes per invocation.
   */
  poll_waiting_steps: { everySeconds: 60 },
  /**
   * Liveness (Ironic's conductor heartbeat thread): the invoked conductor version refreshes its
   * registration so the API routes nodes to it. Every minute, EventBridge's finest rate; the
   * local stack sends it to every version on the alias, and runs it even when the other tasks
   * are switched off, since it changes no node.
   */
  conductor_heartbeat: { everySeconds: 60 },
  /**
   * Trim every node's history to its newest records (Ironic's `manage_node_history`): a page of
   * nodes per invocation, every `nodeHistoryCleanupIntervalSeconds` (Ironic's
   * `[conductor]node_history_cleanup_interval`, daily), instead of a Query per write.
   */
  manage_node_history: {},
} as const satisfies Record<string, { readonly everySeconds?: number }>;

export type PeriodicTask = keyof typeof PERIODIC_TASKS;

export interface PeriodicEvent {
  readonly entry: 'periodic';
  readonly task: PeriodicTask;
  /** Where a task that fans out by page goes on (flows/periodic-pages.ts): a cursor an earlier invocation handed on. */
  readonly marker?: string;
}

export function isPeriodicEvent(event: unknown): event is PeriodicEvent {
  return (
    typeof event === 'object' &&
    event !== null &&
    (event as { entry?: unknown }).entry === 'periodic' &&
    typeof (event as { task?: unknown }).task === 'string'
  );
}
