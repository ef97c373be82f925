/**
 * Node history (API 1.78), recorded as Ironic's `node_history_record(…, error=True)` does: every
 * time a node is given a `last_error`, an ERROR event with that text is written, naming the
 * conductor. Rather than a call in each failure path, the conductor's node store is wrapped once
 * (`recordingFailures`): a save that sets a non-empty `last_error` writes the event after the
 * node is saved. So deploy/clean/inspect/verify/rescue failures, failed power actions, power-sync
 * maintenance, timeouts and stuck nodes all leave a history entry, and a new failure path cannot
 * forget to.
 *
 * The event type follows Ironic's per path ("deploying", "cleaning", "introspection", …), read
 * from the state the failure left the node in; a path whose type does not follow from the state
 * (stuck nodes: "transition", wait timeouts: "provisioning") names it with `historyEventType()`.
 * Each step a deploy, clean or service flow starts is recorded too, as an INFO event.
 * A node keeps its newest NODE_HISTORY_MAX_ENTRIES events (Ironic `[conductor]node_history_max_entries`).
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { newUuid } from '#common/ids';
import * as st from '#common/states';
import type { NodeHistoryStore } from '#db/node-history';
import type { NodeStore, SaveOptions } from '#db/nodes';
import type { Node } from '#objects/node';
import { NodeHistory } from '#objects/node-history';

/** Ironic `[conductor]node_history_max_entries` (default 300). */
export const NODE_HISTORY_MAX_ENTRIES = 300;

/** Ironic's event type by the failed state a failure leaves the node in (`states.*` history types). */
const EVENT_TYPE_BY_STATE: Readonly<Record<string, string>> = {
  [st.DEPLOYFAIL]: 'deploying',
  [st.CLEANFAIL]: 'cleaning',
  [st.INSPECTFAIL]: 'introspection',
  [st.RESCUEFAIL]: 'rescue',
  [st.UNRESCUEFAIL]: 'rescue',
  [st.ADOPTFAIL]: 'adoption',
  [st.ERROR]: 'unprovision',
  [st.ENROLL]: 'verify',
  [st.SERVICEFAIL]: 'servicing',
};

const hints = new WeakMap<Node, string>();

/** Name the event type of the failure about to be saved on `node`, where its state does not tell it. */
export function historyEventType(node: Node, eventType: string): void {
  hints.set(node, eventType);
}

function eventTypeOf(node: Node): string {
  const hint = hints.get(node);
  if (hint !== undefined) return hint;
  const changed = node.whatChanged();
  if (changed.has('provision_state')) {
    const type = EVENT_TYPE_BY_STATE[node.provision_state];
    if (type !== undefined) return type;
  }
  // Power-state sync putting the node in maintenance (Ironic's MONITORING).
  if (changed.has('fault') && node.fault === 'power failure') return 'monitoring';
  // Ironic's node_power_action records power failures without a type.
  return 'UNKNOWN';
}

export interface HistoryRecorderOptions {
  readonly history: NodeHistoryStore;
  /** The conductor's hostname, recorded as the event's `conductor`. */
  readonly conductor: string;
  readonly log: Logger;
  readonly maxEntries?: number;
}

/** Write one ERROR event for `node`'s new last_error, then prune the node's oldest events. */
export async function recordFailure(node: Node, options: HistoryRecorderOptions): Promise<void> {
  const message = node.last_error;
  if (message === null || message === undefined || message === '') return;
  const eventType = eventTypeOf(node);
  hints.delete(node);
  try {
    await options.history.create(
      new NodeHistory({
        uuid: newUuid(),
        node_uuid: node.uuid,
        conductor: options.conductor,
        event: message,
        user: null,
        event_type: eventType,
        severity: 'ERROR',
        created_at: new Date().toISOString(),
      }),
    );
    await options.history.prune(node.uuid, options.maxEntries ?? NODE_HISTORY_MAX_ENTRIES);
  } catch (err) {
    // The failure itself is saved (last_error); losing its history entry must not undo that.
    options.log.error('Could not record node history', { node: node.uuid, error: String(err) });
  }
}

/** The step fields and the history event type of their flows. */
const STEP_FIELDS = [
  ['deploy_step', 'deploy_step_index', 'deploying', 'Deploy'],
  ['clean_step', 'clean_step_index', 'cleaning', 'Clean'],
  ['service_step', 'service_step_index', 'servicing', 'Service'],
] as const;

interface StepStart {
  readonly eventType: string;
  readonly text: string;
  /** The flow's first step: the time to prune the node's oldest events. */
  readonly first: boolean;
}

/** The step a save is about to start (a step field changed to a step), if any. */
function stepStarted(node: Node): StepStart | undefined {
  const changed = node.whatChanged();
  for (const [field, indexKey, eventType, label] of STEP_FIELDS) {
    if (!changed.has(field)) continue;
    const step = node[field] as Record<string, unknown> | null;
    if (step === null || typeof step.step !== 'string') continue;
    return {
      eventType,
      text: `${label} step ${String(step.interface)}.${step.step} (priority ${String(step.priority)}) started`,
      first: node.driver_internal_info[indexKey] === 0,
    };
  }
  return undefined;
}

/**
 * Write an INFO event for a step that starts, so the node's history shows its steps in the order
 * they ran (the Step Functions execution history has them too, but operators read the node's).
 * Pruning runs when a flow's first step starts rather than at every step: one query per flow.
 */
async function recordStep(node: Node, started: StepStart, options: HistoryRecorderOptions): Promise<void> {
  try {
    await options.history.create(
      new NodeHistory({
        uuid: newUuid(),
        node_uuid: node.uuid,
        conductor: options.conductor,
        event: started.text,
        user: null,
        event_type: started.eventType,
        severity: 'INFO',
        created_at: new Date().toISOString(),
      }),
    );
    if (started.first) await options.history.prune(node.uuid, options.maxEntries ?? NODE_HISTORY_MAX_ENTRIES);
  } catch (err) {
    options.log.error('Could not record node history', { node: node.uuid, error: String(err) });
  }
}

/**
 * The conductor's node store: the given one, whose `save` records a history event whenever the
 * saved node carries a newly set, non-empty `last_error`.
 */
export function recordingFailures(nodes: NodeStore, options: HistoryRecorderOptions): NodeStore {
  return new Proxy(nodes, {
    get(target, name, receiver) {
      if (name === 'save') {
        return async (node: Node, saveOptions?: SaveOptions): Promise<Node> => {
          const failed = node.whatChanged().has('last_error') && node.last_error !== null && node.last_error !== '';
          const eventType = failed ? eventTypeOf(node) : undefined;
          const started = stepStarted(node);
          const saved = await target.save(node, saveOptions);
          if (failed && eventType !== undefined) {
            hints.set(saved, eventType);
            await recordFailure(saved, options);
          }
          if (started !== undefined) await recordStep(saved, started, options);
          return saved;
        };
      }
      const value = Reflect.get(target, name, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
