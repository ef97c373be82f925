/**
 * What the conductor needs to ride out DynamoDB throttling on AWS, as the local stack has it: the
 * steps machine retries a step task that failed with DatabaseUnavailable (before its Catch fails
 * the node), and the conductor may ask SQS for an early redelivery of a message on its own queues.
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { IronlessStack } from '../../lib/ironless-stack';

const template = Template.fromStack(new IronlessStack(new App(), 'Throttling', { settings: { conductorGroups: ['', 'rack-a'] } }));

type Statement = { Action: string | string[]; Resource: unknown };

it('retries a step task DynamoDB could not serve before failing the node', () => {
  const machine = Object.values(template.findResources('AWS::StepFunctions::StateMachine'))[0] as {
    Properties: { DefinitionString: string };
  };
  const states = (JSON.parse(machine.Properties.DefinitionString) as { States: Record<string, { Retry?: { ErrorEquals: string[] }[] }> })
    .States;
  for (const name of ['RunStep', 'RunStepAsync']) {
    const retried = (states[name]?.Retry ?? []).flatMap((r) => r.ErrorEquals);
    expect(`${name}: ${retried.join(', ')}`).toContain('DatabaseUnavailable');
  }
});

it('lets the conductor change the visibility of messages on each of its queues (an early redelivery), and tells it their URLs', () => {
  const queues = Object.keys(template.findResources('AWS::SQS::Queue', { Properties: { RedrivePolicy: Match.anyValue() } }));
  expect(queues).toHaveLength(2);
  const statements = Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((p) => JSON.stringify((p as { Properties: { Roles: unknown } }).Properties.Roles).includes('ConductorFunctionServiceRole'))
    .flatMap((p) => (p as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument.Statement);
  for (const queue of queues) {
    const allowed = statements.filter(
      (s) => [s.Action].flat().includes('sqs:ChangeMessageVisibility') && JSON.stringify(s.Resource).includes(`"${queue}"`),
    );
    expect(`${queue}: ${allowed.length}`).toBe(`${queue}: 1`);
  }
  const conductor = Object.values(
    template.findResources('AWS::Lambda::Function', { Properties: { Description: Match.stringLikeRegexp('conductor') } }),
  )[0] as {
    Properties: { Environment: { Variables: Record<string, unknown> } };
  };
  expect(conductor.Properties.Environment.Variables.CONDUCTOR_QUEUES).toBeDefined();
});
