/**
 * The CloudFormation outputs `ironless upgrade --stack NAME` (and other tools) read, by key. This
 * module imports nothing, so the CLI loads it without the CDK.
 *
 * | key | value |
 * |---|---|
 * | ConductorFunctionName | conductor function name; its tags hold the upgrade state (`ironless:upgrade`) and the running release (`ironless:release`) |
 * | ApiFunctionName | api function name |
 * | DbsyncFunctionName | dbsync function name (DbsyncFunction, kept, is its `live` alias ARN) |
 * | AuthorizerFunctionName | the http_basic authorizer function name; absent with noauth |
 * | ConductorQueueUrls | JSON object: conductor group ("" the default) → its queue URL (the functions' CONDUCTOR_QUEUES) |
 * | ConductorDeadLetterQueues | comma-separated URLs of the conductor queues' dead-letter queues |
 * | PeriodicFailuresQueue | URL of the queue failed periodic (scheduled) conductor runs land in |
 * | RestApiName | the REST API's name: API Gateway metrics' `ApiName` dimension |
 * | RestApiStage | the deployed stage: API Gateway metrics' `Stage` dimension |
 * | Rollout | `ironless-upgrade` or `cdk-deploy`: who moves the `live` aliases after the first deploy |
 * | UpgradeOperatorPolicy | ARN of a managed policy with what `ironless upgrade` needs; absent when the stack was told not to make it |
 * | `<Name>Table` | each DynamoDB table's name (`tableOutputKey` in functions/db/schema.ts: nodes → NodesTable) |
 */
export const STACK_OUTPUTS = {
  conductorFunctionName: 'ConductorFunctionName',
  apiFunctionName: 'ApiFunctionName',
  dbsyncFunctionName: 'DbsyncFunctionName',
  authorizerFunctionName: 'AuthorizerFunctionName',
  conductorQueues: 'ConductorQueueUrls',
  conductorDeadLetterQueues: 'ConductorDeadLetterQueues',
  periodicFailuresQueue: 'PeriodicFailuresQueue',
  restApiName: 'RestApiName',
  restApiStage: 'RestApiStage',
  rollout: 'Rollout',
  upgradeOperatorPolicy: 'UpgradeOperatorPolicy',
} as const;

export type StackOutputKey = (typeof STACK_OUTPUTS)[keyof typeof STACK_OUTPUTS];
