/**
 * The state of a rolling upgrade, kept where both the command and the deployment can see it: in
 * tags of the conductor function (Lambda TagResource), so a second operator, a crashed run's
 * `resume`, the web console and the CDK stack's deploy guard all read the same truth, on AWS and
 * on the local stack alike. Tag values hold at most 256 characters of a small alphabet, so each
 * tag is a line of space-separated `key=value` pairs.
 */

/** The tags, on the conductor function. */
export const TAGS = {
  /** Which upgrade, where it stands: `id=… from=… to=… commit=… phase=N done=N step=N status=…`. */
  upgrade: 'ironless:upgrade',
  /** Per function, its versions: `conductor=old/pinned/unpinned api=… dbsync=…` ('-' for none yet). */
  versions: 'ironless:upgrade:versions',
  /** The last thing said about it (why it stopped, what to do next). */
  message: 'ironless:upgrade:message',
  /** The release the deployment runs (set at deploy, and by an upgrade when it completes). */
  release: 'ironless:release',
} as const;

export const PHASES = [
  { phase: 1, key: 'preflight', title: 'Preflight: dbsync check, conductors alive, DLQs empty, no migration pending' },
  { phase: 2, key: 'publish-pinned', title: 'Publish the new versions pinned to the running release' },
  { phase: 3, key: 'schema', title: "Additive data changes (new tables, indexes); the new release's dbsync check" },
  { phase: 4, key: 'shift-conductor', title: 'Shift the conductor alias to the pinned version, watching' },
  { phase: 5, key: 'shift-api', title: 'Shift the API alias to the pinned version, watching' },
  { phase: 6, key: 'unpin', title: 'Publish unpinned versions; shift conductors, then the API' },
  { phase: 7, key: 'migrate', title: 'Online data migrations, to completion' },
  { phase: 8, key: 'report', title: 'Report; the deployment runs the new release' },
] as const;
export const LAST_PHASE = PHASES.length;

export type UpgradeStatus = 'running' | 'stopped' | 'complete' | 'rolling-back' | 'rolled-back';
const STATUSES: readonly UpgradeStatus[] = ['running', 'stopped', 'complete', 'rolling-back', 'rolled-back'];

/** The functions an upgrade publishes and shifts, in the order it shifts them. */
export const UPGRADED_FUNCTIONS = ['conductor', 'api', 'dbsync'] as const;
export type UpgradedFunction = (typeof UPGRADED_FUNCTIONS)[number];

export interface FunctionVersions {
  /** What `live` routed to when the upgrade began. */
  readonly old?: string;
  /** The new code, pinned to the running release. */
  readonly pinned?: string;
  /** The new code, unpinned. */
  readonly unpinned?: string;
}

export interface UpgradeState {
  /** When it started (compact ISO time): tells two upgrades apart. */
  readonly id: string;
  /** The release running before. */
  readonly from: string;
  /** The release being upgraded to. */
  readonly to: string;
  /** Commit of the new bundles (12 characters). */
  readonly commit: string;
  /** The phase in progress (or where it stopped). */
  readonly phase: number;
  /** The last phase completed (0: none). */
  readonly done: number;
  /** Within a shifting phase: the weight steps already applied (of the current alias). */
  readonly step: number;
  readonly status: UpgradeStatus;
  readonly versions: Readonly<Record<UpgradedFunction, FunctionVersions>>;
  readonly message?: string;
  /**
   * Epoch seconds until which an invocation of the old release may still be running (each alias
   * left the old version at some time; an invocation it started can last the function's timeout).
   * Unpinning waits for it: no old code may meet items written at the new versions.
   */
  readonly oldUntil?: number;
}

function pairs(value: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (value ?? '').split(/\s+/)) {
    const at = part.indexOf('=');
    if (at > 0) out.set(part.slice(0, at), part.slice(at + 1));
  }
  return out;
}

/** A tag value: only the characters Lambda allows, at most 256 of them. */
export function tagValue(text: string): string {
  return text
    .replace(/%/g, ' percent')
    .replace(/[^\p{L}\p{Z}\p{N}_.:/=+\-@]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 256);
}

export function encodeState(state: UpgradeState): Record<string, string> {
  const versions = UPGRADED_FUNCTIONS.map((fn) => {
    const v = state.versions[fn];
    return `${fn}=${v.old ?? '-'}/${v.pinned ?? '-'}/${v.unpinned ?? '-'}`;
  }).join(' ');
  return {
    [TAGS.upgrade]: tagValue(
      `id=${state.id} from=${state.from} to=${state.to} commit=${state.commit} phase=${state.phase} done=${state.done} step=${state.step} status=${state.status}${state.oldUntil !== undefined ? ` old-until=${state.oldUntil}` : ''}`,
    ),
    [TAGS.versions]: versions,
    [TAGS.message]: tagValue(state.message ?? '-'),
  };
}

export class CorruptStateError extends Error {
  override readonly name = 'CorruptStateError';
}

/** The upgrade the tags describe, or undefined when no upgrade was ever started. */
export function decodeState(tags: Readonly<Record<string, string>>): UpgradeState | undefined {
  const raw = tags[TAGS.upgrade];
  if (raw === undefined || raw === '') return undefined;
  const p = pairs(raw);
  const need = (key: string): string => {
    const value = p.get(key);
    if (value === undefined || value === '') throw new CorruptStateError(`Tag ${TAGS.upgrade} lacks "${key}": ${raw}`);
    return value;
  };
  const int = (key: string): number => {
    const value = Number(need(key));
    if (!Number.isInteger(value) || value < 0) throw new CorruptStateError(`Tag ${TAGS.upgrade} has a bad "${key}": ${raw}`);
    return value;
  };
  const id = need('id');
  const status = need('status') as UpgradeStatus;
  if (!STATUSES.includes(status)) throw new CorruptStateError(`Tag ${TAGS.upgrade} has an unknown status "${status}"`);
  const v = pairs(tags[TAGS.versions]);
  const versions = Object.fromEntries(
    UPGRADED_FUNCTIONS.map((fn) => {
      const [old, pinned, unpinned] = (v.get(fn) ?? '-/-/-').split('/');
      const out: { old?: string; pinned?: string; unpinned?: string } = {};
      if (old && old !== '-') out.old = old;
      if (pinned && pinned !== '-') out.pinned = pinned;
      if (unpinned && unpinned !== '-') out.unpinned = unpinned;
      return [fn, out];
    }),
  ) as Record<UpgradedFunction, FunctionVersions>;
  const message = tags[TAGS.message];
  const oldUntil = p.has('old-until') ? int('old-until') : undefined;
  return {
    id,
    from: need('from'),
    to: need('to'),
    commit: need('commit'),
    phase: int('phase'),
    done: int('done'),
    step: int('step'),
    status,
    versions,
    ...(message !== undefined && message !== '-' ? { message } : {}),
    ...(oldUntil !== undefined ? { oldUntil } : {}),
  };
}

/** Whether an upgrade holds the deployment (a new one may not start, `cdk deploy` must not move aliases). */
export function inProgress(state: UpgradeState | undefined): boolean {
  return state !== undefined && (state.status === 'running' || state.status === 'stopped' || state.status === 'rolling-back');
}
