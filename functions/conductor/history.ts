/**
 * Node history (API 1.78), recorded as Ironic's `node_history_record(…, error=True)` does: every
 * time a node is given a `last_error`, an ERROR event with that text is written, naming the
 * conductor. Rather than a call in each failure path, the conductor's node store is wrapped once
 * (`recordingFailures`): a save that sets a non-empty `last_error` writes the event in the same
 * transaction as the node, so an invocation killed between two writes cannot leave a failure its
 * history does not explain. So deploy/clean/inspect/verify/rescue failures, failed power actions, power-sync
 * maintenance, timeouts and stuck nodes all leave a history entry, and a new failure path cannot
 * forget to.
 *
 * The event type follows Ironic's per path ("deploying", "cleaning", "introspection", …), read
 * from the state the failure left the node in; a path whose type does not follow from the state
 * (stuck nodes: "transition", wait timeouts: "provisioning") names it with `historyEventType()`.
 * Each step a deploy, clean or service flow starts is recorded too, as an INFO event written
 * after the save (a step save stays one PutItem; an INFO event lost to a crash loses nothing an
 * operator needs). Every event is dated at the save that brought it, so the history lists events
 * in the order of the node's saves however late a record is written.
 * A node keeps its newest NODE_HISTORY_MAX_ENTRIES events (Ironic `[conductor]node_history_max_entries`),
 * trimmed as Ironic does, by a periodic task (`manage_node_history`) rather than at each write: a
 * write then costs one PutItem, not a PutItem and a Query.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { isIronicError } from '#common/errors';
import { newUuid } from '#common/ids';
import * as st from '#common/states';
import { outcomeUnknown } from '#db/dynamo';
import type { NodeHistoryStore } from '#db/node-history';
import type { NodeStore, SaveOptions } from '#db/nodes';
import { type Node, loadedStateSince } from '#objects/node';
import { NodeHistory } from '#objects/node-history';
import { type PageWalk, walkAllNodes } from './flows/periodic-pages';

/** Ironic `[conductor]node_history_max_entries` (default 300). */
export const NODE_HISTORY_MAX_ENTRIES = 300;
/** Ironic `[conductor]node_history_cleanup_batch_count` (default 1000): records one periodic run deletes, about. */
export const NODE_HISTORY_CLEANUP_BATCH_COUNT = 1000;
/** Ironic `[conductor]node_history_minimum_days` (default 0): records younger than this are kept and not counted. */
export const NODE_HISTORY_MINIMUM_DAYS = 0;

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
}

interface HistoryEvent {
  readonly event: string;
  readonly event_type: string;
  readonly severity: 'ERROR' | 'INFO';
}

/**
 * A record of `event` on `node`, as Ironic's `node_history_record` writes one: the node's provision
 * state and target at the event, and how long (whole seconds) since its provision state last
 * changed, `since` (the node's `provision_updated_at` before the save that brought the event).
 * The project is null: Ironic's conductor passes none (the field waits for a caller that does).
 */
function historyRecord(node: Node, options: HistoryRecorderOptions, event: HistoryEvent, since: string | null, now: number): NodeHistory {
  const start = since === null ? Number.NaN : Date.parse(since);
  return new NodeHistory({
    uuid: newUuid(),
    node_uuid: node.uuid,
    conductor: options.conductor,
    user: null,
    project: null,
    ...event,
    state: node.provision_state,
    target_provision_state: node.target_provision_state,
    duration_seconds: Number.isNaN(start) ? null : Math.max(0, Math.floor((now - start) / 1000)),
    created_at: new Date(now).toISOString(),
  });
}

/**
 * When an event of a node just saved happened: the save's own time (its `updated_at`). Saves of a
 * node are serialised by its revision, so its events list in the order of the saves that brought
 * them, however late each record is written.
 */
function savedAt(node: Node): number {
  const at = node.updated_at === null || node.updated_at === undefined ? Number.NaN : Date.parse(node.updated_at);
  return Number.isNaN(at) ? Date.now() : at;
}

/**
 * Write one ERROR event for `node`'s new last_error; `since` is when the node entered the state
 * it failed in (its provision_updated_at before the failure was saved), or the node's own.
 */
export async function recordFailure(
  node: Node,
  options: HistoryRecorderOptions,
  since: string | null = loadedStateSince(node),
): Promise<void> {
  const message = node.last_error;
  if (message === null || message === undefined || message === '') return;
  const eventType = eventTypeOf(node);
  hints.delete(node);
  try {
    const at = savedAt(node);
    await options.history.create(historyRecord(node, options, { event: message, event_type: eventType, severity: 'ERROR' }, since, at), at);
  } catch (err) {
    // The failure itself is saved (last_error); losing its history entry must not undo that.
    options.log.error('Could not record node history', { node: node.uuid, error: String(err) });
  }
}

/** The step fields and the history event type of their flows. */
const STEP_FIELDS = [
  ['deploy_step', 'deploying', 'Deploy'],
  ['clean_step', 'cleaning', 'Clean'],
  ['service_step', 'servicing', 'Service'],
] as const;

interface StepStart {
  readonly eventType: string;
  readonly text: string;
}

/** The step a save is about to start (a step field changed to a step), if any. */
function stepStarted(node: Node): StepStart | undefined {
  const changed = node.whatChanged();
  for (const [field, eventType, label] of STEP_FIELDS) {
    if (!changed.has(field)) continue;
    const step = node[field] as Record<string, unknown> | null;
    if (step === null || typeof step.step !== 'string') continue;
    return {
      eventType,
      text: `${label} step ${String(step.interface)}.${step.step} (priority ${String(step.priority)}) started`,
    };
  }
  return undefined;
}

/** Health values a save is about to replace (`noteHealthChange`), by node copy. */
const healthBefore = new WeakMap<Node, string | null>();

/** Record the health a node had before the caller changed it: its next save writes a `monitoring` event. */
export function noteHealthChange(node: Node, previous: string | null): void {
  healthBefore.set(node, previous);
}

/** Ironic's node_cache_health history entry, for a save that changes the node's health. */
function healthChanged(node: Node): StepStart | undefined {
  if (!healthBefore.has(node)) return undefined;
  const previous = healthBefore.get(node) ?? null;
  healthBefore.delete(node);
  return {
    eventType: 'monitoring',
    text: `Node health status changed: health='${node.health ?? 'None'}' (previously '${previous ?? 'None'}')`,
  };
}

/**
 * Write an INFO event for a step that starts, so the node's history shows its steps in the order
 * they ran (the Step Functions execution history has them too, but operators read the node's).
 */
async function recordStep(node: Node, started: StepStart, options: HistoryRecorderOptions, since: string | null): Promise<void> {
  try {
    const at = savedAt(node);
    await options.history.create(
      historyRecord(node, options, { event: started.text, event_type: started.eventType, severity: 'INFO' }, since, at),
      at,
    );
  } catch (err) {
    options.log.error('Could not record node history', { node: node.uuid, error: String(err) });
  }
}

/**
 * Save a node given a new `last_error` with its ERROR event, in one transaction. If only the event
 * could not be written (the history table refused it or is failing, not the node's own condition
 * or lock), the failure is saved alone and its event written after, as best it can be: losing a
 * history entry must not keep a node from being failed.
 */
async function saveFailure(
  nodes: NodeStore,
  node: Node,
  saveOptions: SaveOptions | undefined,
  options: HistoryRecorderOptions & { readonly eventType: string; readonly since: string | null },
): Promise<Node> {
  const text = node.last_error as string;
  const event = historyRecord(node, options, { event: text, event_type: options.eventType, severity: 'ERROR' }, options.since, Date.now());
  hints.delete(node);
  try {
    return await nodes.save(node, { ...saveOptions, event });
  } catch (err) {
    if (isIronicError(err) || outcomeUnknown(err)) throw err;
    options.log.error('Could not save a failure with its history event; saving it alone', { node: node.uuid, error: String(err) });
  }
  const saved = await nodes.save(node, saveOptions);
  hints.set(saved, options.eventType);
  await recordFailure(saved, options, options.since);
  return saved;
}

/**
 * The conductor's node store: the given one, whose `save` records a history event whenever the
 * saved node carries a newly set, non-empty `last_error` (with it, in one transaction), and an
 * INFO event after a save that starts a step or changes the node's health.
 */
export function recordingFailures(nodes: NodeStore, options: HistoryRecorderOptions): NodeStore {
  return new Proxy(nodes, {
    get(target, name, receiver) {
      if (name === 'save') {
        return async (node: Node, saveOptions?: SaveOptions): Promise<Node> => {
          const failed = node.whatChanged().has('last_error') && node.last_error !== null && node.last_error !== '';
          const eventType = failed ? eventTypeOf(node) : undefined;
          const started = stepStarted(node) ?? healthChanged(node);
          const since = loadedStateSince(node);
          let saved: Node;
          if (failed && eventType !== undefined) {
            saved = await saveFailure(target, node, saveOptions, { ...options, eventType, since });
          } else {
            saved = await target.save(node, saveOptions);
          }
          if (started !== undefined) await recordStep(saved, started, options, since);
          return saved;
        };
      }
      const value = Reflect.get(target, name, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export interface HistoryCleanupOptions {
  readonly maxEntries?: number;
  readonly batchCount?: number;
  readonly minimumDays?: number;
  readonly now?: () => number;
}

/**
 * The periodic task `manage_node_history` (Ironic's `_manage_node_history`): delete each node's
 * oldest records beyond the newest `maxEntries` (only records older than `minimumDays` count).
 * Nodes are taken a page per invocation (flows/periodic-pages.ts), so no invocation reads the
 * whole history table; within a page, node by node until about `batchCount` records went, the
 * rest waiting for the next run. Off when either number is 0, as Ironic's.
 */
export async function manageNodeHistory(
  deps: { readonly nodes: Pick<NodeStore, 'sweep'>; readonly history: NodeHistoryStore; readonly log: Logger },
  options: HistoryCleanupOptions = {},
  walk: PageWalk = {},
): Promise<{ deleted: number; nodes: number; continuedAt?: string }> {
  const maxBatch = options.batchCount ?? NODE_HISTORY_CLEANUP_BATCH_COUNT;
  const maxEntries = options.maxEntries ?? NODE_HISTORY_MAX_ENTRIES;
  // Ironic enables the periodic task only with both set.
  if (maxBatch <= 0 || maxEntries <= 0) return { deleted: 0, nodes: 0 };
  const minimumDays = options.minimumDays ?? NODE_HISTORY_MINIMUM_DAYS;
  const now = (options.now ?? Date.now)();
  const before = minimumDays > 0 ? new Date(now - minimumDays * 86_400_000).toISOString() : undefined;
  let deleted = 0;
  let nodes = 0;
  let warned = false;
  const continuedAt = await walkAllNodes(deps.nodes, walk, async (page) => {
    const candidates = await deps.history.purgeCandidates(
      page.map((n) => n.uuid),
      maxEntries,
      before,
    );
    for (const uuids of candidates.values()) {
      if (deleted >= maxBatch) {
        if (!warned)
          deps.log.warn(
            'While cleaning up node history records, the maximum number of records permitted in a single batch was reached; ' +
              'if this repeats, run the task more often or delete more records per run.',
            { deleted, batchCount: maxBatch },
          );
        warned = true;
        return;
      }
      await deps.history.deleteMany(uuids);
      deleted += uuids.length;
      nodes++;
    }
  });
  if (deleted > 0) deps.log.info('Node history trimmed', { deleted, nodes });
  return { deleted, nodes, ...(continuedAt !== undefined ? { continuedAt } : {}) };
}
