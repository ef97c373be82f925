/** The deploy guard's decisions, with AWS replaced by an in-memory account. */
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import {
  type GuardPorts,
  TAGS,
  isRollback,
  liveVersionId,
  onEvent,
  parseLiveVersionId,
  refusal,
  upgradeStatus,
} from '../../../functions/deploy-guard/guard';

const STACK_ID = 'arn:aws:cloudformation:us-east-1:123456789012:stack/Ironless/0a1b2c3d-0000-0000-0000-000000000000';
const CONDUCTOR = 'Ironless-ConductorFunction-ABC';
const API = 'Ironless-ApiFunction-DEF';
const RUNNING = 'id=20261125T081500Z from=2026.3 to=master commit=537ea91c0ffe phase=4 done=3 step=1 status=running';

/** An account with a stack, functions, aliases and tags; every call is recorded. */
function account(
  init: { status?: string; conductorExists?: boolean; tags?: Record<string, string>; aliases?: Record<string, string> } = {},
) {
  const tags: Record<string, Record<string, string>> = { [CONDUCTOR]: { ...(init.tags ?? {}) }, [API]: {} };
  const aliases: Record<string, string> = { ...(init.aliases ?? {}) };
  const published: string[] = [];
  const calls: string[] = [];
  const ports: GuardPorts = {
    stackStatus: async () => init.status ?? 'UPDATE_IN_PROGRESS',
    physicalResourceId: async (_stack, logicalId) =>
      logicalId === 'ConductorFunction0E57413A' && init.conductorExists !== false ? CONDUCTOR : undefined,
    listTags: async (fn) => {
      calls.push(`listTags ${fn}`);
      return { ...(tags[fn] ?? {}) };
    },
    tag: async (fn, added) => {
      calls.push(`tag ${fn} ${JSON.stringify(added)}`);
      tags[fn] = { ...(tags[fn] ?? {}), ...added };
    },
    aliasVersion: async (fn) => aliases[fn],
    publishVersion: async (fn) => {
      const version = String(published.length + 1);
      published.push(`${fn}:${version}`);
      return version;
    },
    log: () => undefined,
  };
  return { ports, tags, aliases, published, calls };
}

function event(
  requestType: 'Create' | 'Update',
  properties: Record<string, string>,
  physicalResourceId = 'unused',
): CloudFormationCustomResourceEvent {
  const common = {
    ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:provider',
    ResponseURL: 'https://example.com',
    StackId: STACK_ID,
    RequestId: 'r1',
    LogicalResourceId: 'X',
    ResourceType: 'Custom::X',
    ResourceProperties: { ServiceToken: 'token', ...properties },
  };
  return requestType === 'Create'
    ? { ...common, RequestType: 'Create' }
    : { ...common, RequestType: 'Update', PhysicalResourceId: physicalResourceId, OldResourceProperties: { ServiceToken: 'token' } };
}

const gate = { Kind: 'gate', ConductorLogicalId: 'ConductorFunction0E57413A', Fingerprint: 'f1' };
const live = (rollout: string, extra: Record<string, string> = {}) => ({
  Kind: 'live-version',
  FunctionName: CONDUCTOR,
  Rollout: rollout,
  UpgradeStateFunction: CONDUCTOR,
  Release: 'master',
  ...extra,
});

describe('upgradeStatus and refusal', () => {
  it('reads the status pair of the command’s tag, or a bare status', () => {
    expect(upgradeStatus(RUNNING)).toBe('running');
    expect(upgradeStatus('id=x status=rolled-back')).toBe('rolled-back');
    expect(upgradeStatus('complete')).toBe('complete');
    expect(upgradeStatus('id=x phase=2')).toBe('');
  });

  it('refuses while the status is anything but complete or rolled-back, and says what to do', () => {
    const where = { stackName: 'Ironless', conductor: CONDUCTOR };
    expect(refusal({}, where)).toBeUndefined();
    expect(refusal({ [TAGS.upgrade]: 'id=x status=complete' }, where)).toBeUndefined();
    expect(refusal({ [TAGS.upgrade]: 'id=x status=rolled-back' }, where)).toBeUndefined();
    for (const status of ['running', 'stopped', 'rolling-back']) {
      expect(refusal({ [TAGS.upgrade]: `id=x status=${status}` }, where)).toContain('Refusing to deploy');
    }
    // A tag whose status cannot be read is not taken for a finished upgrade.
    expect(refusal({ [TAGS.upgrade]: 'id=x phase=2' }, where)).toContain('Refusing to deploy');
    const message = refusal({ [TAGS.upgrade]: RUNNING, [TAGS.message]: 'stopped at phase 4: errors rose' }, where) ?? '';
    expect(message).toContain('stack Ironless');
    expect(message).toContain('stopped at phase 4: errors rose');
    expect(message).toContain('npx ironless upgrade resume --stack Ironless');
    expect(message).toContain('npx ironless upgrade rollback --stack Ironless');
  });

  it('knows a rollback by the stack status, and a live-version id by its form', () => {
    expect(isRollback('UPDATE_ROLLBACK_IN_PROGRESS')).toBe(true);
    expect(isRollback('ROLLBACK_IN_PROGRESS')).toBe(true);
    expect(isRollback('UPDATE_IN_PROGRESS')).toBe(false);
    expect(isRollback(undefined)).toBe(false);
    expect(parseLiveVersionId(liveVersionId(CONDUCTOR, '12'))).toEqual({ functionName: CONDUCTOR, version: '12' });
    expect(parseLiveVersionId('something-else')).toBeUndefined();
  });
});

describe('the gate', () => {
  it('fails the deployment while an upgrade runs', async () => {
    const { ports } = account({ tags: { [TAGS.upgrade]: RUNNING } });
    await expect(onEvent(event('Update', gate, 'Ironless-deploy-gate'), ports)).rejects.toThrow(/Refusing to deploy.*status=running/);
  });

  it('lets a deploy through when no upgrade runs, when the last one finished, and on a new stack', async () => {
    await expect(onEvent(event('Update', gate), account().ports)).resolves.toEqual({ PhysicalResourceId: 'Ironless-deploy-gate' });
    const finished = account({ tags: { [TAGS.upgrade]: RUNNING.replace('running', 'complete') } });
    await expect(onEvent(event('Update', gate), finished.ports)).resolves.toBeDefined();
    const fresh = account({ conductorExists: false });
    await expect(onEvent(event('Create', gate), fresh.ports)).resolves.toBeDefined();
    expect(fresh.calls).toEqual([]);
  });

  it('never refuses while CloudFormation rolls back (a refusal then would leave the stack stuck)', async () => {
    const { ports } = account({ status: 'UPDATE_ROLLBACK_IN_PROGRESS', tags: { [TAGS.upgrade]: RUNNING } });
    await expect(onEvent(event('Update', gate), ports)).resolves.toBeDefined();
  });

  it('lets the deploy that adds the guard through when it may not read the tags yet', async () => {
    const { ports } = account({ tags: { [TAGS.upgrade]: RUNNING } });
    ports.listTags = async () => 'denied';
    await expect(onEvent(event('Update', gate), ports)).resolves.toBeDefined();
  });
});

describe('live-version with rollout ironless-upgrade', () => {
  it('publishes a first version for a new stack and tags the release', async () => {
    const a = account({ conductorExists: false });
    const result = await onEvent(event('Create', live('ironless-upgrade')), a.ports);
    expect(result).toEqual({ PhysicalResourceId: `${CONDUCTOR}:live@1`, Data: { Version: '1' } });
    expect(a.published).toEqual([`${CONDUCTOR}:1`]);
    expect(a.tags[CONDUCTOR]?.[TAGS.release]).toBe('master');
  });

  it('adopts the alias of an existing stack as it is, and keeps the release an upgrade recorded', async () => {
    const a = account({ aliases: { [CONDUCTOR]: '7' }, tags: { [TAGS.release]: '2026.3' } });
    const result = await onEvent(event('Create', live('ironless-upgrade')), a.ports);
    expect(result.Data).toEqual({ Version: '7' });
    expect(a.published).toEqual([]);
    expect(a.tags[CONDUCTOR]?.[TAGS.release]).toBe('2026.3');
  });

  it('answers the same version on every later deploy, whatever the command did to the alias, so CloudFormation never moves it', async () => {
    // The command has since moved live to 9; the resource still answers 4: the alias property is unchanged.
    const a = account({ aliases: { [CONDUCTOR]: '9' } });
    const result = await onEvent(event('Update', live('ironless-upgrade', { Release: '2027.1' }), `${CONDUCTOR}:live@4`), a.ports);
    expect(result).toEqual({ PhysicalResourceId: `${CONDUCTOR}:live@4`, Data: { Version: '4' } });
    expect(a.published).toEqual([]);
    expect(a.calls).toEqual([]);
  });

  it('does not refuse by itself (the gate does, before the functions change)', async () => {
    const a = account({ tags: { [TAGS.upgrade]: RUNNING } });
    await expect(onEvent(event('Update', live('ironless-upgrade'), `${CONDUCTOR}:live@4`), a.ports)).resolves.toBeDefined();
  });
});

describe('live-version with rollout cdk-deploy', () => {
  it('answers the version CloudFormation published of this deploy, and tags its release', async () => {
    const a = account();
    const result = await onEvent(event('Update', live('cdk-deploy', { Version: '5', Release: '2027.1' }), `${CONDUCTOR}:live@4`), a.ports);
    expect(result).toEqual({ PhysicalResourceId: `${CONDUCTOR}:live@5`, Data: { Version: '5' } });
    expect(a.tags[CONDUCTOR]?.[TAGS.release]).toBe('2027.1');
  });

  it('refuses to move the alias during an upgrade, but moves it back when CloudFormation rolls back', async () => {
    const a = account({ tags: { [TAGS.upgrade]: RUNNING } });
    await expect(onEvent(event('Update', live('cdk-deploy', { Version: '5' }), `${CONDUCTOR}:live@4`), a.ports)).rejects.toThrow(
      'Refusing to deploy',
    );
    const back = account({ status: 'UPDATE_ROLLBACK_IN_PROGRESS', tags: { [TAGS.upgrade]: RUNNING } });
    const result = await onEvent(event('Update', live('cdk-deploy', { Version: '4' }), `${CONDUCTOR}:live@5`), back.ports);
    expect(result.Data).toEqual({ Version: '4' });
  });

  it('checks the conductor’s tags for the other functions, and tags only the conductor', async () => {
    const a = account();
    const props = live('cdk-deploy', { Version: '3', FunctionName: API });
    delete (props as Record<string, string>).Release;
    await onEvent(event('Update', props, `${API}:live@2`), a.ports);
    expect(a.calls).toEqual([`listTags ${CONDUCTOR}`]);
  });
});

it('owns nothing to delete, and names a bad request', async () => {
  const deleted: CloudFormationCustomResourceEvent = { ...event('Create', gate), RequestType: 'Delete', PhysicalResourceId: 'p' };
  await expect(onEvent(deleted, account().ports)).resolves.toEqual({ PhysicalResourceId: 'p' });
  await expect(onEvent(event('Create', { Kind: 'other' }), account().ports)).rejects.toThrow('unknown Kind "other"');
  await expect(onEvent(event('Create', live('blue-green')), account().ports)).rejects.toThrow('Rollout "blue-green"');
});
