/**
 * `GET /ironless/v1/upgrade`: Ironless's rolling upgrade as the web console shows it (Ironic's v1
 * API has nothing for it). The truth is where `ironless upgrade` keeps it, the conductor
 * function's tags, and the `live` aliases themselves; read through the Lambda API, cached a few
 * seconds per execution environment so a console polling every few seconds costs little.
 */
import { GetAliasCommand, type LambdaClient, ListTagsCommand } from '@aws-sdk/client-lambda';
import { PHASES, TAGS, type UpgradeState, UPGRADED_FUNCTIONS, decodeState } from '#common/upgrade-state';

export interface AliasView {
  readonly version: string;
  readonly weights: Record<string, number>;
}

export interface UpgradeView {
  /** idle (no upgrade ever ran), in-progress, stopped, complete, rolled-back. */
  readonly state: string;
  /** The release the deployment runs (`ironless:release`). */
  readonly release: string | null;
  readonly phase?: { number: number; name: string; title: string; done: number };
  readonly from?: { release: string };
  readonly to?: { release: string; pinned: boolean; commit: string };
  readonly aliases: Record<string, AliasView>;
  /** Per function, per version: which release it runs and whether pinned. */
  readonly versions?: Record<string, Record<string, { release: string; pinned: boolean }>>;
  readonly message?: string;
}

/** The console's view of the tags and aliases (pure). */
export function upgradeView(tags: Readonly<Record<string, string>>, aliases: Record<string, AliasView>): UpgradeView {
  let state: UpgradeState | undefined;
  try {
    state = decodeState(tags);
  } catch {
    state = undefined;
  }
  const release = tags[TAGS.release] ?? null;
  if (state === undefined) return { state: 'idle', release, aliases };
  const phase = PHASES[state.phase - 1] ?? PHASES[0];
  const versions: Record<string, Record<string, { release: string; pinned: boolean }>> = {};
  for (const fn of UPGRADED_FUNCTIONS) {
    const v = state.versions[fn];
    const out: Record<string, { release: string; pinned: boolean }> = {};
    if (v.old) out[v.old] = { release: state.from, pinned: false };
    if (v.pinned) out[v.pinned] = { release: state.to, pinned: true };
    if (v.unpinned) out[v.unpinned] = { release: state.to, pinned: false };
    versions[fn] = out;
  }
  const status = state.status === 'running' || state.status === 'rolling-back' ? 'in-progress' : state.status;
  return {
    state: status,
    release,
    phase: { number: phase.phase, name: phase.key, title: phase.title, done: state.done },
    from: { release: state.from },
    to: { release: state.to, pinned: state.done < 6 && state.versions.conductor.unpinned === undefined, commit: state.commit },
    aliases,
    versions,
    ...(state.message ? { message: state.message } : {}),
  };
}

/** Reads the upgrade's state for the API; each answer is kept `cacheMs`. */
export function upgradeStatusReader(
  lambda: LambdaClient,
  functions: { conductor: string; api: string },
  cacheMs = 5_000,
  now: () => number = Date.now,
): () => Promise<UpgradeView> {
  let cached: { at: number; view: Promise<UpgradeView> } | undefined;
  // The conductor's ARN as the API knows it is its alias's: tags live on the unqualified function.
  const conductor = functions.conductor.replace(/^(arn:[^:]+:lambda:[^:]+:[^:]+:function:[^:]+):[^:]+$/, '$1');
  const read = async (): Promise<UpgradeView> => {
    const [tags, ...aliases] = await Promise.all([
      lambda.send(new ListTagsCommand({ Resource: conductor })),
      ...[conductor, functions.api].map((fn) => lambda.send(new GetAliasCommand({ FunctionName: fn, Name: 'live' }))),
    ]);
    const names = ['conductor', 'api'];
    const view = Object.fromEntries(
      aliases.map((a, i) => [
        names[i],
        { version: a.FunctionVersion ?? '$LATEST', weights: a.RoutingConfig?.AdditionalVersionWeights ?? {} },
      ]),
    );
    return upgradeView(tags.Tags ?? {}, view);
  };
  return () => {
    if (cached === undefined || now() - cached.at > cacheMs) {
      const view = read();
      cached = { at: now(), view };
      // A failed read is not kept: the next request tries again.
      view.catch(() => {
        if (cached?.view === view) cached = undefined;
      });
    }
    return cached.view;
  };
}
