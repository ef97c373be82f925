/**
 * The ramdisk logs bucket (issue 21, Ironic's swift backend of `[agent]deploy_logs_storage_backend`):
 * private, TLS only, encrypted, bucket-owned objects expiring after `deployLogsDaysToExpire` days,
 * retained with the stack; the conductor puts archives in it and reads only the inspection logs the
 * API staged under `pending/` (expired after a day), which is all the API may do (put there); the
 * collect mode reaches the functions only when it is not Ironic's default; and the stack passes
 * both policy packs with it (cdk-nag and Control Tower's rules, acknowledged in lib/nag.ts).
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { RamdiskLogs } from '../../lib/constructs/ramdisk-logs';
import { IronlessStack } from '../../lib/ironless-stack';
import { type Resource, functionNamed, resourcesOf, roleOfFunction, roleStatements, synthValidated } from './helpers';

const template = Template.fromStack(new IronlessStack(new App(), 'RamdiskLogs'));

function logsBucket(t: Template): [string, Resource] {
  const buckets = resourcesOf(t, 'AWS::S3::Bucket').filter(([id]) => id.startsWith('RamdiskLogs'));
  expect(buckets).toHaveLength(1);
  return buckets[0] as [string, Resource];
}

it('is private, SSE encrypted, owner-enforced, retained, and expires archives after 30 days, staged ones after a day', () => {
  const [, bucket] = logsBucket(template);
  expect(bucket).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  expect(bucket.Properties).toMatchObject({
    PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
    BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
    OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    LifecycleConfiguration: {
      Rules: [
        { Id: 'ExpireRamdiskLogs', Status: 'Enabled', ExpirationInDays: 30, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } },
        // What the API staged for the conductor (inspection logs) goes after a day.
        { Id: 'ExpireStagedInspectionLogs', Status: 'Enabled', Prefix: 'pending/', ExpirationInDays: 1 },
      ],
    },
  });
});

it('refuses requests without TLS', () => {
  template.hasResourceProperties('AWS::S3::BucketPolicy', {
    Bucket: { Ref: logsBucket(template)[0] },
    PolicyDocument: {
      Statement: Match.arrayWith([
        Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      ]),
    },
  });
});

it('lets the conductor put archives and read staged ones, the API only stage them, and no other function touch it', () => {
  const [id] = logsBucket(template);
  const objects = (suffix: string) => ({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [id, 'Arn'] }, suffix]] });
  for (const fn of ['conductor', 'api']) {
    const env = functionNamed(template, fn)[1].Properties.Environment as { Variables: Record<string, unknown> };
    expect(env.Variables.LOGS_BUCKET).toEqual({ Ref: id });
    // on_failure is the functions' default: not spelled out in an environment near Lambda's 4 KB.
    expect(env.Variables.LOGS_COLLECT).toBeUndefined();
  }
  expect(JSON.stringify(functionNamed(template, 'dbsync')[1].Properties.Environment)).not.toContain('LOGS_BUCKET');
  const on = (fn: string) => roleStatements(template, roleOfFunction(template, fn)).filter((s) => JSON.stringify(s.Resource).includes(id));
  expect(on('conductor')).toEqual([
    { Effect: 'Allow', Action: 's3:PutObject', Resource: objects('/*') },
    { Effect: 'Allow', Action: 's3:GetObject', Resource: objects('/pending/*') },
  ]);
  expect(on('api')).toEqual([{ Effect: 'Allow', Action: 's3:PutObject', Resource: objects('/pending/*') }]);
  for (const other of ['dbsync', 'authorizer']) expect(on(other)).toEqual([]);
  template.hasOutput('RamdiskLogsBucket', { Value: { Ref: id } });
});

it('follows the settings: the collect mode reaches the conductor, 0 days keeps archives', () => {
  const t = Template.fromStack(
    new IronlessStack(new App(), 'RamdiskLogsKept', { settings: { deployLogsCollect: 'always', deployLogsDaysToExpire: 0 } }),
  );
  expect(functionNamed(t, 'conductor')[1].Properties.Environment).toMatchObject({ Variables: { LOGS_COLLECT: 'always' } });
  const rules = (logsBucket(t)[1].Properties.LifecycleConfiguration as { Rules: Record<string, unknown>[] }).Rules;
  expect(rules).toHaveLength(2);
  expect(rules[0]).toEqual({ Id: 'ExpireRamdiskLogs', Status: 'Enabled', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } });
  const days = Template.fromStack(new IronlessStack(new App(), 'RamdiskLogsWeek', { settings: { deployLogsDaysToExpire: 7 } }));
  expect(JSON.stringify(logsBucket(days)[1].Properties.LifecycleConfiguration)).toContain('"ExpirationInDays":7');
});

it('refuses a mode Ironic does not have and a negative or fractional retention', () => {
  expect(() => new IronlessStack(new App(), 'BadMode', { settings: { deployLogsCollect: 'sometimes' as unknown as 'always' } })).toThrow(
    'deployLogsCollect "sometimes" must be one of always, on_failure, never',
  );
  expect(() => new IronlessStack(new App(), 'BadDays', { settings: { deployLogsDaysToExpire: -1 } })).toThrow(
    'deployLogsDaysToExpire (-1) must be a whole number of days, 0 to keep the logs until deleted',
  );
  const stack = new IronlessStack(new App(), 'Construct');
  expect(() => new RamdiskLogs(stack, 'Other', { daysToExpire: 1.5 })).toThrow('RamdiskLogs daysToExpire must be a whole number');
});

it('passes cdk-nag and the Control Tower rules with the bucket', () => {
  expect(() => synthValidated('RamdiskLogsValidated', { settings: { deployLogsCollect: 'always' } })).not.toThrow();
}, 300_000);
