/**
 * The decisions of `ironless upgrade`, apart from the calls that carry them out: which release to
 * pin to, how an alias routes at each step, when a shift is healthy enough to go on, where a
 * resumed upgrade picks up, and what a rollback undoes. Pure, so each is unit-tested alone.
 */
import type { ReleaseMappings } from '../../functions/common/releases';
import {
  type FunctionVersions,
  LAST_PHASE,
  type UpgradeState,
  UPGRADED_FUNCTIONS,
  type UpgradedFunction,
  inProgress,
} from '../../functions/common/upgrade-state';

export class UpgradeRefused extends Error {
  override readonly name = 'UpgradeRefused';
}

/** Parse `--steps "10,50,100"`: increasing percentages ending at 100. */
export function parseSteps(text: string): number[] {
  const steps = text.split(',').map((s) => Number(s.trim()));
  if (steps.length === 0 || steps.some((s) => !Number.isFinite(s) || s <= 0 || s > 100))
    throw new UpgradeRefused(`--steps takes percentages in (0, 100] separated by commas, e.g. 10,50,100: "${text}"`);
  for (let i = 1; i < steps.length; i++) {
    if (steps[i]! <= steps[i - 1]!) throw new UpgradeRefused(`--steps must increase: "${text}"`);
  }
  if (steps[steps.length - 1] !== 100) throw new UpgradeRefused(`--steps must end at 100 (all traffic on the new version): "${text}"`);
  return steps;
}

/** How an alias routes with `percent` of its traffic on `next` and the rest on `current` (Lambda's UpdateAlias). */
export interface AliasRouting {
  readonly FunctionVersion: string;
  readonly RoutingConfig: { readonly AdditionalVersionWeights: Record<string, number> };
}

export function routing(current: string, next: string, percent: number): AliasRouting {
  if (percent >= 100 || current === next) return { FunctionVersion: next, RoutingConfig: { AdditionalVersionWeights: {} } };
  if (percent <= 0) return { FunctionVersion: current, RoutingConfig: { AdditionalVersionWeights: {} } };
  return { FunctionVersion: current, RoutingConfig: { AdditionalVersionWeights: { [next]: Math.round(percent * 100) / 10_000 } } };
}

/** The versions an alias sends traffic to (primary first). */
export function versionsServing(alias: {
  FunctionVersion?: string;
  RoutingConfig?: { AdditionalVersionWeights?: Record<string, number> };
}): string[] {
  const extra = Object.entries(alias.RoutingConfig?.AdditionalVersionWeights ?? {})
    .filter(([, weight]) => weight > 0)
    .map(([version]) => version);
  return [...(alias.FunctionVersion ? [alias.FunctionVersion] : []), ...extra];
}

/**
 * The release the new code must be pinned to: the one the deployment runs. It must be a row of
 * the new code's release mapping (Ironic supports upgrades from the previous named release only).
 */
export function pinFor(running: string | undefined, newMapping: ReleaseMappings, override?: string): string {
  const from = override ?? running;
  if (from === undefined || from === '')
    throw new UpgradeRefused(
      'The running release is unknown (no ironless:release tag on the conductor function): say it with --from RELEASE',
    );
  if (from === 'master')
    throw new UpgradeRefused(
      'The deployment runs unreleased code ("master"): upgrades go from a named release, so the new code can be pinned to it. Say which release it is with --from RELEASE',
    );
  if (newMapping[from] === undefined) {
    const known = Object.keys(newMapping).filter((r) => r !== 'master');
    throw new UpgradeRefused(
      `The new code cannot be pinned to ${from}: its release mapping knows ${known.join(', ')}. Upgrade release by release.`,
    );
  }
  return from;
}

/** What the watch measured over a shift step. */
export interface HealthSample {
  /** Invocations and errors of the version being shifted to, and of the one being shifted from. */
  readonly next: { readonly invocations: number; readonly errors: number };
  readonly current: { readonly invocations: number; readonly errors: number };
  /** Messages waiting in the conductor dead-letter queues. */
  readonly dlqDepth: number;
  /** Conductor versions serving traffic whose registration is missing, offline or stale. */
  readonly deadConductors: readonly string[];
  /** API Gateway, while the API alias shifts: 5xx answers and all answers. */
  readonly api?: { readonly count: number; readonly errors5xx: number };
}

export interface HealthLimits {
  /** Highest acceptable error rate of the new version (and of the API's 5xx). */
  readonly maxErrorRate: number;
  /** Invocations below which a rate says nothing (a version with 1 error in 3 calls is not judged). */
  readonly minInvocations: number;
}

export const DEFAULT_LIMITS: HealthLimits = { maxErrorRate: 0.01, minInvocations: 20 };

function rate(s: { invocations: number; errors: number }): number {
  return s.invocations === 0 ? 0 : s.errors / s.invocations;
}

/**
 * Why a shift step is unhealthy (empty: go on). The new version's error rate counts only when it
 * exceeds both the limit and twice the old version's rate over the same window: a flaky BMC that
 * fails both versions' calls is the fleet's trouble, not the release's.
 */
export function assessHealth(sample: HealthSample, limits: HealthLimits = DEFAULT_LIMITS): string[] {
  const reasons: string[] = [];
  if (sample.dlqDepth > 0) reasons.push(`${sample.dlqDepth} message(s) in the conductor dead-letter queues`);
  if (sample.deadConductors.length > 0) reasons.push(`conductor(s) not alive: ${sample.deadConductors.join(', ')}`);
  if (sample.next.invocations >= limits.minInvocations) {
    const next = rate(sample.next);
    const current = rate(sample.current);
    if (next > limits.maxErrorRate && next > 2 * current)
      reasons.push(
        `new version error rate ${(next * 100).toFixed(1)}% (${sample.next.errors}/${sample.next.invocations}) over the limit ${(limits.maxErrorRate * 100).toFixed(1)}%` +
          (sample.current.invocations > 0 ? `, old version ${(current * 100).toFixed(1)}%` : ''),
      );
  }
  if (sample.api !== undefined && sample.api.count >= limits.minInvocations) {
    const r = sample.api.errors5xx / sample.api.count;
    if (r > limits.maxErrorRate) reasons.push(`API 5xx rate ${(r * 100).toFixed(1)}% (${sample.api.errors5xx}/${sample.api.count})`);
  }
  return reasons;
}

/** What `start` may do given the state the tags hold. */
export function startDecision(state: UpgradeState | undefined, to: string, commit: string): 'new' | 'resume' | 'done' {
  if (state === undefined || state.status === 'rolled-back') return 'new';
  if (state.status === 'complete') return state.commit === commit.slice(0, 12) && state.to === to ? 'done' : 'new';
  if (state.commit !== commit.slice(0, 12))
    throw new UpgradeRefused(
      `An upgrade to ${state.to} (commit ${state.commit}) is ${state.status} at phase ${state.phase}: resume it with its bundles, or roll it back, before starting another`,
    );
  return 'resume';
}

/** The phase a run continues with: the one after the last completed. */
export function resumePhase(state: UpgradeState): number {
  return Math.min(state.done + 1, LAST_PHASE);
}

/** One alias move of a rollback. */
export interface RollbackMove {
  readonly fn: UpgradedFunction;
  readonly to: string;
}

/**
 * What a rollback does: every upgraded alias back to the version it had, API first (a pinned API
 * in front of old conductors is a state of the upgrade; new conductors behind an old API are too).
 * Refused once an unpinned version exists: from then on items may be written at versions the old
 * release cannot read (Ironic supports no downgrade past unpinning either).
 */
export function rollbackPlan(state: UpgradeState | undefined): RollbackMove[] {
  if (state === undefined) throw new UpgradeRefused('No upgrade was started: nothing to roll back');
  if (state.status === 'rolled-back') return [];
  if (state.status === 'complete') throw new UpgradeRefused(`The upgrade to ${state.to} is complete: there is nothing to roll back to`);
  if (UPGRADED_FUNCTIONS.some((fn) => state.versions[fn].unpinned !== undefined) || state.done >= 6)
    throw new UpgradeRefused(
      `The upgrade to ${state.to} has published unpinned versions (phase 6): items may already be written at versions ${state.from} cannot read. Resume it instead.`,
    );
  const order: UpgradedFunction[] = ['api', 'conductor', 'dbsync'];
  return order
    .filter((fn) => state.versions[fn].old !== undefined)
    .map((fn) => ({ fn, to: (state.versions[fn] as Required<FunctionVersions>).old }));
}

/** Whether `status`/`start` should say an upgrade holds the deployment. */
export { inProgress };
