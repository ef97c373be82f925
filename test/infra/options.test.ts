/** Stack options: conductor groups, the conductor in a VPC, and least-privilege IAM per function. */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { IronlessStack } from '../../lib/ironless-stack';
import { fetchPolicyFromEnv } from '../../functions/drivers/hosts';

/** The stack's own functions (not the custom-resource provider CDK adds). */
const IRONLESS_FUNCTION = { Properties: { Description: Match.stringLikeRegexp('^Ironless ') } };

const app = new App();
const stack = new IronlessStack(app, 'Options', {
  settings: {
    conductorGroups: ['', 'rack-a'],
    fastTrack: true,
    postDeployPowerStateRetryIntervalSeconds: 2,
    enableHealthMonitoring: false,
  },
  conductorNetwork: {
    vpcId: 'vpc-0abc',
    availabilityZones: ['us-east-1a', 'us-east-1b'],
    subnetIds: ['subnet-0aaaaaaaaaaaaaaa1', 'subnet-0aaaaaaaaaaaaaaa2'],
    securityGroupIds: ['sg-0bbbbbbbbbbbbbbb1'],
  },
});
const template = Template.fromStack(stack);
type Statement = { Action: string | string[]; Resource: unknown };

function statementsOf(roleLogicalIdPart: string): Statement[] {
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((p) => JSON.stringify((p as { Properties: { Roles: unknown } }).Properties.Roles).includes(roleLogicalIdPart))
    .flatMap((p) => (p as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument.Statement);
}
const actions = (statements: Statement[]) => new Set(statements.flatMap((s) => [s.Action].flat()));

it('gives each conductor group its own queue and DLQ, both mapped to the conductor alias, and tells the API their URLs', () => {
  // Two groups' queues and DLQs, and the periodic tasks' failure queue.
  template.resourceCountIs('AWS::SQS::Queue', 5);
  template.resourceCountIs('AWS::Lambda::EventSourceMapping', 2);
  const api = Object.values(template.findResources('AWS::Lambda::Function', IRONLESS_FUNCTION)).find((f) =>
    JSON.stringify(f).includes('Ironless api'),
  ) as {
    Properties: { Environment: { Variables: Record<string, unknown> } };
  };
  const queues = JSON.stringify(api.Properties.Environment.Variables.CONDUCTOR_QUEUES);
  expect(queues).toContain('\\"\\":');
  expect(queues).toContain('\\"rack-a\\":');
});

it('places the conductor (only) in the given VPC subnets and security groups', () => {
  const functions = Object.values(template.findResources('AWS::Lambda::Function', IRONLESS_FUNCTION)) as {
    Properties: { Description: string; VpcConfig?: unknown };
  }[];
  const conductor = functions.find((f) => f.Properties.Description.includes('conductor'));
  const api = functions.find((f) => f.Properties.Description.includes('api'));
  expect(conductor?.Properties.VpcConfig).toEqual({
    SubnetIds: ['subnet-0aaaaaaaaaaaaaaa1', 'subnet-0aaaaaaaaaaaaaaa2'],
    SecurityGroupIds: ['sg-0bbbbbbbbbbbbbbb1'],
  });
  expect(api?.Properties.VpcConfig).toBeUndefined();
});

it('limits each function to what it uses', () => {
  const api = actions(statementsOf('ApiFunctionServiceRole'));
  const conductor = actions(statementsOf('ConductorFunctionServiceRole'));
  // The API sends casts and invokes the conductor for calls; it never touches Step Functions.
  expect(api.has('sqs:SendMessage')).toBe(true);
  expect(api.has('lambda:InvokeFunction')).toBe(true);
  expect([...api].some((a) => a.startsWith('states:'))).toBe(false);
  // The conductor drives executions; it sends its failed periodic invocations (Lambda's on-failure
  // destination) to their queue and the work its calls answered before doing (RPC 1.5: virtual
  // media, async vendor passthru) to the groups' own queues, and invokes only its own live alias
  // (a periodic task handing on its next page).
  expect(conductor.has('states:StartExecution')).toBe(true);
  const sends = statementsOf('ConductorFunctionServiceRole').filter((s) => [s.Action].flat().includes('sqs:SendMessage'));
  expect(sends.map((s) => JSON.stringify(s.Resource)).sort()).toEqual([
    expect.stringContaining('ConductorQueuesdefault'),
    expect.stringContaining('ConductorQueuesracka'),
    expect.stringContaining('PeriodicFailures'),
  ]);
  const invokes = statementsOf('ConductorFunctionServiceRole').filter((s) => [s.Action].flat().includes('lambda:InvokeFunction'));
  expect(invokes.map((s) => JSON.stringify(s.Resource))).toEqual([expect.stringContaining('ConductorLive')]);
  for (const set of [api, conductor]) expect([...set].some((a) => a === '*' || a.endsWith(':*'))).toBe(false);
});

it('refuses a conductor group name that cannot name resources', () => {
  expect(() => new IronlessStack(new App(), 'BadGroup', { settings: { conductorGroups: ['Rack A'] } })).toThrow('conductor group "Rack A"');
});

it('hands the deploy settings (fast track, the soft power off polls) to the conductor', () => {
  const conductor = Object.values(template.findResources('AWS::Lambda::Function', IRONLESS_FUNCTION)).find((f) =>
    JSON.stringify(f).includes('Ironless conductor'),
  ) as { Properties: { Environment: { Variables: Record<string, unknown> } } };
  expect(conductor.Properties.Environment.Variables).toMatchObject({ FAST_TRACK: 'true', POST_DEPLOY_POWER_STATE_RETRY_INTERVAL: '2' });
  // Settings left at the functions' own defaults take no room in the environment.
  expect(Object.keys(conductor.Properties.Environment.Variables)).not.toEqual(
    expect.arrayContaining(['FAST_TRACK_TIMEOUT', 'POST_DEPLOY_POWER_STATE_RETRIES']),
  );
});

it('refuses soft power off polls that would not fit in one step', () => {
  expect(
    () =>
      new IronlessStack(new App(), 'TooLong', {
        settings: { postDeployPowerStateRetries: 20, postDeployPowerStateRetryIntervalSeconds: 10 },
      }),
  ).toThrow(/must be less than stepTimeoutSeconds \(100\)/);
});

it('gives the conductor the bootloader polling settings, and refuses polls that would not fit in one step', () => {
  const template = Template.fromStack(
    new IronlessStack(new App(), 'Polls', { settings: { agentCommandWaitIntervalSeconds: 3, agentCommandWaitAttempts: 10 } }),
  );
  const conductor = Object.values(template.findResources('AWS::Lambda::Function', IRONLESS_FUNCTION)).find((f) =>
    JSON.stringify(f).includes('Ironless conductor'),
  ) as { Properties: { Environment: { Variables: Record<string, unknown> } } };
  expect(conductor.Properties.Environment.Variables).toMatchObject({ AGENT_COMMAND_WAIT_INTERVAL: '3', AGENT_COMMAND_WAIT_ATTEMPTS: '10' });
  expect(
    () => new IronlessStack(new App(), 'Polls2', { settings: { agentCommandWaitIntervalSeconds: 6, agentCommandWaitAttempts: 100 } }),
  ).toThrow(/agentCommandWaitIntervalSeconds × agentCommandWaitAttempts \(600 s\) must be less than stepTimeoutSeconds \(100\)/);
});

it('hands the host policy, the CA folders, the step timeout and the lookup bound to the functions, refusing loopback and link-local by default', () => {
  const functions = Object.values(template.findResources('AWS::Lambda::Function', IRONLESS_FUNCTION)) as {
    Properties: { Description: string; Environment: { Variables: Record<string, unknown> } };
  }[];
  // The defaults (nothing allowed beyond the denied loopback and link-local ranges, no CA folder, a
  // 100 s step, 32 lookup addresses) are the functions' own, so no variable carries them.
  const defaults = [
    'BMC_ALLOWED_HOSTS',
    'BMC_DENIED_HOSTS',
    'IMAGE_DENIED_HOSTS',
    'CA_ALLOWED_PATHS',
    'STEP_TIMEOUT_SECONDS',
    'MAX_LOOKUP_ADDRESSES',
  ];
  for (const f of functions) for (const name of defaults) expect(f.Properties.Environment.Variables[name]).toBeUndefined();
  expect(fetchPolicyFromEnv({}).bmc.policy.denied).toEqual([
    '127.0.0.0/8',
    '::1/128',
    '0.0.0.0/8',
    '::/128',
    '169.254.0.0/16',
    'fe80::/10',
  ]);
  const changed = Template.fromStack(
    new IronlessStack(new App(), 'Changed', { settings: { stepTimeoutSeconds: 80, maxLookupAddresses: 8, bmcDeniedHosts: [] } }),
  );
  const changedConductor = Object.values(changed.findResources('AWS::Lambda::Function', IRONLESS_FUNCTION)).find((f) =>
    JSON.stringify(f).includes('Ironless conductor'),
  ) as { Properties: { Environment: { Variables: Record<string, unknown> } } };
  // Denying nothing differs from the default list, so it is said: an empty value.
  expect(changedConductor.Properties.Environment.Variables).toMatchObject({
    STEP_TIMEOUT_SECONDS: '80',
    BMC_DENIED_HOSTS: '',
    MAX_LOOKUP_ADDRESSES: '8',
  });
  const allowed = Template.fromStack(
    new IronlessStack(new App(), 'Hosts', { settings: { bmcAllowedHosts: ['10.20.0.0/16', '.bmc.example'], caAllowedPaths: ['/opt/ca'] } }),
  );
  expect(JSON.stringify(allowed.findResources('AWS::Lambda::Function'))).toContain('"BMC_ALLOWED_HOSTS":"10.20.0.0/16,.bmc.example"');
});

it('refuses host policy entries that are not hosts, CA folders that are not absolute, and a lock that expires before a redelivery', () => {
  expect(() => new IronlessStack(new App(), 'BadHost', { settings: { bmcDeniedHosts: ['10.0.0.0/99'] } })).toThrow(
    'bmcDeniedHosts: "10.0.0.0/99" is not a valid CIDR range',
  );
  expect(() => new IronlessStack(new App(), 'BadCa', { settings: { caAllowedPaths: ['certs'] } })).toThrow(
    'caAllowedPaths: "certs" must be an absolute path',
  );
  expect(() => new IronlessStack(new App(), 'ShortLock', { settings: { conductorTimeoutSeconds: 120, lockTtlSeconds: 140 } })).toThrow(
    /lockTtlSeconds \(140\) must be greater than the queue's visibility timeout \(144 s/,
  );
});

it('passes the conductor its options: health monitoring off ([conductor]enable_health_monitoring)', () => {
  const conductor = Object.values(template.findResources('AWS::Lambda::Function', IRONLESS_FUNCTION)).find((f) =>
    JSON.stringify(f).includes('Ironless conductor'),
  ) as { Properties: { Environment: { Variables: Record<string, unknown> } } };
  expect(conductor.Properties.Environment.Variables.ENABLE_HEALTH_MONITORING).toBe('false');
});
