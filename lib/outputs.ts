/** The CloudFormation outputs `ironless upgrade --stack NAME` reads (placeholder until the CDK side lands). */
export const STACK_OUTPUTS = {
  conductorFunctionName: 'ConductorFunctionName',
  apiFunctionName: 'ApiFunctionName',
  dbsyncFunctionName: 'DbsyncFunctionName',
  authorizerFunctionName: 'AuthorizerFunctionName',
  conductorDeadLetterQueues: 'ConductorDeadLetterQueues',
  restApiName: 'RestApiName',
  restApiStage: 'RestApiStage',
} as const;
