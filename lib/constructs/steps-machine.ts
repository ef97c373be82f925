/**
 * The steps state machine, from `statemachines/steps.asl.json` through the same loader the local
 * stack uses. Its role may invoke the conductor's `live` alias and nothing else. It logs errors
 * only, without execution data, by default: a state's input and output carry step arguments (which
 * may hold secrets a user passed) and task tokens (which complete a waiting step).
 */
import { ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { IAlias } from 'aws-cdk-lib/aws-lambda';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { fillNumbers, readStepsAsl, type StepsNumbers } from '../../statemachines/definitions';

export interface StepsMachineProps {
  readonly conductor: IAlias;
  readonly numbers: StepsNumbers;
  /** Physical name; the conductor learns the ARN from it, which avoids a dependency cycle. */
  readonly stateMachineName: string;
  /** What executions log. @default errors only, without execution data */
  readonly logging?: StepsLogging;
  /** @default RetentionDays.ONE_YEAR */
  readonly logRetention?: RetentionDays;
  readonly logsKey?: IKey;
}

export interface StepsLogging {
  readonly level: LogLevel;
  /** Log each state's input and output (step arguments, task tokens). */
  readonly includeExecutionData: boolean;
}

export const DEFAULT_STEPS_LOGGING: StepsLogging = { level: LogLevel.ERROR, includeExecutionData: false };

export class StepsMachine extends Construct {
  readonly stateMachine: StateMachine;
  /** The ASL with numbers filled, as deployed (string placeholders left to CloudFormation). */
  readonly definition: string;

  constructor(scope: Construct, id: string, props: StepsMachineProps) {
    super(scope, id);
    this.definition = fillNumbers(readStepsAsl(), { ...props.numbers });
    const logs = new LogGroup(this, 'Logs', {
      retention: props.logRetention ?? RetentionDays.ONE_YEAR,
      encryptionKey: props.logsKey,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const logging = props.logging ?? DEFAULT_STEPS_LOGGING;
    this.stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineName: props.stateMachineName,
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromString(this.definition),
      definitionSubstitutions: { ConductorFunctionArn: props.conductor.functionArn },
      logs: { destination: logs, level: logging.level, includeExecutionData: logging.includeExecutionData },
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
