/**
 * Operations: alarms on every dead-letter queue, the conductor's errors and throttles, failed and
 * timed-out executions, the API's 5xx and the authorizer, notifying an SNS topic (made and
 * encrypted here, or the operator's); failed periodic invocations kept in a queue; a dashboard on
 * request; the steps machine logging errors only, without execution data.
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { LogLevel } from 'aws-cdk-lib/aws-stepfunctions';
import { PERIODIC_TASKS } from '../../functions/conductor/schedules';
import { IronlessStack } from '../../lib/ironless-stack';
import { resourcesOf } from './helpers';

const template = Template.fromStack(new IronlessStack(new App(), 'Ops', { settings: { conductorGroups: ['', 'rack-a'] } }));
const logicalId = (type: string, idPart: string) => {
  const found = resourcesOf(template, type).find(([id]) => id.includes(idPart));
  if (!found) throw new Error(`no ${type} with ${idPart}`);
  return found[0];
};

type Alarm = {
  Properties: { AlarmActions: unknown[]; MetricName: string; Namespace: string; Dimensions: { Name: string; Value: unknown }[] };
};
const alarms = resourcesOf(template, 'AWS::CloudWatch::Alarm') as unknown as [string, Alarm][];
const alarmNamed = (part: string) => alarms.find(([id]) => id.includes(part))?.[1];

describe('alarms', () => {
  it('watch the depth of every dead-letter queue: each group’s DLQ and the periodic failures', () => {
    const dlqs = resourcesOf(template, 'AWS::SQS::Queue').filter(([id]) => id.includes('Dlq') || id.includes('PeriodicFailures'));
    expect(dlqs).toHaveLength(3);
    for (const [queueId] of dlqs) {
      const watching = alarms.filter(
        ([, a]) =>
          a.Properties.MetricName === 'ApproximateNumberOfMessagesVisible' &&
          JSON.stringify(a.Properties.Dimensions).includes(`"${queueId}"`),
      );
      expect([queueId, watching.length]).toEqual([queueId, 1]);
    }
  });

  it('watch the conductor, the step executions, the API and the authorizer', () => {
    const expected: [string, string, string][] = [
      ['ConductorErrors', 'AWS/Lambda', 'Errors'],
      ['ConductorThrottles', 'AWS/Lambda', 'Throttles'],
      ['StepsFailed', 'AWS/States', 'ExecutionsFailed'],
      ['StepsTimedOut', 'AWS/States', 'ExecutionsTimedOut'],
      ['Api5xx', 'AWS/ApiGateway', '5XXError'],
      ['ApiThrottles', 'AWS/Lambda', 'Throttles'],
      ['AuthorizerErrors', 'AWS/Lambda', 'Errors'],
      ['AuthorizerThrottles', 'AWS/Lambda', 'Throttles'],
    ];
    for (const [name, namespace, metric] of expected) {
      expect([name, alarmNamed(name)?.Properties]).toEqual([name, expect.objectContaining({ Namespace: namespace, MetricName: metric })]);
    }
    expect(JSON.stringify(alarmNamed('ConductorErrors')?.Properties.Dimensions)).toContain(
      logicalId('AWS::Lambda::Function', 'ConductorFunction'),
    );
    expect(JSON.stringify(alarmNamed('AuthorizerErrors')?.Properties.Dimensions)).toContain(
      logicalId('AWS::Lambda::Function', 'AuthorizerFunction'),
    );
    expect(JSON.stringify(alarmNamed('StepsFailed')?.Properties.Dimensions)).toContain(
      logicalId('AWS::StepFunctions::StateMachine', 'Steps'),
    );
  });

  it('notify a topic of the stack, encrypted with its key, SSL only, named in an output', () => {
    const topic = logicalId('AWS::SNS::Topic', 'Operations');
    for (const [, alarm] of alarms) expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topic }]);
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: { 'Fn::GetAtt': [logicalId('AWS::KMS::Key', 'LogsKey'), 'Arn'] } });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
    template.hasOutput('AlarmTopic', { Value: { Ref: topic } });
    // CloudWatch may use the key to publish to the encrypted topic.
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({ Principal: { Service: 'cloudwatch.amazonaws.com' }, Action: ['kms:Decrypt', 'kms:GenerateDataKey*'] }),
        ]),
      },
    });
  });

  it("notify the operator's topic instead when given, and add a dashboard only when asked", () => {
    const arn = 'arn:aws:sns:eu-west-1:123456789012:ops';
    const custom = Template.fromStack(new IronlessStack(new App(), 'OpsTopic', { alarmTopicArn: arn, dashboard: true }));
    custom.resourceCountIs('AWS::SNS::Topic', 0);
    expect(Object.keys(custom.findOutputs('AlarmTopic'))).toHaveLength(0);
    for (const [, alarm] of resourcesOf(custom, 'AWS::CloudWatch::Alarm')) expect(alarm.Properties.AlarmActions).toEqual([arn]);
    custom.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 0);
  });
});

describe('periodic tasks', () => {
  it('keep their failures: EventBridge delivery failures and failed asynchronous invocations go to one queue', () => {
    const queue = logicalId('AWS::SQS::Queue', 'PeriodicFailures');
    const rules = resourcesOf(template, 'AWS::Events::Rule');
    expect(rules).toHaveLength(Object.keys(PERIODIC_TASKS).length);
    for (const [, rule] of rules) {
      expect(rule.Properties.Targets).toEqual([expect.objectContaining({ DeadLetterConfig: { Arn: { 'Fn::GetAtt': [queue, 'Arn'] } } })]);
    }
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      // The alias's name, selected from its ARN.
      Qualifier: { 'Fn::Select': [7, { 'Fn::Split': [':', { Ref: logicalId('AWS::Lambda::Alias', 'ConductorLive') }] }] },
      FunctionName: { Ref: logicalId('AWS::Lambda::Function', 'ConductorFunction') },
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queue, 'Arn'] } } },
    });
  });
});

describe('the steps machine', () => {
  it('logs errors only, without execution data (step arguments, task tokens), by default', () => {
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      LoggingConfiguration: Match.objectLike({ Level: 'ERROR', IncludeExecutionData: false }),
    });
  });

  it('logs more when the operator asks', () => {
    const verbose = Template.fromStack(
      new IronlessStack(new App(), 'Verbose', { stepsLogging: { level: LogLevel.ALL, includeExecutionData: true } }),
    );
    verbose.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      LoggingConfiguration: Match.objectLike({ Level: 'ALL', IncludeExecutionData: true }),
    });
  });
});
