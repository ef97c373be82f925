/**
 * Policy validation at synth: cdk-nag's AWS Solutions pack and AWS Control Tower's proactive
 * controls (CloudFormation Guard rules, `@cdklabs/cdk-validator-cfnguard`). The findings Ironless
 * acknowledges are listed here, each with its reason; anything else fails `cdk synth`, and the
 * infra tests synthesize every variant of the stack with both.
 */
import { type App, type CfnElement, Token, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { ApplicableGuardRules } from './guard';
import type { IronlessStack } from './ironless-stack';

/** The id CDK gives the singleton provider function of every AwsCustomResource in a stack. */
const AWS_CUSTOM_RESOURCE_PROVIDER = 'AWS679f53fac002430cb0da5b7982bd2287';

/** Run both packs on every stack of `app` at synth. */
export function addPolicyValidation(app: App, options: { verbose?: boolean } = {}): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: options.verbose ?? false }), new ApplicableGuardRules());
}

/** Every acknowledgement: cdk-nag's and Control Tower's. */
export function acknowledgeFindings(stack: IronlessStack): void {
  acknowledgeNagFindings(stack);
  acknowledgeGuardFindings(stack);
}

export function acknowledgeNagFindings(stack: IronlessStack): void {
  const ack = (scope: Parameters<typeof Validations.of>[0], id: string, reason: string) =>
    Validations.of(scope).acknowledge({ id, reason });

  ack(
    stack,
    'AwsSolutions-L1',
    'Lambda runtime nodejs22.x is the runtime the project pins (DESIGN.md): middy 7, Powertools and the bundles target Node 22.',
  );
  ack(
    stack,
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    'The basic execution role only allows writing the function’s own CloudWatch logs.',
  );
  if (stack.conductor.function.isBoundToVpc) {
    ack(
      stack.conductor,
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
      'With conductorNetwork the conductor runs in the operator’s VPC; this AWS policy only lets Lambda manage the function’s network interfaces.',
    );
  }
  ack(
    stack,
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
    'API Gateway’s account-level role for execution logs; AWS documents this managed policy for it.',
  );
  ack(
    stack,
    'AwsSolutions-IAM5[Resource::*]',
    'X-Ray PutTraceSegments/PutTelemetryRecords and Step Functions log delivery (logs:CreateLogDelivery and related) only accept "*" as resource.',
  );
  for (const table of Object.values(stack.tables.tables)) {
    const logicalId = stack.getLogicalId(table.node.defaultChild as CfnElement);
    ack(
      stack,
      `AwsSolutions-IAM5[Resource::<${logicalId}.Arn>/index/*]`,
      'Lists query the table’s own global secondary indexes (keys only); the grant is limited to this table’s indexes.',
    );
  }
  ack(
    stack.conductor,
    `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:${Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region}:<AWS::AccountId>:execution:${stack.stackName}-steps:*]`,
    'The conductor sends task heartbeats/results to, and stops, executions of its own steps machine; execution names are per node and flow.',
  );
  ack(
    stack.api,
    'AwsSolutions-APIG2',
    'Requests are validated by the API function with Ironic’s own rules and error bodies (400 with Ironic’s message), which API Gateway models cannot express.',
  );
  const operatorPolicy = stack.upgradeOperator.policy;
  if (operatorPolicy) {
    for (const fn of [stack.conductor, stack.apiFunction, stack.dbsync]) {
      ack(
        operatorPolicy,
        `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(fn.function.node.defaultChild as CfnElement)}.Arn>:*]`,
        'ironless upgrade publishes versions of this one function and shifts its live alias: "<function>:*" is its versions and aliases, whose numbers exist only once published.',
      );
    }
    ack(
      operatorPolicy,
      'AwsSolutions-IAM5[Resource::*]',
      'cloudwatch:GetMetricData (the upgrade watches error rates) names its metrics in the request; AWS accepts only "*" as its resource.',
    );
  }
  const ramdiskLogs = stack.getLogicalId(stack.ramdiskLogs.bucket.node.defaultChild as CfnElement);
  ack(
    stack.conductor,
    `AwsSolutions-IAM5[Resource::<${ramdiskLogs}.Arn>/*]`,
    'The conductor puts one ramdisk log archive per failure (Ironic’s file name: node, instance, label, time), which it cannot know before; it may only put them.',
  );
  const staged = 'Staged inspection logs are one object per post under pending/<node>/ (a random name), which cannot be known before.';
  ack(stack.conductor, `AwsSolutions-IAM5[Resource::<${ramdiskLogs}.Arn>/pending/*]`, `The conductor reads them to copy them. ${staged}`);
  ack(stack.apiFunction, `AwsSolutions-IAM5[Resource::<${ramdiskLogs}.Arn>/pending/*]`, `The API puts them. ${staged}`);
  ack(
    stack.ramdiskLogs,
    'AwsSolutions-S1',
    'The bucket holds archives the conductor writes once and operators read; CloudTrail S3 data events are the operator’s choice for object-level audit.',
  );
  const bootIsos = stack.getLogicalId(stack.bootIsos.bucket.node.defaultChild as CfnElement);
  ack(
    stack.conductor,
    `AwsSolutions-IAM5[Resource::<${bootIsos}.Arn>/*]`,
    'The conductor puts, presigns and deletes the agent ISOs it builds, one object per node and purpose (<node>/<mode>.iso), in its own boot ISO bucket.',
  );
  ack(
    stack.bootIsos,
    'AwsSolutions-S1',
    'The bucket holds transient agent ISOs (public kernel, ramdisk and boot loader, and the API URL) that only the conductor writes and BMCs read through presigned URLs; CloudTrail S3 data events are the operator’s choice for object-level audit.',
  );
  for (const bucket of stack.imageBuckets) {
    ack(
      stack.conductor,
      `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::${bucket}/*]`,
      `s3:GetObject on the objects of "${bucket}", an image bucket the operator allowed (settings.imageBuckets): which image a node deploys is the user's choice within it.`,
    );
  }
  if (!stack.restApi.webAcl) {
    ack(
      stack.api,
      'AwsSolutions-APIG3',
      'WAF is the operator’s choice per deployment (api.waf adds a rate-limiting web ACL); the stage is throttled and the functions behind it have reserved concurrency either way.',
    );
  }
  ack(
    stack.api,
    'AwsSolutions-APIG4',
    'Authentication is Ironic’s: http_basic through a REQUEST authorizer (the default), or noauth on a private endpoint or by explicit opt-in; agents reach /, /v1, lookup and heartbeat unauthenticated by design, guarded by agent tokens.',
  );
  ack(stack.api, 'AwsSolutions-COG4', 'Ironic clients (openstack CLI, nova, metal3) do not speak Cognito; see AwsSolutions-APIG4.');
  ack(
    stack.steps,
    'AwsSolutions-SF1',
    'Executions log errors only, without execution data, by default: ALL with data would write step arguments and task tokens (which complete a waiting step) to the logs; stepsLogging turns it up.',
  );
  ack(
    stack.periodicFailures,
    'AwsSolutions-SQS3',
    'The queue is itself a dead-letter destination (failed EventBridge deliveries and asynchronous invocations of the periodic tasks); nothing consumes it, its depth is alarmed.',
  );
  if (stack.auth) {
    ack(
      stack.auth,
      'AwsSolutions-SMG4',
      'The secret holds htpasswd entries (bcrypt digests) the operator manages; there is no password to rotate automatically.',
    );
  }
}

/** Control Tower's proactive controls that Ironless does not meet everywhere, and why. */
export function acknowledgeGuardFindings(stack: IronlessStack): void {
  const ack = (scope: IConstruct, rule: string, reason: string) =>
    Validations.of(scope).acknowledge({ id: `cdk-validator-cfnguard::${rule}`, reason });

  // CT.LAMBDA.PR.3
  const outsideVpc: [IConstruct | undefined, string][] = [
    [
      stack.apiFunction,
      'The api function reaches only AWS APIs (DynamoDB, SQS, Lambda) and is reached through API Gateway; a VPC would add NAT or endpoints and nothing to its isolation.',
    ],
    [stack.dbsync, 'The dbsync function reaches only DynamoDB.'],
    [stack.auth, 'The http_basic authorizer reaches only Secrets Manager.'],
    [stack.webConsole, 'The web console function serves files from its own bundle and reaches nothing.'],
    [
      stack.deployGuard,
      'The deploy guard (its function and CDK’s provider framework) reaches only CloudFormation and Lambda APIs, once per deployment.',
    ],
    [
      stack.node.tryFindChild(AWS_CUSTOM_RESOURCE_PROVIDER),
      'CDK’s custom-resource provider only invokes the conductor alias once per deployment (the RegisterConductor beat).',
    ],
  ];
  if (stack.conductor.function.isBoundToVpc === false) {
    outsideVpc.push([
      stack.conductor,
      'Without conductorNetwork the conductor reaches only BMCs and agents with public routes (or fake hardware); name your VPC with the conductorNetwork prop to run it there.',
    ]);
  }
  for (const [scope, reason] of outsideVpc) if (scope) ack(scope, 'lambda_inside_vpc_check', reason);

  // CT.LAMBDA.PR.2: API Gateway's invoke permissions carry SourceArn, this API's execute-api ARN,
  // built with Fn::Join, which the rule cannot read (the infra tests check every permission has it).
  const gatewayPermissions =
    'API Gateway may invoke the function only for this API (each permission has SourceArn, an Fn::Join of the API’s execute-api ARN that the guard rule does not evaluate).';
  ack(stack.api, 'lambda_function_public_access_prohibited_check', gatewayPermissions);
  if (stack.auth) ack(stack.auth, 'lambda_function_public_access_prohibited_check', gatewayPermissions);

  // CT.CLOUDWATCH.PR.2 (a year or more): only when the operator chose a shorter retention.
  if (stack.logRetention < 365) {
    ack(
      stack,
      'cloudwatch_log_group_retention_period_check',
      `The operator chose to keep logs ${stack.logRetention} days (the logRetention prop; the default is a year).`,
    );
  }

  // CT.SQS.PR.1: the conductor DLQs carry a RedriveAllowPolicy and pass; this one is not an SQS DLQ.
  ack(
    stack.periodicFailures,
    'sqs_dlq_check',
    'The queue is the dead-letter destination of the periodic tasks (EventBridge target DLQ, on-failure destination); nothing consumes it, so it needs no DLQ; its depth is alarmed.',
  );
  // The boot ISO bucket (CT.S3.PR.2, .4, .9, .10, .11): transient objects, deleted at clean-up and expired by a lifecycle rule.
  const isoReasons: [string, string][] = [
    [
      's3_bucket_logging_enabled_check',
      'Agent ISOs are transient build products read through presigned URLs; CloudTrail S3 data events are the operator’s choice for object-level audit.',
    ],
    [
      's3_event_notifications_enabled_check',
      'Nothing reacts to agent ISOs: the conductor that writes one hands its URL to the BMC itself.',
    ],
    [
      's3_bucket_object_lock_enabled_check',
      'Agent ISOs are replaced on every ramdisk boot and deleted at clean-up; locking them would defeat both.',
    ],
    [
      's3_bucket_versioning_enabled_check',
      'A replaced or deleted agent ISO is rebuilt from its kernel and ramdisk; old versions would only keep stale copies.',
    ],
    [
      's3_bucket_default_encryption_kms_check',
      'SSE-S3 encrypts the ISOs; with SSE-KMS every BMC download through a presigned URL would depend on the conductor role’s key rights.',
    ],
  ];
  for (const [rule, reason] of isoReasons) ack(stack.bootIsos, rule, reason);
  // The ramdisk logs bucket (CT.S3.PR.2, .4, .9, .10, .11, AwsSolutions-S1): write-once archives expired by a lifecycle rule.
  const logsReasons: [string, string][] = [
    [
      's3_bucket_logging_enabled_check',
      'The archives are written once by the conductor and read by operators; CloudTrail S3 data events are the operator’s choice for object-level audit.',
    ],
    ['s3_event_notifications_enabled_check', 'Nothing reacts to a ramdisk log archive: operators look one up by node and time.'],
    [
      's3_bucket_object_lock_enabled_check',
      'Archives expire after deployLogsDaysToExpire (Ironic’s deploy_logs_swift_days_to_expire); object lock would keep them past it.',
    ],
    [
      's3_bucket_versioning_enabled_check',
      'Every archive has a key of its own (node, time); nothing overwrites one, so versions would add nothing.',
    ],
    [
      's3_bucket_default_encryption_kms_check',
      'SSE-S3 encrypts the archives; the conductor may only put them, and operators read them with S3 rights alone.',
    ],
  ];
  for (const [rule, reason] of logsReasons) ack(stack.ramdiskLogs, rule, reason);
}
