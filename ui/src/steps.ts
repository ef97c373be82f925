/**
 * A deploy, clean or service run step by step. While a flow runs, the node itself carries its step
 * list (`driver_internal_info.<flow>_steps`), the index of the current step and the current step
 * (`deploy_step`, …); the node's history has an INFO event as each step starts ("Deploy step
 * deploy.write_image (priority 80) started") and an ERROR event with a failure. Together they
 * give each step's start and duration; once the flow is over (the list is dropped) the history
 * alone gives the last run. Pure: no DOM, unit-tested.
 */
import { flowOfState } from './states';

export type Flow = 'deploy' | 'clean' | 'service';

export interface HistoryEvent {
  readonly uuid?: string;
  readonly created_at: string;
  readonly severity?: string;
  readonly event_type?: string;
  readonly event: string;
  readonly conductor?: string | null;
  readonly user?: string | null;
}

export type StepStatus = 'done' | 'running' | 'failed' | 'pending' | 'skipped';

export interface StepRow {
  readonly step: string;
  readonly interface: string;
  readonly priority: number;
  /** In-band (run by the ramdisk agent) or out-of-band (by the conductor through the BMC); undefined when unknown. */
  readonly inband: boolean | undefined;
  readonly args: Readonly<Record<string, unknown>>;
  readonly status: StepStatus;
  readonly startedAt: string | undefined;
  /** Until the next step started, or until now for the running one. */
  readonly durationMs: number | undefined;
}

export interface StepRun {
  readonly flow: Flow;
  /** live: from the node while its flow runs; history: the last run, from the node's history. */
  readonly source: 'live' | 'history';
  readonly rows: readonly StepRow[];
  readonly outcome: 'running' | 'failed' | 'finished';
  /** The ERROR event that ended the run, if it failed. */
  readonly failure: HistoryEvent | undefined;
}

const LABEL: Readonly<Record<Flow, string>> = { deploy: 'Deploy', clean: 'Clean', service: 'Service' };
const EVENT_TYPE: Readonly<Record<Flow, string>> = { deploy: 'deploying', clean: 'cleaning', service: 'servicing' };
const STARTED = /^(Deploy|Clean|Service) step ([\w-]+)\.(\S+) \(priority (-?\d+)\) started$/;

/** Ironic's core deploy steps and whether the agent runs them (for step lists that do not say). */
const CORE_INBAND: Readonly<Record<string, boolean>> = {
  'deploy.deploy': false,
  'deploy.write_image': true,
  'deploy.prepare_instance_boot': false,
  'deploy.tear_down_agent': false,
  'deploy.switch_to_tenant_network': false,
  'deploy.boot_instance': false,
};

function inbandOf(raw: Record<string, unknown>): boolean | undefined {
  if (typeof raw.inband === 'boolean') return raw.inband;
  return CORE_INBAND[`${String(raw.interface)}.${String(raw.step)}`];
}

interface Started {
  readonly flow: Flow;
  readonly iface: string;
  readonly step: string;
  readonly priority: number;
  readonly at: string;
  readonly index: number;
}

function startedEvents(history: readonly HistoryEvent[]): Started[] {
  const out: Started[] = [];
  history.forEach((e, index) => {
    const m = STARTED.exec(e.event);
    if (!m) return;
    const flow = (Object.keys(LABEL) as Flow[]).find((f) => LABEL[f] === m[1]) as Flow;
    out.push({ flow, iface: m[2] as string, step: m[3] as string, priority: Number(m[4]), at: e.created_at, index });
  });
  return out;
}

/**
 * The started events of the latest run of `flow`. Walking back from the last one, a run began where
 * the step before it had a lower priority (steps run by falling priority), was already in the run,
 * or is followed by the failure that ended the run before.
 */
function lastRun(history: readonly HistoryEvent[], flow: Flow): Started[] {
  const events = startedEvents(history).filter((s) => s.flow === flow);
  const last = events.at(-1);
  if (last === undefined) return [];
  const run = [last];
  for (let i = events.length - 2; i >= 0; i--) {
    const prev = events[i] as Started;
    const next = run[0] as Started;
    const failedBetween = history.slice(prev.index + 1, next.index).some((e) => e.severity === 'ERROR');
    if (prev.priority < next.priority || failedBetween || run.some((s) => s.iface === prev.iface && s.step === prev.step)) break;
    run.unshift(prev);
  }
  return run;
}

function failureAfter(history: readonly HistoryEvent[], flow: Flow, index: number): HistoryEvent | undefined {
  return history
    .slice(index + 1)
    .find((e) => e.severity === 'ERROR' && (e.event_type === EVENT_TYPE[flow] || e.event_type === 'provisioning'));
}

function durations(starts: readonly (string | undefined)[], endOfLast: number | undefined): (number | undefined)[] {
  return starts.map((at, i) => {
    if (at === undefined) return undefined;
    const next = starts.slice(i + 1).find((s) => s !== undefined);
    const end = next !== undefined ? Date.parse(next) : endOfLast;
    return end === undefined ? undefined : Math.max(0, end - Date.parse(at));
  });
}

type NodeLike = Readonly<Record<string, unknown>>;

function liveRun(node: NodeLike, flow: Flow, history: readonly HistoryEvent[], now: number): StepRun | undefined {
  const info = (node.driver_internal_info ?? {}) as Record<string, unknown>;
  const list = info[`${flow}_steps`];
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const steps = list as Record<string, unknown>[];
  const rawIndex = info[`${flow}_step_index`];
  const current = node[`${flow}_step`] as Record<string, unknown> | null | undefined;
  const failed = String(node.provision_state).endsWith('failed');
  let index = typeof rawIndex === 'number' ? rawIndex : -1;
  if (index < 0 && current && typeof current.step === 'string')
    index = steps.findIndex((s) => s.step === current.step && s.interface === current.interface);
  const run = lastRun(history, flow);
  const startOf = (s: Record<string, unknown>, i: number): string | undefined =>
    i > index ? undefined : [...run].reverse().find((e) => e.iface === s.interface && e.step === s.step && e.priority === s.priority)?.at;
  const starts = steps.map(startOf);
  const lastStarted = run.at(-1);
  const failure = failed && lastStarted ? failureAfter(history, flow, lastStarted.index) : undefined;
  const endOfRunning = failed ? (failure ? Date.parse(failure.created_at) : undefined) : now;
  const times = durations(starts, endOfRunning);
  const rows = steps.map((s, i): StepRow => ({
    step: String(s.step),
    interface: String(s.interface),
    priority: Number(s.priority),
    inband: inbandOf(s),
    args: (s.args ?? {}) as Record<string, unknown>,
    status: i < index ? 'done' : i === index ? (failed ? 'failed' : 'running') : failed ? 'skipped' : 'pending',
    startedAt: starts[i],
    durationMs: times[i],
  }));
  return { flow, source: 'live', rows, outcome: failed ? 'failed' : 'running', failure };
}

/** A finished run ended when the node last changed provision state (if that is after its last step started). */
function historyRun(flow: Flow, history: readonly HistoryEvent[], endedAt: string | undefined): StepRun | undefined {
  const run = lastRun(history, flow);
  const last = run.at(-1);
  if (last === undefined) return undefined;
  const failure = failureAfter(history, flow, last.index);
  const end = failure ? Date.parse(failure.created_at) : endedAt !== undefined ? Date.parse(endedAt) : NaN;
  const times = durations(
    run.map((s) => s.at),
    end >= Date.parse(last.at) ? end : undefined,
  );
  const rows = run.map((s, i): StepRow => {
    const isLast = i === run.length - 1;
    return {
      step: s.step,
      interface: s.iface,
      priority: s.priority,
      inband: inbandOf({ interface: s.iface, step: s.step }),
      args: {},
      status: isLast && failure ? 'failed' : 'done',
      startedAt: s.at,
      durationMs: times[i],
    };
  });
  return { flow, source: 'history', rows, outcome: failure ? 'failed' : 'finished', failure };
}

/**
 * The run to show for a node: its running (or just failed) flow from the node, else the latest run
 * of any flow in its history.
 */
export function stepRun(node: NodeLike, history: readonly HistoryEvent[], now: number): StepRun | undefined {
  const flow = flowOfState(node.provision_state as string | undefined);
  const live = flow ? liveRun(node, flow, history, now) : undefined;
  if (live) return live;
  const endedAt = typeof node.provision_updated_at === 'string' ? node.provision_updated_at : undefined;
  if (flow) {
    const fromHistory = historyRun(flow, history, endedAt);
    if (fromHistory) return fromHistory;
  }
  const latest = startedEvents(history).at(-1);
  return latest ? historyRun(latest.flow, history, endedAt) : undefined;
}
