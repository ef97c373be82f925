/**
 * The AWS side of rolling upgrades: who moves the `live` aliases of api, conductor and dbsync
 * (rollout `ironless-upgrade`, the default, or `cdk-deploy`), the gate that refuses a deploy during
 * an upgrade, the outputs `ironless upgrade --stack` reads and the policy it runs with. The guard
 * function's decisions themselves are unit-tested (test/unit/deploy-guard).
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { propsFromContext } from '../../lib/app-context';
import { IronlessStack, type IronlessStackProps } from '../../lib/ironless-stack';
import { STACK_OUTPUTS } from '../../lib/outputs';
import { UPGRADE_FUNCTION_ACTIONS, UPGRADE_TAG_ACTIONS } from '../../lib/constructs/upgrade-operator';
import { TABLES, tableOutputKey } from '../../functions/db/schema';
import {
  type Resource,
  type Statement,
  functionNamed,
  grantsOf,
  resourcesOf,
  roleOfFunction,
  roleStatements,
  synthValidated,
} from './helpers';

// The default with both policy packs (policy-validation.test.ts checks the other variants); the rest
// without, each synthesized once (a synth takes a while).
const GROUPS = { conductorGroups: ['', 'rack-a'] };
const upgrade = synthValidated('Up', { settings: GROUPS }).template;
const templates = new Map<string, Template>();
function synth(key: string, props: IronlessStackProps): Template {
  const found = templates.get(key) ?? Template.fromStack(new IronlessStack(new App(), 'Up', props));
  templates.set(key, found);
  return found;
}
const deploy = synth('deploy', { rollout: 'cdk-deploy', settings: GROUPS });
/** The same stacks, after a change of the functions' configuration. */
const changedUpgrade = () => synth('upgrade, changed', { settings: { ...GROUPS, automatedClean: false } });
const changedDeploy = () => synth('deploy, changed', { rollout: 'cdk-deploy', settings: { ...GROUPS, automatedClean: false } });
const GUARDED = ['api', 'conductor', 'dbsync'] as const;

const fnId = (t: Template, name: string) => functionNamed(t, name)[0];
const liveVersionOf = (t: Template, name: string): Resource => {
  const found = resourcesOf(t, 'Custom::IronlessLiveVersion').find(
    ([, r]) => JSON.stringify(r.Properties.FunctionName) === JSON.stringify({ Ref: fnId(t, name) }),
  );
  if (!found) throw new Error(`no live version of ${name}`);
  return found[1];
};
const aliasOf = (t: Template, name: string): Resource => {
  const found = resourcesOf(t, 'AWS::Lambda::Alias').find(
    ([, a]) => JSON.stringify(a.Properties.FunctionName) === JSON.stringify({ Ref: fnId(t, name) }),
  );
  if (!found) throw new Error(`no alias of ${name}`);
  return found[1];
};
const idOf = (t: Template, type: string, match: (r: Resource) => boolean) => resourcesOf(t, type).find(([, r]) => match(r))?.[0];
const gateOf = (t: Template) => resourcesOf(t, 'Custom::IronlessDeployGate');

describe('rollout ironless-upgrade (the default)', () => {
  it.each(GUARDED)('names, for %s, the version its live-version resource answers, and publishes none of its own', (name) => {
    const live = liveVersionOf(upgrade, name);
    expect(live.Properties).toMatchObject({ Kind: 'live-version', Rollout: 'ironless-upgrade' });
    // No CloudFormation-published version: later deploys have nothing to move the alias to.
    expect(live.Properties.Version).toBeUndefined();
    const liveId = idOf(upgrade, 'Custom::IronlessLiveVersion', (r) => r === live);
    expect(aliasOf(upgrade, name).Properties).toEqual({
      Name: 'live',
      FunctionName: { Ref: fnId(upgrade, name) },
      FunctionVersion: { 'Fn::GetAtt': [liveId, 'Version'] },
    });
    const versions = resourcesOf(upgrade, 'AWS::Lambda::Version').filter(([, v]) =>
      JSON.stringify(v.Properties.FunctionName).includes(fnId(upgrade, name)),
    );
    expect(versions).toHaveLength(0);
  });

  it('gives live-version resources nothing that changes with the code, so an update never moves the alias', () => {
    const changed = changedUpgrade();
    for (const name of GUARDED) {
      expect(liveVersionOf(changed, name).Properties).toEqual(liveVersionOf(upgrade, name).Properties);
      expect(aliasOf(changed, name).Properties).toEqual(aliasOf(upgrade, name).Properties);
      // …while $LATEST does change.
      expect(functionNamed(changed, name)[1].Properties.Environment).not.toEqual(functionNamed(upgrade, name)[1].Properties.Environment);
    }
  });

  it('tags the conductor with the release of the synthesized code, through its live-version resource', () => {
    expect(liveVersionOf(upgrade, 'conductor').Properties.Release).toBe('master');
    for (const name of ['api', 'dbsync']) expect(liveVersionOf(upgrade, name).Properties.Release).toBeUndefined();
    for (const name of GUARDED) {
      expect(liveVersionOf(upgrade, name).Properties.UpgradeStateFunction).toEqual({ Ref: fnId(upgrade, 'conductor') });
    }
    // Not a CloudFormation tag: a deploy would set it back over the release an upgrade recorded.
    expect(JSON.stringify(functionNamed(upgrade, 'conductor')[1].Properties.Tags ?? [])).not.toContain('ironless:release');
  });
});

describe('rollout cdk-deploy', () => {
  it.each(GUARDED)('moves the live alias of %s to the version CloudFormation publishes of each deploy', (name) => {
    const live = liveVersionOf(deploy, name);
    expect(live.Properties.Rollout).toBe('cdk-deploy');
    const version = (live.Properties.Version as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'];
    expect(version[1]).toBe('Version');
    expect(resourcesOf(deploy, 'AWS::Lambda::Version').find(([id]) => id === version[0])?.[1].Properties.FunctionName).toEqual({
      Ref: fnId(deploy, name),
    });
    // A change of the code is a new version resource, hence a new Version for the alias.
    const changed = changedDeploy();
    expect(liveVersionOf(changed, name).Properties.Version).not.toEqual(live.Properties.Version);
  });
});

describe('the gate', () => {
  it('runs before the guarded functions change: they depend on it, and its fingerprint follows their code and configuration', () => {
    const [[gateId, gate] = ['', { Properties: {} } as Resource]] = gateOf(upgrade);
    expect(gate.Properties).toMatchObject({
      Kind: 'gate',
      ConductorLogicalId: fnId(upgrade, 'conductor'),
      Fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    for (const name of GUARDED) {
      expect((upgrade.toJSON().Resources[fnId(upgrade, name)] as { DependsOn?: string[] }).DependsOn).toContain(gateId);
    }
    const changed = changedUpgrade();
    const fingerprint = (t: Template) => gateOf(t)[0]?.[1].Properties.Fingerprint;
    expect(fingerprint(changed)).not.toBe(fingerprint(upgrade));
    expect(fingerprint(deploy)).not.toBe(fingerprint(upgrade));
    // The same code and settings: the same fingerprint, so an unchanged deploy is not checked again.
    expect(fingerprint(synth('upgrade, again', { settings: GROUPS }))).toBe(fingerprint(upgrade));
    // Plain values only: the gate waits for nothing the functions need.
    expect(JSON.stringify({ ...gate.Properties, ServiceToken: undefined })).not.toMatch(/Ref|GetAtt/);
  });

  it('lets the guard function read the stack, and only the guarded functions’ aliases, configuration and (conductor) tags', () => {
    const role = roleOfFunction(upgrade, 'deploy-guard');
    const grants = grantsOf(roleStatements(upgrade, role));
    expect([...grants.keys()].sort()).toEqual(
      [
        'xray:PutTelemetryRecords',
        'xray:PutTraceSegments',
        'cloudformation:DescribeStacks',
        'cloudformation:DescribeStackResource',
        'lambda:GetAlias',
        'lambda:GetFunctionConfiguration',
        'lambda:PublishVersion',
        'lambda:ListTags',
        'lambda:TagResource',
      ].sort(),
    );
    expect(grants.get('cloudformation:DescribeStacks')).toEqual([JSON.stringify({ Ref: 'AWS::StackId' })]);
    for (const action of ['lambda:GetAlias', 'lambda:PublishVersion']) {
      expect(grants.get(action)?.sort()).toEqual(GUARDED.map((n) => JSON.stringify({ 'Fn::GetAtt': [fnId(upgrade, n), 'Arn'] })).sort());
    }
    for (const action of ['lambda:ListTags', 'lambda:TagResource']) {
      expect(grants.get(action)).toEqual([JSON.stringify({ 'Fn::GetAtt': [fnId(upgrade, 'conductor'), 'Arn'] })]);
    }
  });

  it('leaves the authorizer and the web console to follow every deploy', () => {
    for (const name of ['authorizer', 'ui']) {
      const version = aliasOf(upgrade, name).Properties.FunctionVersion as { 'Fn::GetAtt': [string, string] };
      expect(version['Fn::GetAtt'][0]).toMatch(/CurrentVersion/);
    }
  });
});

describe('outputs', () => {
  it('names everything the command works on, under the keys of lib/outputs.ts', () => {
    const outputs = upgrade.toJSON().Outputs as Record<string, { Value: unknown }>;
    for (const key of Object.values(STACK_OUTPUTS)) expect([key, outputs[key] !== undefined]).toEqual([key, true]);
    for (const name of GUARDED) {
      const key = {
        api: STACK_OUTPUTS.apiFunctionName,
        conductor: STACK_OUTPUTS.conductorFunctionName,
        dbsync: STACK_OUTPUTS.dbsyncFunctionName,
      }[name];
      expect(outputs[key]?.Value).toEqual({ Ref: fnId(upgrade, name) });
    }
    expect(outputs[STACK_OUTPUTS.authorizerFunctionName]?.Value).toEqual({ Ref: fnId(upgrade, 'authorizer') });
    expect(outputs[STACK_OUTPUTS.rollout]?.Value).toBe('ironless-upgrade');
    const stage = idOf(upgrade, 'AWS::ApiGateway::Stage', (r) => r.Properties.StageName === 'ironless');
    expect(outputs[STACK_OUTPUTS.restApiStage]?.Value).toEqual({ Ref: stage });
    expect(outputs[STACK_OUTPUTS.restApiName]?.Value).toBe('RestApi');
    const dlqs = resourcesOf(upgrade, 'AWS::SQS::Queue')
      .filter(([, q]) => q.Properties.RedriveAllowPolicy !== undefined)
      .map(([id]) => id);
    expect(dlqs).toHaveLength(2);
    const dlqOutput = JSON.stringify(outputs[STACK_OUTPUTS.conductorDeadLetterQueues]?.Value);
    for (const id of dlqs) expect(dlqOutput).toContain(`"Ref":"${id}"`);
    expect(JSON.stringify(outputs[STACK_OUTPUTS.conductorQueues]?.Value)).toContain('rack-a');
    for (const name of Object.keys(TABLES)) expect(outputs[tableOutputKey(name)]).toBeDefined();
    expect(deploy.toJSON().Outputs[STACK_OUTPUTS.rollout].Value).toBe('cdk-deploy');
  });

  it('has no authorizer output with noauth, and no policy when told not to make it', () => {
    const plain = synth('plain', {
      settings: { authStrategy: 'noauth' },
      api: { allowUnauthenticatedPublicApi: true },
      upgradeOperatorPolicy: false,
    });
    const outputs = plain.toJSON().Outputs as Record<string, unknown>;
    expect(outputs[STACK_OUTPUTS.authorizerFunctionName]).toBeUndefined();
    expect(outputs[STACK_OUTPUTS.upgradeOperatorPolicy]).toBeUndefined();
    plain.resourceCountIs('AWS::IAM::ManagedPolicy', 0);
  });
});

describe('UpgradeOperatorPolicy', () => {
  const [[policyId, policy] = ['', { Properties: {} } as Resource]] = resourcesOf(upgrade, 'AWS::IAM::ManagedPolicy');
  const grants = grantsOf((policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
  const arn = (name: string) => JSON.stringify({ 'Fn::GetAtt': [fnId(upgrade, name), 'Arn'] });
  const versionsOf = (name: string) => JSON.stringify({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [fnId(upgrade, name), 'Arn'] }, ':*']] });

  it('is an output, attached to no one (the operator attaches it)', () => {
    expect(upgrade.toJSON().Outputs[STACK_OUTPUTS.upgradeOperatorPolicy].Value).toEqual({ Ref: policyId });
    expect(policy.Properties.Roles ?? policy.Properties.Users ?? policy.Properties.Groups).toBeUndefined();
  });

  it('allows exactly what the command calls, on these functions, queues, tables and this stack', () => {
    const tables = resourcesOf(upgrade, 'AWS::DynamoDB::GlobalTable').map(([id]) => JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] }));
    const conductors = JSON.stringify({
      'Fn::GetAtt': [
        idOf(upgrade, 'AWS::DynamoDB::GlobalTable', (t) => JSON.stringify(t).includes('"AttributeName":"hostname"')) ?? 'none',
        'Arn',
      ],
    });
    const dlqs = resourcesOf(upgrade, 'AWS::SQS::Queue')
      .filter(([, q]) => q.Properties.RedriveAllowPolicy !== undefined)
      .map(([id]) => JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] }));
    const expected: Record<string, string[]> = {};
    for (const a of UPGRADE_FUNCTION_ACTIONS) expected[a] = GUARDED.flatMap((n) => [arn(n), versionsOf(n)]);
    for (const a of UPGRADE_TAG_ACTIONS) expected[a] = GUARDED.map(arn);
    expected['lambda:InvokeFunction'] = ['dbsync', 'conductor'].flatMap((n) => [arn(n), versionsOf(n)]);
    expected['cloudwatch:GetMetricData'] = ['"*"'];
    expected['sqs:GetQueueAttributes'] = dlqs;
    expected['dynamodb:DescribeTable'] = tables;
    for (const a of ['dynamodb:Scan', 'dynamodb:Query', 'dynamodb:GetItem']) expected[a] = [conductors];
    expected['cloudformation:DescribeStacks'] = [JSON.stringify({ Ref: 'AWS::StackId' })];
    expect(Object.fromEntries([...grants].map(([a, r]) => [a, [...r].sort()]))).toEqual(
      Object.fromEntries(Object.entries(expected).map(([a, r]) => [a, [...r].sort()])),
    );
  });

  it('gives the functions themselves none of it (the api only reads the state for GET /ironless/v1/upgrade)', () => {
    // The api function reads the upgrade's tags and the live aliases, nothing that changes them.
    const reads: Record<string, string[]> = { api: ['lambda:ListTags', 'lambda:GetAlias'] };
    for (const name of [...GUARDED, 'authorizer', 'ui']) {
      const actions = [...grantsOf(roleStatements(upgrade, roleOfFunction(upgrade, name))).keys()];
      for (const a of [...UPGRADE_FUNCTION_ACTIONS, ...UPGRADE_TAG_ACTIONS, 'cloudwatch:GetMetricData'])
        expect([name, a, actions.includes(a)]).toEqual([name, a, (reads[name] ?? []).includes(a)]);
    }
  });
});

describe('choosing', () => {
  it('takes rollout, release and the policy from CDK context, and refuses values that are not', () => {
    const app = new App({ context: { rollout: 'cdk-deploy', release: '2026.3', upgradeOperatorPolicy: 'false' } });
    expect(propsFromContext(app.node)).toMatchObject({ rollout: 'cdk-deploy', release: '2026.3', upgradeOperatorPolicy: false });
    const bad = (props: IronlessStackProps) => () => new IronlessStack(new App(), 'Bad', props);
    expect(bad({ rollout: 'blue-green' as 'cdk-deploy' })).toThrow('rollout "blue-green" must be one of cdk-deploy, ironless-upgrade');
    expect(bad({ release: '1999.1' })).toThrow('release "1999.1" is not a release of this code');
  });

  it('records a given release on the conductor', () => {
    const released = synth('released', { release: '2026.3' });
    expect(liveVersionOf(released, 'conductor').Properties.Release).toBe('2026.3');
  });
});
