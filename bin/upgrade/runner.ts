/**
 * `ironless upgrade`: Ironic's rolling upgrade as a sequence of Lambda calls (see state.ts for the
 * phases). Each phase is idempotent and its completion is recorded in the conductor function's
 * tags before the next starts, so `resume` (or `start` again) continues where a run stopped,
 * crashed or was told to stop (`--until`), and `rollback` knows what to undo.
 */
import { join } from 'node:path';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import type { BuildManifest } from '../../local/build-manifest';
import { resolveTarget } from '../commands/dbsync-target';
import {
  DEFAULT_LIMITS,
  type HealthLimits,
  UpgradeRefused,
  assessHealth,
  pinFor,
  resumePhase,
  rollbackPlan,
  routing,
  startDecision,
  versionsServing,
} from './decisions';
import { type Deployment, checkConductorBundle } from './deployment';
import {
  LAST_PHASE,
  PHASES,
  TAGS,
  type UpgradeState,
  UPGRADED_FUNCTIONS,
  type UpgradedFunction,
  decodeState,
  encodeState,
} from '../../functions/common/upgrade-state';

export interface UpgradeOptions {
  readonly bundles: string;
  readonly manifest: BuildManifest;
  /** Percentages of each shift, ending at 100. */
  readonly steps: readonly number[];
  readonly stepSeconds: number;
  readonly sampleSeconds: number;
  readonly limits?: HealthLimits;
  /** Items per online-migration batch. */
  readonly migrationBatch: number;
  /** Stop (paused, resumable) after this phase. */
  readonly until?: number;
  /** The running release, when the deployment does not say. */
  readonly from?: string;
  readonly say: (line: string) => void;
}

/** 0 done; 2 refused (nothing changed); 3 stopped (degraded, or paused by --until): resume or roll back. */
export interface Outcome {
  readonly exitCode: 0 | 2 | 3;
  readonly state: UpgradeState | undefined;
  readonly message: string;
}

class Stop extends Error {
  override readonly name = 'Stop';
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class UpgradeRun {
  private state!: UpgradeState;

  constructor(
    private readonly dep: Deployment,
    private readonly opts: UpgradeOptions,
  ) {}

  private get fns(): Record<UpgradedFunction, string> {
    const f = this.dep.target.functions;
    return { conductor: f.conductor, api: f.api, dbsync: f.dbsync };
  }

  private async save(patch: Partial<UpgradeState>): Promise<void> {
    this.state = { ...this.state, ...patch };
    await this.dep.tag(encodeState(this.state));
  }

  /** `start` (and `resume`): a new upgrade from phase 1, or the one in progress from where it stands. */
  async start(requireExisting = false): Promise<Outcome> {
    const { manifest, say } = this.opts;
    const tags = await this.dep.tags();
    const existing = decodeState(tags);
    if (requireExisting && (existing === undefined || existing.status === 'complete' || existing.status === 'rolled-back'))
      throw new UpgradeRefused('No upgrade is in progress: start one with `ironless upgrade start`');
    const decision = startDecision(existing, manifest.release, manifest.commit);
    if (decision === 'done') return { exitCode: 0, state: existing, message: `The upgrade to ${manifest.release} is already complete.` };
    if (decision === 'resume' && existing) {
      this.state = { ...existing, status: 'running' };
      say(
        `Resuming the upgrade ${existing.from} → ${existing.to} at phase ${resumePhase(existing)} (${existing.done} of ${LAST_PHASE} done)`,
      );
      return this.runFrom(resumePhase(existing));
    }
    const from = pinFor(tags[TAGS.release], manifest.mapping, this.opts.from);
    if (manifest.dirty) say('Warning: the new bundles were built from a checkout with local changes.');
    say(`Upgrading ${this.dep.target.description} from ${from} to ${manifest.release} (commit ${manifest.commit.slice(0, 12)})`);
    const versions = await this.preflight();
    this.state = {
      id: new Date().toISOString().replace(/[-:]|\.\d+/g, ''),
      from,
      to: manifest.release,
      commit: manifest.commit.slice(0, 12),
      phase: 1,
      done: 1,
      step: 0,
      status: 'running',
      versions: { conductor: { old: versions.conductor }, api: { old: versions.api }, dbsync: { old: versions.dbsync } },
      message: 'preflight passed',
    };
    await this.save({});
    say('Phase 1 done: preflight passed');
    return this.runFrom(2);
  }

  private async runFrom(first: number): Promise<Outcome> {
    for (let phase = first; phase <= LAST_PHASE; phase++) {
      if (this.opts.until !== undefined && phase > this.opts.until) {
        const message = `paused after phase ${this.opts.until} (--until): resume with ironless upgrade resume`;
        await this.save({ status: 'stopped', message });
        return { exitCode: 3, state: this.state, message };
      }
      const title = PHASES[phase - 1]!.title;
      this.opts.say(`Phase ${phase}/${LAST_PHASE}: ${title}`);
      await this.save({ phase, status: 'running', message: title });
      try {
        await this.run(phase);
      } catch (err) {
        if (!(err instanceof Stop)) throw err;
        const message = `stopped in phase ${phase}: ${err.message}`;
        await this.save({ status: 'stopped', message });
        this.opts.say(message);
        this.opts.say('Resume it (ironless upgrade resume) once the cause is fixed, or roll it back (ironless upgrade rollback).');
        return { exitCode: 3, state: this.state, message };
      }
      await this.save({
        done: phase,
        step: 0,
        ...(phase === LAST_PHASE ? { status: 'complete', message: `complete: ${this.state.to} serves` } : {}),
      });
      this.opts.say(`Phase ${phase} done`);
    }
    return { exitCode: 0, state: this.state, message: `The deployment runs ${this.state.to}.` };
  }

  private async run(phase: number): Promise<void> {
    const fns = this.fns;
    const v = () => this.state.versions;
    switch (phase) {
      case 2:
        return this.publishAll('pinned', this.state.from);
      case 3:
        await this.schema();
        await this.dep.route(fns.dbsync, routing(v().dbsync.old!, v().dbsync.pinned!, 100));
        return;
      case 4:
        await this.shift('conductor', v().conductor.old!, v().conductor.pinned!, 0);
        return this.oldRunsUntil('conductor');
      case 5:
        await this.shift('api', v().api.old!, v().api.pinned!, 0);
        return this.oldRunsUntil('api');
      case 6:
        await this.drainOld();
        await this.publishAll('unpinned', undefined);
        await this.shift('conductor', v().conductor.pinned!, v().conductor.unpinned!, 0);
        await this.shift('api', v().api.pinned!, v().api.unpinned!, this.opts.steps.length);
        await this.dep.route(fns.dbsync, routing(v().dbsync.pinned!, v().dbsync.unpinned!, 100));
        return this.others();
      case 7:
        return this.migrate();
      case 8:
        await this.dep.tag({ [TAGS.release]: this.state.to });
        return;
    }
  }

  /** Phase 1: refuse (nothing changed yet) unless the deployment is fit to upgrade. Returns the `live` versions. */
  private async preflight(): Promise<Record<UpgradedFunction, string>> {
    const say = this.opts.say;
    const versions = {} as Record<UpgradedFunction, string>;
    for (const fn of UPGRADED_FUNCTIONS) {
      const alias = await this.dep.alias(this.fns[fn]);
      if (versionsServing(alias).length > 1)
        throw new UpgradeRefused(
          `The ${fn} alias splits traffic between versions ${versionsServing(alias).join(' and ')} outside an upgrade: route it to one version first`,
        );
      versions[fn] = alias.FunctionVersion;
    }
    say(`  live versions: conductor ${versions.conductor}, api ${versions.api}, dbsync ${versions.dbsync}`);
    checkConductorBundle(await this.dep.environment(this.fns.conductor, versions.conductor), join(this.opts.bundles, 'conductor'));
    const depth = await this.dep.dlqDepth();
    if (depth > 0)
      throw new UpgradeRefused(
        `${depth} message(s) wait in the conductor dead-letter queues: look at them and redrive or purge them first`,
      );
    say('  dead-letter queues: empty');
    const dead = await this.dep.deadConductors([versions.conductor]);
    if (dead.length > 0)
      throw new UpgradeRefused(`Conductor ${dead.join(', ')} is not alive (no recent heartbeat): fix it before upgrading`);
    say(`  conductor ${this.fns.conductor}:${versions.conductor}: alive`);
    const check = await this.dep.dbsync(versions.dbsync, { command: 'upgrade' });
    if (check.exitCode !== 0)
      throw new UpgradeRefused(`dbsync upgrade (running release) exits ${check.exitCode}: ${[...check.errors, ...check.lines].join(' ')}`);
    say('  dbsync upgrade: the running release reads every item');
    const report = await this.dep.dbsync(versions.dbsync, { command: 'version' });
    const objects =
      (report.data as { objects?: { object: string; writes: string; inUse: Record<string, number> }[] } | undefined)?.objects ?? [];
    const pending = objects.flatMap((o) =>
      Object.entries(o.inUse)
        .filter(([version, n]) => version !== o.writes && n > 0)
        .map(([version, n]) => `${n} ${o.object} at ${version}`),
    );
    if (pending.length > 0)
      throw new UpgradeRefused(
        `Online data migrations of the running release are not done (${pending.join(', ')}): run \`ironless dbsync online-data-migrations\` first`,
      );
    say('  online data migrations: none pending');
    return versions;
  }

  private async publishAll(kind: 'pinned' | 'unpinned', pin: string | undefined): Promise<void> {
    const { manifest, bundles, say } = this.opts;
    for (const fn of UPGRADED_FUNCTIONS) {
      if (this.state.versions[fn][kind] !== undefined) continue;
      const description = `ironless ${manifest.release} ${manifest.commit.slice(0, 12)}${pin ? ` pinned to ${pin}` : ''}`;
      const version = await this.dep.publish(this.fns[fn], join(bundles, fn), manifest, pin, description);
      await this.save({ versions: { ...this.state.versions, [fn]: { ...this.state.versions[fn], [kind]: version } } });
      say(`  published ${this.fns[fn]}:${version} (${kind === 'pinned' ? `PIN_RELEASE_VERSION=${pin}` : 'unpinned'})`);
    }
    const conductor = this.state.versions.conductor[kind]!;
    await this.dep.heartbeat(conductor);
    say(`  conductor ${this.fns.conductor}:${conductor} registered`);
  }

  /** Phase 3: the new code's tables and indexes (created locally; on AWS the stack's), then its dbsync check. */
  private async schema(): Promise<void> {
    const say = this.opts.say;
    const where = this.dep.target.where;
    if (this.dep.target.kind === 'local') {
      const target = await resolveTarget({ data: where.data!, segments: 4 });
      try {
        const applied = (await target.ctx.applySchema?.()) ?? [];
        for (const line of applied) say(`  ${line}`);
        if (applied.length === 0) say('  tables and indexes: nothing to add');
      } finally {
        await target.close();
      }
    } else {
      for (const [logical, def] of Object.entries(this.opts.manifest.tables)) {
        const name = this.dep.target.tableName(logical);
        const table = name ? (await this.dep.target.dynamodb.send(new DescribeTableCommand({ TableName: name }))).Table : undefined;
        const missing = def.indexes.filter(
          (i) => !(table?.GlobalSecondaryIndexes ?? []).some((g) => g.IndexName === i.name && g.IndexStatus === 'ACTIVE'),
        );
        if (table === undefined || table.TableStatus !== 'ACTIVE' || missing.length > 0)
          throw new Stop(
            `table ${logical} or its indexes are not deployed and active: run cdk deploy -c rollout=ironless-upgrade, then resume`,
          );
      }
      say('  every table and index of the new release is deployed');
    }
    const check = await this.dep.dbsync(this.state.versions.dbsync.pinned!, { command: 'upgrade' });
    if (check.exitCode !== 0)
      throw new Stop(`the new release's dbsync upgrade exits ${check.exitCode}: ${[...check.errors, ...check.lines].join(' ')}`);
    say('  dbsync upgrade (new release, pinned): every item is readable');
  }

  /**
   * Move `fn`'s alias from `current` to `next` in the configured steps, watching each; `offset`
   * numbers the steps within the phase (phase 6 shifts two aliases), so a resume skips those done.
   */
  private async shift(fnKey: UpgradedFunction, current: string, next: string, offset: number): Promise<void> {
    const fn = this.fns[fnKey];
    const steps = this.opts.steps;
    for (let i = 0; i < steps.length; i++) {
      if (offset + i < this.state.step) continue;
      const percent = steps[i]!;
      await this.dep.route(fn, routing(current, next, percent));
      this.opts.say(`  ${fn}: ${percent}% → version ${next}${percent < 100 ? `, ${100 - percent}% → version ${current}` : ''}`);
      await this.watch(fnKey, current, next, percent);
      await this.save({ step: offset + i + 1 });
    }
  }

  private async watch(fnKey: UpgradedFunction, current: string, next: string, percent: number): Promise<void> {
    const { stepSeconds, sampleSeconds, say } = this.opts;
    const fn = this.fns[fnKey];
    const started = new Date();
    const until = started.getTime() + stepSeconds * 1000;
    for (;;) {
      await sleep(Math.min(sampleSeconds * 1000, Math.max(0, until - Date.now())));
      const conductorAlias = await this.dep.alias(this.fns.conductor);
      const serving = versionsServing(conductorAlias);
      // EventBridge's heartbeat reaches the alias, so a version with a small share may miss it: beat each.
      for (const version of serving) await this.dep.heartbeat(version);
      const now = new Date();
      const [nextMetrics, currentMetrics, dlqDepth, deadConductors, api] = await Promise.all([
        this.dep.versionMetrics(fn, next, started, now),
        this.dep.versionMetrics(fn, current, started, now),
        this.dep.dlqDepth(),
        this.dep.deadConductors(serving),
        fnKey === 'api' ? this.dep.apiMetrics(started, now) : Promise.resolve(undefined),
      ]);
      const reasons = assessHealth(
        { next: nextMetrics, current: currentMetrics, dlqDepth, deadConductors, ...(api ? { api } : {}) },
        this.opts.limits ?? DEFAULT_LIMITS,
      );
      const left = Math.max(0, Math.round((until - now.getTime()) / 1000));
      say(
        `    ${percent}%: v${next} ${nextMetrics.invocations} calls, ${nextMetrics.errors} errors; v${current} ${currentMetrics.invocations} calls, ${currentMetrics.errors} errors` +
          `${api ? `; API ${api.count} requests, ${api.errors5xx} 5xx` : ''}; DLQ ${dlqDepth}; conductors ${deadConductors.length === 0 ? 'alive' : `DEAD: ${deadConductors.join(', ')}`}; ${left} s left`,
      );
      if (reasons.length > 0) throw new Stop(`${fn} at ${percent}% on version ${next}: ${reasons.join('; ')}`);
      if (now.getTime() >= until) return;
    }
  }

  /**
   * Once an alias no longer routes to the old version, an invocation it started may still run for
   * the function's timeout: note until when (the later of the conductor's and the API's).
   */
  private async oldRunsUntil(fnKey: UpgradedFunction): Promise<void> {
    const old = this.state.versions[fnKey].old!;
    const timeout = await this.dep.timeoutSeconds(this.fns[fnKey], old);
    const until = Math.ceil(Date.now() / 1000) + timeout;
    await this.save({ oldUntil: Math.max(this.state.oldUntil ?? 0, until) });
  }

  /** Before anything writes the new versions: wait out every invocation the old release may still be running. */
  private async drainOld(): Promise<void> {
    const until = this.state.oldUntil;
    if (until === undefined) return;
    const left = until * 1000 - Date.now();
    if (left <= 0) return;
    this.opts.say(`  waiting ${Math.ceil(left / 1000)} s for invocations the old release started to end (its functions' timeout)`);
    await sleep(left);
  }

  /** Functions beside the three (the authorizer, the web console): new code, no pin, moved at once. */
  private async others(): Promise<void> {
    const { manifest, bundles, say } = this.opts;
    for (const fn of this.dep.target.functions.others) {
      const logical = manifest.functions.find((f) => fn === f || fn.toLowerCase().includes(f));
      if (logical === undefined) continue;
      const version = await this.dep.publish(
        fn,
        join(bundles, logical),
        manifest,
        undefined,
        `ironless ${manifest.release} ${manifest.commit.slice(0, 12)}`,
      );
      await this.dep.route(fn, routing(version, version, 100));
      say(`  ${fn}: version ${version}`);
    }
  }

  /** Phase 7: the new release's online data migrations, batch by batch, then its dbsync check. */
  private async migrate(): Promise<void> {
    const dbsync = this.state.versions.dbsync.unpinned!;
    for (let batch = 1; ; batch++) {
      const out = await this.dep.dbsync(dbsync, { command: 'online-data-migrations', maxCount: this.opts.migrationBatch });
      for (const line of out.lines) this.opts.say(`  [${batch}] ${line}`);
      if (out.exitCode === 0) break;
      if (out.exitCode !== 1) throw new Stop(`online-data-migrations exits ${out.exitCode}: ${out.errors.join(' ')}`);
    }
    const check = await this.dep.dbsync(dbsync, { command: 'upgrade' });
    if (check.exitCode !== 0) throw new Stop(`dbsync upgrade after the migrations exits ${check.exitCode}: ${check.errors.join(' ')}`);
    this.opts.say('  dbsync upgrade: exit 0, every item at a version this release reads');
  }

  /** Shift every alias back to the version it had before the upgrade (refused once unpinned). */
  async rollback(): Promise<Outcome> {
    const existing = decodeState(await this.dep.tags());
    const plan = rollbackPlan(existing);
    if (existing === undefined || plan.length === 0) return { exitCode: 0, state: existing, message: 'Already rolled back.' };
    this.state = existing;
    await this.save({ status: 'rolling-back', message: `rolling back from phase ${existing.phase}` });
    for (const move of plan) {
      const fn = this.fns[move.fn];
      await this.dep.route(fn, routing(move.to, move.to, 100));
      this.opts.say(`  ${fn}: all traffic → version ${move.to}`);
    }
    const message = `rolled back: ${existing.from} serves again (the upgrade had reached phase ${existing.phase})`;
    await this.save({ status: 'rolled-back', message });
    return { exitCode: 0, state: this.state, message };
  }
}
