/**
 * `ironless upgrade start|status|resume|rollback`: Ironic's rolling upgrade on a deployment, as
 * Lambda version publishing and alias shifts (bin/upgrade/). Exit codes: 0 done, 1 failed
 * (an error the command did not expect), 2 refused (nothing changed), 3 stopped (unhealthy
 * shift or --until): resume or roll back.
 */
import { resolve } from 'node:path';
import Table from 'cli-table3';
import { type Command, Option } from 'commander';
import { readBuildManifest } from '../../local/build-manifest';
import { DEFAULT_LIMITS, UpgradeRefused, parseSteps, versionsServing } from '../upgrade/decisions';
import { ALIAS, Deployment } from '../upgrade/deployment';
import { type Outcome, UpgradeRun } from '../upgrade/runner';
import { LAST_PHASE, PHASES, TAGS, type UpgradeState, UPGRADED_FUNCTIONS, decodeState } from '../../functions/common/upgrade-state';
import { resolveUpgradeTarget } from '../upgrade/target';
import { positiveInteger } from './options';

interface Common {
  data?: string;
  stack?: string;
  region?: string;
  json?: boolean;
}

interface RunOptions extends Common {
  bundles: string;
  steps: string;
  stepSeconds: number;
  sampleSeconds: number;
  maxErrorRate: number;
  migrationBatch: number;
  until?: number;
  from?: string;
}

function rate(value: string): number {
  const n = Number(value);
  if (!(n >= 0 && n <= 1)) throw new Error(`expected a rate in [0, 1]: ${value}`);
  return n;
}

function phaseNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > LAST_PHASE) throw new Error(`expected a phase 1-${LAST_PHASE}: ${value}`);
  return n;
}

function targetOptions(cmd: Command): Command {
  return cmd
    .option('--data <dir>', 'the local stack running from this folder', '.ironless')
    .option('--stack <name>', 'a deployed stack (its CloudFormation outputs name everything)')
    .option('--region <region>', 'AWS region of --stack')
    .option('--json', 'print the outcome as JSON (for scripts)');
}

function runOptions(cmd: Command): Command {
  return targetOptions(cmd)
    .requiredOption('--bundles <dir>', 'bundles of the release to upgrade to (npx ironless build --out DIR)')
    .option('--steps <percents>', 'traffic shares of each alias shift', '10,50,100')
    .option('--step-seconds <s>', 'how long each step is watched before the next', positiveInteger, 300)
    .option('--sample-seconds <s>', 'how often health is sampled within a step', positiveInteger, 15)
    .option('--max-error-rate <r>', "the new version's highest acceptable error rate", rate, DEFAULT_LIMITS.maxErrorRate)
    .option('--migration-batch <n>', 'items per online data migration batch', positiveInteger, 500)
    .addOption(new Option('--until <phase>', 'pause after this phase (resume later)').argParser(phaseNumber))
    .option('--from <release>', 'the release the deployment runs, if its conductor function has no ironless:release tag');
}

function phaseTable(state: UpgradeState | undefined): string {
  const table = new Table({ head: ['Phase', 'What', 'State'] });
  for (const p of PHASES) {
    let mark = 'pending';
    if (state !== undefined) {
      if (p.phase <= state.done) mark = 'done';
      else if (p.phase === state.phase) mark = state.status;
    }
    table.push([String(p.phase), p.title, mark]);
  }
  return table.toString();
}

function print(outcome: Outcome, json: boolean | undefined, extra: Record<string, unknown> = {}): void {
  if (json) {
    console.log(
      JSON.stringify({ exitCode: outcome.exitCode, message: outcome.message, upgrade: outcome.state ?? null, ...extra }, null, 2),
    );
    return;
  }
  console.log(phaseTable(outcome.state));
  console.log(outcome.message);
}

async function withDeployment<T>(opts: Common, work: (dep: Deployment) => Promise<T>): Promise<T> {
  const target = await resolveUpgradeTarget({
    ...(opts.stack !== undefined ? { stack: opts.stack } : { data: opts.data ?? '.ironless' }),
    ...(opts.region !== undefined ? { region: opts.region } : {}),
  });
  try {
    return await work(new Deployment(target));
  } finally {
    target.close();
  }
}

async function exitWith(opts: Common, action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (err) {
    const refused = err instanceof UpgradeRefused;
    if (opts.json) console.log(JSON.stringify({ exitCode: refused ? 2 : 1, error: (err as Error).message }));
    else console.error(`${refused ? 'Refused' : 'Failed'}: ${(err as Error).message}`);
    process.exit(refused ? 2 : 1);
  }
}

function run(kind: 'start' | 'resume') {
  return (opts: RunOptions) =>
    exitWith(opts, async () => {
      const bundles = resolve(opts.bundles);
      const manifest = readBuildManifest(bundles);
      if (manifest === undefined)
        throw new UpgradeRefused(
          `${bundles} has no manifest.json: build the new release's bundles with \`npx ironless build --out ${opts.bundles}\``,
        );
      const outcome = await withDeployment(opts, (dep) =>
        new UpgradeRun(dep, {
          bundles,
          manifest,
          steps: parseSteps(opts.steps),
          stepSeconds: opts.stepSeconds,
          sampleSeconds: Math.min(opts.sampleSeconds, opts.stepSeconds),
          limits: { ...DEFAULT_LIMITS, maxErrorRate: opts.maxErrorRate },
          migrationBatch: opts.migrationBatch,
          ...(opts.until !== undefined ? { until: opts.until } : {}),
          ...(opts.from !== undefined ? { from: opts.from } : {}),
          say: opts.json ? (line) => console.error(line) : (line) => console.log(line),
        }).start(kind === 'resume'),
      );
      print(outcome, opts.json);
      process.exitCode = outcome.exitCode;
    });
}

export function registerUpgrade(program: Command): void {
  const upgrade = program
    .command('upgrade')
    .description("Ironic's rolling upgrade as Lambda alias shifts: pinned conductors, pinned API, unpin, online data migrations");
  runOptions(upgrade.command('start').description('start an upgrade to the release in --bundles (or continue the one in progress)')).action(
    run('start'),
  );
  runOptions(upgrade.command('resume').description('continue the upgrade in progress from where it stopped')).action(run('resume'));
  targetOptions(upgrade.command('status').description('the upgrade in progress (or the last one): phases, versions, aliases')).action(
    (opts: Common) =>
      exitWith(opts, async () => {
        await withDeployment(opts, async (dep) => {
          const tags = await dep.tags();
          const state = decodeState(tags);
          const fns = dep.target.functions;
          const aliases: Record<string, { FunctionVersion: string; weights: Record<string, number> }> = {};
          for (const fn of UPGRADED_FUNCTIONS) {
            const alias = await dep.alias(fns[fn]);
            aliases[fn] = { FunctionVersion: alias.FunctionVersion, weights: alias.RoutingConfig?.AdditionalVersionWeights ?? {} };
          }
          const release = tags[TAGS.release] ?? 'unknown';
          const message = state
            ? `Upgrade ${state.from} → ${state.to}: ${state.status}, phase ${state.phase}${state.message ? ` (${state.message})` : ''}`
            : `No upgrade has run; the deployment runs ${release}.`;
          if (opts.json) {
            print({ exitCode: 0, state, message }, true, { release, aliases });
            return;
          }
          console.log(`${dep.target.description}: runs ${release}`);
          const table = new Table({ head: ['Function', `Alias ${ALIAS}`, 'Old', 'Pinned', 'Unpinned'] });
          for (const fn of UPGRADED_FUNCTIONS) {
            const a = aliases[fn]!;
            const serving = versionsServing({ FunctionVersion: a.FunctionVersion, RoutingConfig: { AdditionalVersionWeights: a.weights } });
            const routingText =
              serving.length > 1
                ? `${a.FunctionVersion} + ${Object.entries(a.weights)
                    .map(([v, w]) => `${v} at ${Math.round(w * 100)}%`)
                    .join(', ')}`
                : a.FunctionVersion;
            const v = state?.versions[fn];
            table.push([fns[fn], routingText, v?.old ?? '-', v?.pinned ?? '-', v?.unpinned ?? '-']);
          }
          console.log(table.toString());
          print({ exitCode: 0, state, message }, false);
        });
      }),
  );
  targetOptions(upgrade.command('rollback').description('shift every alias back to the old release (before unpinning only)')).action(
    (opts: Common) =>
      exitWith(opts, async () => {
        const outcome = await withDeployment(opts, (dep) =>
          new UpgradeRun(dep, {
            bundles: '',
            manifest: { release: '', commit: '', dirty: false, builtAt: '', mapping: {}, tables: {}, functions: [] },
            steps: [100],
            stepSeconds: 1,
            sampleSeconds: 1,
            migrationBatch: 1,
            say: opts.json ? (line) => console.error(line) : (line) => console.log(line),
          }).rollback(),
        );
        print(outcome, opts.json);
        process.exitCode = outcome.exitCode;
      }),
  );
}
