/**
 * The steps state machine, from `statemachines/steps.asl.json` through the same loader the local
 * stack uses. Its role may invoke the conductor's `live` alias and nothing else.
 */
import { ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { IAlias } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { fillNumbers, readStepsAsl, type StepsNumbers } from '../../statemachines/definitions';

export interface StepsMachineProps {
  readonly conductor: IAlias;
  readonly numbers: StepsNumbers;
  /** Physical name; the conductor learns the ARN from it, which avoids a dependency cycle. */
  readonly stateMachineName: string;
}

export class StepsMachine extends Construct {
  readonly stateMachine: StateMachine;
  /** The ASL with numbers filled, as deployed (string placeholders left to CloudFormation). */
  readonly definition: string;

  constructor(scope: Construct, id: string, props: StepsMachineProps) {
    super(scope, id);
    this.definition = fillNumbers(readStepsAsl(), { ...props.numbers });
    const logs = new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.RETAIN });
    this.stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineName: props.stateMachineName,
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromString(this.definition),
      definitionSubstitutions: { ConductorFunctionArn: props.conductor.functionArn },
      logs: { destination: logs, level: LogLevel.ALL, includeExecutionData: true },
      tracingEnabled: true,
    });
    // Definitions from files get no grants from CDK: the one the machine needs, by hand.
    props.conductor.grantInvoke(this.stateMachine.role);
  }

  /** ARN of a state machine named `name` in `scope`'s stack, known before it exists. */
  static arnFor(scope: Construct, name: string): string {
    return Stack.of(scope).formatArn({
      service: 'states',
      resource: 'stateMachine',
      resourceName: name,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
  }
}
