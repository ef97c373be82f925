/**
 * The boot ISO bucket (issue 21): private, TLS only, encrypted, bucket-owned objects expiring after a
 * day, named to the conductor (and to no other function), which may put, read and delete its
 * objects and nothing else on it; and the stack passes both policy packs with it (cdk-nag and
 * Control Tower's rules, their acknowledgements in lib/nag.ts).
 */
import { App, Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { BootIsos } from '../../lib/constructs/boot-isos';
import { IronlessStack } from '../../lib/ironless-stack';
import { functionNamed, resourcesOf, roleOfFunction, roleStatements, synthValidated } from './helpers';

const template = Template.fromStack(new IronlessStack(new App(), 'BootIsos'));
const bucketId = () => {
  const buckets = resourcesOf(template, 'AWS::S3::Bucket').filter(([id]) => id.startsWith('BootIsos'));
  expect(buckets).toHaveLength(1);
  return (buckets[0] as [string, unknown])[0];
};

it('is private, SSE encrypted, owner-enforced, and expires objects after a day', () => {
  expect(template.toJSON().Resources[bucketId()].Properties).toMatchObject({
    PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
    BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
    OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    LifecycleConfiguration: {
      Rules: [{ Id: 'ExpireBootIsos', Status: 'Enabled', ExpirationInDays: 1, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }],
    },
  });
});

it('refuses requests without TLS', () => {
  template.hasResourceProperties('AWS::S3::BucketPolicy', {
    Bucket: { Ref: bucketId() },
    PolicyDocument: {
      Statement: Match.arrayWith([
        Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      ]),
    },
  });
});

it('is named to the conductor only, which may put, get and delete its objects', () => {
  const id = bucketId();
  expect(functionNamed(template, 'conductor')[1].Properties.Environment).toMatchObject({ Variables: { BOOT_ISO_BUCKET: { Ref: id } } });
  for (const other of ['api', 'dbsync']) {
    expect(JSON.stringify(functionNamed(template, other)[1].Properties.Environment)).not.toContain('BOOT_ISO_BUCKET');
  }
  // Room in /tmp for the kernel and ramdisk it streams an ISO from.
  expect(functionNamed(template, 'conductor')[1].Properties.EphemeralStorage).toEqual({ Size: 2048 });
  const statements = roleStatements(template, roleOfFunction(template, 'conductor')).filter((s) => JSON.stringify(s.Resource).includes(id));
  expect(statements).toEqual([
    {
      Effect: 'Allow',
      Action: ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'],
      Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [id, 'Arn'] }, '/*']] },
    },
  ]);
  for (const other of ['api', 'dbsync']) {
    expect(JSON.stringify(roleStatements(template, roleOfFunction(template, other)))).not.toContain(id);
  }
});

it('refuses an expiration shorter than a day', () => {
  const stack = new IronlessStack(new App(), 'Short');
  expect(() => new BootIsos(stack, 'Other', { expiration: Duration.hours(6) })).toThrow('BootIsos expiration must be at least one day');
});

it('passes cdk-nag and the Control Tower rules with the bucket', () => {
  expect(() => synthValidated('BootIsosValidated')).not.toThrow();
}, 300_000);
