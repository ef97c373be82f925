/**
 * `GET /ironless/v1/upgrade`: the console's view of the upgrade's tags and the `live` aliases, and
 * the reader that fetches them through the Lambda API (a fake client: unit test), caching a few
 * seconds and never keeping a failure.
 */
import type { LambdaClient } from '@aws-sdk/client-lambda';
import { upgradeStatusReader, upgradeView } from '../../../functions/api/upgrade-status';
import { TAGS, encodeState } from '../../../functions/common/upgrade-state';

const aliases = { conductor: { version: '1', weights: { '2': 0.1 } }, api: { version: '1', weights: {} } };
const tags = {
  [TAGS.release]: '2026.3',
  ...encodeState({
    id: '20261125T090000Z',
    from: '2026.3',
    to: 'master',
    commit: 'abcdef012345',
    phase: 4,
    done: 3,
    step: 0,
    status: 'running',
    versions: { conductor: { old: '1', pinned: '2' }, api: { old: '1', pinned: '2' }, dbsync: { old: '1', pinned: '2' } },
    message: 'Shift the conductor alias',
  }),
};

describe('upgradeView', () => {
  it('is idle without an upgrade, naming the release the deployment runs', () => {
    expect(upgradeView({ [TAGS.release]: '2026.3' }, aliases)).toEqual({ state: 'idle', release: '2026.3', aliases });
  });

  it('shows the phase, the releases, the aliases and which version runs what', () => {
    const view = upgradeView(tags, aliases);
    expect(view).toMatchObject({
      state: 'in-progress',
      release: '2026.3',
      phase: { number: 4, name: 'shift-conductor', done: 3 },
      from: { release: '2026.3' },
      to: { release: 'master', pinned: true, commit: 'abcdef012345' },
      message: 'Shift the conductor alias',
    });
    expect(view.versions?.conductor).toEqual({ '1': { release: '2026.3', pinned: false }, '2': { release: 'master', pinned: true } });
  });

  it('reads a damaged tag as no upgrade rather than failing the console', () => {
    expect(upgradeView({ [TAGS.upgrade]: 'garbage' }, aliases).state).toBe('idle');
  });
});

describe('upgradeStatusReader', () => {
  function fakeLambda(fail = false) {
    const calls: { name: string; input: Record<string, unknown> }[] = [];
    const client = {
      send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
        calls.push({ name: command.constructor.name, input: command.input });
        if (fail) throw new Error('AccessDeniedException');
        if (command.constructor.name === 'ListTagsCommand') return { Tags: tags };
        return command.input.FunctionName === 'api'
          ? { FunctionVersion: '1' }
          : { FunctionVersion: '1', RoutingConfig: { AdditionalVersionWeights: { '2': 0.1 } } };
      },
    };
    return { client: client as unknown as LambdaClient, calls };
  }

  it('reads the tags of the unqualified conductor function and both aliases, then caches', async () => {
    const { client, calls } = fakeLambda();
    let now = 0;
    const read = upgradeStatusReader(
      client,
      { conductor: 'arn:aws:lambda:us-east-1:000000000000:function:conductor:live', api: 'api' },
      5_000,
      () => now,
    );
    const view = await read();
    expect(view.aliases).toEqual(aliases);
    expect(calls.find((c) => c.name === 'ListTagsCommand')?.input).toEqual({
      Resource: 'arn:aws:lambda:us-east-1:000000000000:function:conductor',
    });
    await read();
    expect(calls).toHaveLength(3);
    now = 6_000;
    await read();
    expect(calls).toHaveLength(6);
  });

  it('does not keep a failed read', async () => {
    const { client, calls } = fakeLambda(true);
    const read = upgradeStatusReader(client, { conductor: 'conductor', api: 'api' }, 5_000, () => 0);
    await expect(read()).rejects.toThrow('AccessDenied');
    await expect(read()).rejects.toThrow('AccessDenied');
    expect(calls.length).toBe(6);
  });
});
