/**
 * cdk-nag (AWS Solutions pack) findings Ironless acknowledges, each with its reason. Anything not
 * listed here fails `cdk synth`; the infra tests check that nothing else is reported.
 */
import { type CfnElement, Token, Validations } from 'aws-cdk-lib';
import type { IronlessStack } from './ironless-stack';

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
  ack(
    stack.api,
    'AwsSolutions-APIG3',
    'WAF is the operator’s choice per deployment (the API is often private); attach a web ACL to the stage if it is public.',
  );
  ack(
    stack.api,
    'AwsSolutions-APIG4',
    'Authentication is Ironic’s: noauth for private endpoints, or http_basic checked by the API; agents reach lookup/heartbeat unauthenticated by design, guarded by agent tokens.',
  );
  ack(stack.api, 'AwsSolutions-COG4', 'Ironic clients (openstack CLI, nova, metal3) do not speak Cognito; see AwsSolutions-APIG4.');
  if (stack.auth) {
    ack(
      stack.auth,
      'AwsSolutions-SMG4',
      'The secret holds htpasswd entries (bcrypt digests) the operator manages; there is no password to rotate automatically.',
    );
  }
}
