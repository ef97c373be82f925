/**
 * Each role's actions and the resources it may use them on: nothing beyond what its code calls, and
 * "*" only for the actions AWS accepts nothing narrower for (X-Ray, Step Functions log delivery).
 * s3:// images: the conductor reads exactly the allowed buckets; its boot ISO bucket it writes, reads and deletes in.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { IronlessStack } from '../../lib/ironless-stack';
import { TABLE_ITEM_ACTIONS } from '../../lib/constructs/tables';
import { type Statement, functionNamed, grantsOf, resourcesOf, roleOfFunction, roleStatements } from './helpers';

const template = Template.fromStack(
  new IronlessStack(new App(), 'Roles', { settings: { imageBuckets: ['images-a', 'images.b'], conductorGroups: ['', 'rack-a'] } }),
);
const idOf = (type: string, part: string) => {
  const found = resourcesOf(template, type).find(([id]) => id.includes(part));
  if (!found) throw new Error(`no ${type} with ${part}`);
  return found[0];
};

/** Actions AWS only grants on "*". */
const STAR_ONLY = new Set([
  'xray:PutTraceSegments',
  'xray:PutTelemetryRecords',
  'xray:GetSamplingRules',
  'xray:GetSamplingTargets',
  'logs:CreateLogDelivery',
  'logs:GetLogDelivery',
  'logs:UpdateLogDelivery',
  'logs:DeleteLogDelivery',
  'logs:ListLogDeliveries',
  'logs:PutResourcePolicy',
  'logs:DescribeResourcePolicies',
  'logs:DescribeLogGroups',
]);
const XRAY = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];
const DYNAMODB = TABLE_ITEM_ACTIONS.map((a) => `dynamodb:${a}`);
const tables = resourcesOf(template, 'AWS::DynamoDB::GlobalTable').map(([id]) => id);
const conductorQueues = resourcesOf(template, 'AWS::SQS::Queue')
  .filter(([, q]) => q.Properties.RedrivePolicy !== undefined)
  .map(([id]) => id);

function grantsOfFunction(name: string): Map<string, string[]> {
  return grantsOf(roleStatements(template, roleOfFunction(template, name)));
}

/** Every resource of `action` mentions one of `parts` (logical ids or ARN text), and all of them are covered. */
function expectOn(grants: Map<string, string[]>, action: string, parts: string[]): void {
  const resources = grants.get(action) ?? [];
  expect([action, resources.length > 0]).toEqual([action, true]);
  for (const r of resources) expect([action, parts.some((p) => r.includes(p))]).toEqual([action, true]);
  for (const p of parts) expect([action, p, resources.some((r) => r.includes(p))]).toEqual([action, p, true]);
}

it('uses "*" only where AWS accepts nothing narrower', () => {
  const statements = resourcesOf(template, 'AWS::IAM::Policy').flatMap(
    ([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement,
  );
  for (const s of statements) {
    if (JSON.stringify(s.Resource) === '"*"') for (const a of [s.Action].flat()) expect([a, STAR_ONLY.has(a)]).toEqual([a, true]);
    for (const a of [s.Action].flat()) expect(a.endsWith(':*')).toBe(false);
  }
  // One managed policy of the stack's own, attached to no one: UpgradeOperatorPolicy, for the
  // operator running `ironless upgrade` (upgrade.test.ts). Roles get only AWS's basic execution and API Gateway's logging.
  template.resourceCountIs('AWS::IAM::ManagedPolicy', 1);
  for (const [, p] of resourcesOf(template, 'AWS::IAM::ManagedPolicy')) expect(p.Properties.Roles).toBeUndefined();
  const managed = new Set(resourcesOf(template, 'AWS::IAM::Role').flatMap(([, r]) => JSON.stringify(r.Properties.ManagedPolicyArns ?? [])));
  for (const m of managed) expect(m === '[]' || /AWSLambdaBasicExecutionRole|AmazonAPIGatewayPushToCloudWatchLogs/.test(m)).toBe(true);
});

it('lets the api function use the tables, send casts to the conductor queues and invoke the conductor alias', () => {
  const grants = grantsOfFunction('api');
  expect([...grants.keys()].sort()).toEqual(
    [
      ...XRAY,
      ...DYNAMODB,
      'sqs:SendMessage',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'lambda:InvokeFunction',
      'lambda:ListTags',
      'lambda:GetAlias',
      's3:PutObject',
    ].sort(),
  );
  // Staging the logs a ramdisk posts with its inspection data.
  expectOn(grants, 's3:PutObject', [idOf('AWS::S3::Bucket', 'RamdiskLogs')]);
  for (const a of DYNAMODB) expectOn(grants, a, tables);
  for (const a of ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl']) expectOn(grants, a, conductorQueues);
  expectOn(grants, 'lambda:InvokeFunction', [idOf('AWS::Lambda::Alias', 'ConductorLive')]);
  // The upgrade status (GET /ironless/v1/upgrade): the conductor's tags and the two live aliases.
  expectOn(grants, 'lambda:ListTags', [functionNamed(template, 'conductor')[0]]);
  expectOn(grants, 'lambda:GetAlias', [functionNamed(template, 'conductor')[0], functionNamed(template, 'api')[0]]);
});

it('lets the conductor use the tables, its own executions, its queues (receive and send), the allowed image buckets and its failure queue', () => {
  const grants = grantsOfFunction('conductor');
  const receive = ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:DeleteMessage'];
  const states = [
    'states:SendTaskSuccess',
    'states:SendTaskFailure',
    'states:SendTaskHeartbeat',
    'states:DescribeExecution',
    'states:StopExecution',
  ];
  expect([...grants.keys()].sort()).toEqual(
    [
      ...XRAY,
      ...DYNAMODB,
      ...receive,
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:SendMessage',
      's3:GetObject',
      's3:PutObject',
      's3:DeleteObject',
      'states:StartExecution',
      'lambda:InvokeFunction',
      ...states,
    ].sort(),
  );
  // Its own live alias, to which a periodic task hands its next page.
  expectOn(grants, 'lambda:InvokeFunction', [idOf('AWS::Lambda::Alias', 'ConductorLive')]);
  for (const a of DYNAMODB) expectOn(grants, a, tables);
  for (const a of receive) expectOn(grants, a, conductorQueues);
  // Its failure queue, and its own queues: the work of a call that runs after the answer is a cast.
  expectOn(grants, 'sqs:SendMessage', [idOf('AWS::SQS::Queue', 'PeriodicFailures'), ...conductorQueues]);
  const bootIsos = idOf('AWS::S3::Bucket', 'BootIsos');
  const ramdiskLogs = idOf('AWS::S3::Bucket', 'RamdiskLogs');
  expectOn(grants, 's3:GetObject', [':s3:::images-a/*', ':s3:::images.b/*', bootIsos, ramdiskLogs]);
  expectOn(grants, 's3:DeleteObject', [bootIsos]);
  // Its ramdisk logs bucket it may only put archives in.
  expectOn(grants, 's3:PutObject', [bootIsos, ramdiskLogs]);
  expectOn(grants, 'states:StartExecution', [':stateMachine:Roles-steps']);
  for (const a of states) expectOn(grants, a, [':stateMachine:Roles-steps', ':execution:Roles-steps:*']);
});

it('lets dbsync use the tables and nothing else, and the authorizer read its secret and nothing else', () => {
  const dbsync = grantsOfFunction('dbsync');
  expect([...dbsync.keys()].sort()).toEqual([...XRAY, ...DYNAMODB].sort());
  const authorizer = grantsOfFunction('authorizer');
  expect([...authorizer.keys()].sort()).toEqual([...XRAY, 'secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'].sort());
  expectOn(authorizer, 'secretsmanager:GetSecretValue', [idOf('AWS::SecretsManager::Secret', 'Htpasswd')]);
});

it('lets the steps machine and the deploy-time beat invoke only the conductor alias', () => {
  const alias = idOf('AWS::Lambda::Alias', 'ConductorLive');
  const machine = resourcesOf(template, 'AWS::StepFunctions::StateMachine')[0]?.[1].Properties.RoleArn as { 'Fn::GetAtt': [string] };
  const steps = grantsOf(roleStatements(template, machine['Fn::GetAtt'][0]));
  expect([...steps.keys()].filter((a) => !STAR_ONLY.has(a))).toEqual(['lambda:InvokeFunction']);
  expectOn(steps, 'lambda:InvokeFunction', [alias]);
  const beat = grantsOf(roleStatements(template, idOf('AWS::IAM::Role', 'AWS679f53fac')));
  expect([...beat.keys()]).toEqual(['lambda:InvokeFunction']);
  expectOn(beat, 'lambda:InvokeFunction', [alias]);
});

it('gives no S3 access beyond its boot ISO and ramdisk logs buckets without allowed image buckets', () => {
  const plain = Template.fromStack(new IronlessStack(new App(), 'NoBuckets'));
  const statements = roleStatements(plain, roleOfFunction(plain, 'conductor'));
  const s3 = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('s3:')));
  const objectsOf = (id: string, suffix = '/*') => ({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [id, 'Arn'] }, suffix]] });
  const bucket = (prefix: string) => Object.keys(plain.findResources('AWS::S3::Bucket')).find((id) => id.startsWith(prefix)) as string;
  expect(JSON.stringify(s3.map((s) => s.Resource))).toBe(
    JSON.stringify([objectsOf(bucket('BootIsos')), objectsOf(bucket('RamdiskLogs')), objectsOf(bucket('RamdiskLogs'), '/pending/*')]),
  );
  expect((functionNamed(plain, 'conductor')[1].Properties.Environment as { Variables: object }).Variables).not.toHaveProperty(
    'IMAGE_S3_BUCKETS',
  );
  expect(functionNamed(template, 'conductor')[1].Properties.Environment).toMatchObject({
    Variables: { IMAGE_S3_BUCKETS: 'images-a,images.b' },
  });
  expect(() => new IronlessStack(new App(), 'BadBucket', { settings: { imageBuckets: ['Images_A'] } })).toThrow(
    'imageBuckets: "Images_A" is not an S3 bucket name',
  );
});

it('lets services invoke functions only from their own source (every Lambda permission names its SourceArn)', () => {
  const permissions = resourcesOf(template, 'AWS::Lambda::Permission');
  expect(permissions.length).toBeGreaterThan(0);
  for (const [id, p] of permissions) {
    expect([id, p.Properties.Principal]).toEqual([id, expect.stringMatching(/^(apigateway|events)\.amazonaws\.com$/)]);
    expect([id, p.Properties.SourceArn !== undefined]).toEqual([id, true]);
  }
});
