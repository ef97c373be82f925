/**
 * The stack's customer managed KMS key for what it writes about itself: every log group (function
 * logs, API access logs, the steps machine's log) and the alarm topic. Function logs carry node
 * names, BMC addresses and errors; with a key of its own, reading them takes a grant on this key as
 * well as on the logs (AWS Control Tower CT.CLOUDWATCH.PR.3). Rotated yearly; retained with the
 * stack's retained log groups, which it alone can decrypt.
 */
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AnyPrincipal, Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

export class LogsKey extends Construct {
  readonly key: Key;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const stack = Stack.of(this);
    this.key = new Key(this, 'Key', {
      description: `Ironless ${stack.stackName}: log groups and alarm notifications`,
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // CloudWatch Logs may use it for this account's log groups only (AWS's documented key policy).
    this.key.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal(`logs.${stack.region}.amazonaws.com`)],
        actions: ['kms:Encrypt*', 'kms:Decrypt*', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:Describe*'],
        resources: ['*'],
        conditions: {
          ArnLike: { 'kms:EncryptionContext:aws:logs:arn': `arn:${stack.partition}:logs:${stack.region}:${stack.account}:log-group:*` },
        },
      }),
    );
    // Grants only for AWS services acting for AWS resources (CT.KMS.PR.3): neither CloudWatch Logs
    // nor SNS needs one, and nobody else gets a lasting grant on what the logs hold.
    this.key.addToResourcePolicy(
      new PolicyStatement({
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['kms:CreateGrant'],
        resources: ['*'],
        conditions: { BoolIfExists: { 'kms:GrantIsForAWSResource': 'false', 'aws:PrincipalIsAWSService': 'false' } },
      }),
    );
    // CloudWatch alarms publish to the encrypted alarm topic (SNS asks for a data key as the alarm's sender).
    this.key.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
  }
}
